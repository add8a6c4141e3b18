"""Copy-bandwidth measurements on one core, on pairs and on groups of cores.

Bandwidth is STREAM's: 2 * array_bytes per copy (read plus write, no
write-allocate), in bytes per second, per core. Each call of the kernel
allocates fresh arrays touched first by the core that uses them. Runs on
several cores also keep when each copy started and ended, on one clock, for
the aggregate bandwidth (_analysis.aggregate_bandwidth).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from .. import _core, _validate
from .._errors import OptionError
from .._format import format_size
from .._memory import page_mode, safe_memory_limit
from ..topology import Topology
from ..topology._pairs import PairPlan
from ._options import MemoryOptions

_D = MemoryOptions()

#: Arrays at least this many times the largest cache, so no level holds them.
CACHE_MULTIPLE = 4
#: Floor of the default array size: small-cache machines still stream.
MIN_DEFAULT_ARRAY = 64 << 20


def default_array_bytes(topology: Topology) -> int:
    """4 times the largest data cache hwloc reports (at least 64 MiB),
    rounded up to a MiB."""
    caches = [c.size for c in topology.caches if c.kind != "instruction"]
    size = max(CACHE_MULTIPLE * max(caches, default=0), MIN_DEFAULT_ARRAY)
    return -(-size // (1 << 20)) * (1 << 20)


def check_copy(array_bytes: int, repetitions: int, pages: str = _D.pages) -> None:
    """The copy kernel's own rules (an array of whole cache lines, the
    repetitions), stated once in C (_core.copy_check), named as the options."""
    with _validate.c_rules({"array_bytes": "size", "page_mode": "pages"}):
        _core.copy_check(array_bytes, repetitions, page_mode=page_mode(pages))


def check_array_bytes(array_bytes: int, members: int) -> int:
    """Each member holds two arrays; all of them must fit in the safe share
    of memory (the array's own rules are check_copy's)."""
    limit = safe_memory_limit()
    need = 2 * array_bytes * members
    if need > limit:
        raise OptionError("size", f"must let {members} core(s) copy two arrays each within the "
                                  f"{format_size(limit)} that may be used now; {format_size(array_bytes)} "
                                  f"arrays need {format_size(need)}")
    return array_bytes


class CopyRun(NamedTuple):
    """One run of the copy on a team, arrays (members, repetitions): each
    copy's bytes/s, and its start and end in ns after the run's first start
    (CLOCK_MONOTONIC, one clock for every member)."""
    bandwidth: np.ndarray
    start_ns: np.ndarray
    end_ns: np.ndarray


def copy_run(pus: Sequence[int], array_bytes: int, repetitions: int = _D.repetitions, warmup: int = 1,
             pages: str = _D.pages) -> CopyRun:
    """Run the copy on every PU of `pus` at once: each member's bandwidth in
    each repetition, and when each copy started and ended."""
    ns, _ticks, start, end = _core.copy_team(list(pus), array_bytes, repetitions, warmup=warmup,
                                             page_mode=page_mode(pages))
    first = start.min()
    return CopyRun(2.0 * array_bytes / (ns * 1e-9), start - first, end - first)


def copy_bandwidth(pus: Sequence[int], array_bytes: int, repetitions: int = _D.repetitions, warmup: int = 1,
                   pages: str = _D.pages) -> np.ndarray:
    """Run the copy on every PU of `pus` at once; bytes per second of each
    member in each repetition, shape (members, repetitions)."""
    return copy_run(pus, array_bytes, repetitions, warmup, pages).bandwidth


def measure_pairs(plan: PairPlan, array_bytes: int, repetitions: int = _D.repetitions, rounds: int = _D.rounds,
                  pages: str = _D.pages, seed: int = _D.seed,
                  progress: Callable[[str], None] | None = None) -> dict:
    """For each tested pair and round: each core alone, then both at once.
    Returns {"pairs", "alone": (pairs, rounds, 2, reps), "together": same},
    bytes per second per core, and "together_start_ns", "together_end_ns"
    (same shape): when each copy together started and ended, ns after the
    first start of its run."""
    pairs = list(plan.tested)
    shape = (len(pairs), rounds, 2, repetitions)
    alone, together, start, end = np.empty(shape), np.empty(shape), np.empty(shape), np.empty(shape)
    rng = np.random.default_rng(seed)
    for r in range(rounds):
        for i in map(int, rng.permutation(len(pairs))):
            a, b = pairs[i]
            for m, pu in enumerate((a, b)):
                alone[i, r, m] = copy_bandwidth([pu], array_bytes, repetitions, pages=pages)[0]
            together[i, r], start[i, r], end[i, r] = copy_run([a, b], array_bytes, repetitions, pages=pages)
        if progress:
            progress(f"memory: round {r + 1}/{rounds} of {len(pairs)} pair(s) done")
    return {"pairs": pairs, "alone": alone, "together": together, "together_start_ns": start,
            "together_end_ns": end}


def measure_scalability(cores: Sequence[int], array_bytes: int, repetitions: int = _D.repetitions,
                        pages: str = _D.pages) -> list[CopyRun]:
    """The first 1, 2, ... k of `cores` copying at once: a CopyRun per k
    (arrays (k, repetitions): bytes per second, starts and ends)."""
    return [copy_run(cores[:k], array_bytes, repetitions, pages=pages) for k in range(1, len(cores) + 1)]
