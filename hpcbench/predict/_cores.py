"""More ranks than cores: refused, with the reason.

The model and the simulator give every rank a core of its own (W_g is a
core's time per cell, and a rank waiting for a face costs nothing). Ranks
that time-share a core compute at a fraction of W_g's rate, and an MPI
library that polls while it waits takes the core from the rank that would
compute: the model was 49 to 58 % short of such runs. Time-sharing is not
modelled, so a job with more ranks on a host than processing units bound
to its ranks there is refused before anything is measured or predicted
from its placement.
"""
from __future__ import annotations

import os
import socket
from typing import Any

__all__ = ["crowded_hosts", "crowding_problem"]


def _mine() -> tuple[str, tuple[int, ...]]:
    """This process's host and the PUs it may run on."""
    try:
        pus = tuple(sorted(os.sched_getaffinity(0)))
    except (AttributeError, OSError):           # no affinity on this OS: every PU
        pus = tuple(range(os.cpu_count() or 1))
    return socket.gethostname(), pus


def crowded_hosts(comm: Any) -> dict[str, tuple[int, int]]:
    """{host: (ranks, PUs)} for every host of `comm` (every rank calls it)
    where the ranks outnumber the PUs they may run on together."""
    per_host: dict[str, tuple[int, set[int]]] = {}
    for host, pus in comm.allgather(_mine()):
        ranks, union = per_host.get(host, (0, set()))
        per_host[host] = (ranks + 1, union | set(pus))
    return {host: (ranks, len(union)) for host, (ranks, union) in per_host.items() if ranks > len(union)}


def crowding_problem(crowded: dict[str, tuple[int, int]]) -> str | None:
    """The one line that refuses a crowded job, or None."""
    if not crowded:
        return None
    host, (ranks, pus) = sorted(crowded.items())[0]
    more = f" (and {len(crowded) - 1} more hosts)" if len(crowded) > 1 else ""
    return (f"{ranks} ranks share the {pus} processing units of {host}{more}: the model gives every rank a core "
            f"of its own and does not model time-sharing; run at most {pus} ranks per host, or predict with "
            "--machine and --alloc instead of this job's placement")
