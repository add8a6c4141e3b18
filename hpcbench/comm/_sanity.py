"""Checks that flag comm results that cannot be right, with the likely cause.

Overlap (CoMet 3.3.7). Per cell of the grid (a DAXPY length, a message
size), four median times: blocking (exchange then DAXPY), non-blocking
(Irecv, Isend, DAXPY, Waitall), the exchange alone and the DAXPY alone.
Blocking runs the exchange and then the DAXPY, so it cannot take less than
the exchange alone; and the time the non-blocking version saves cannot
exceed the shorter of the two parts, nor should it cost much more than
blocking. A cell is flagged when

* blocking is below communication alone by more than the two medians'
  uncertainty (2 standard errors of their difference) plus 1 %;
* the overlap percentage (saved / the shorter part, where that part is
  measurable) lies outside -10 % .. 110 %.

The cause named is the likeliest one the run can tell: ranks that share a
PU (time-slicing), noisy samples (a median uncertain by more than 5 %), or
else what the MPI library does in that situation.

Everything here is a pure function of numbers and placements.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ._records import OverlapFlag, Placement

#: The overlap percentages outside this range are flagged.
OVERLAP_RANGE = (-10.0, 110.0)
#: A median whose relative standard error exceeds this is called noisy.
NOISY_RSE = 0.05
#: Blocking may fall below the exchange alone by this share before the
#: uncertainty of the two medians is added.
BLOCKING_SLACK = 0.01

BELOW_COMM = "blocking below communication alone"
ABOVE_RANGE = f"overlap above {OVERLAP_RANGE[1]:.0f}%"
BELOW_RANGE = f"overlap below {OVERLAP_RANGE[0]:.0f}%"

_CAUSES = {
    BELOW_COMM: "the exchange ran faster right after a DAXPY than back to back: with the DAXPY between two "
                "exchanges the partner's message is often there before the receive is posted (CoMet saw "
                "exchanges finish early this way)",
    ABOVE_RANGE: "the non-blocking version saved more than the shorter part takes alone: the parts alone ran "
                 "slower than inside it (a large message the library moves without an extra copy when the "
                 "receive is posted first, as CoMet saw)",
}


def _below_range_cause(extra_s: float, hideable_s: float) -> str:
    """Why non-blocking can cost more than blocking: its calls' own cost
    against what there is to hide (CoMet: "the overhead involved in setting
    up the asynchronous call does not match the gain" for small messages)."""
    return (f"Isend/Irecv/Waitall cost {extra_s * 1e6:.2f} us more than the blocking exchange, against "
            f"{hideable_s * 1e6:.2f} us that could be hidden: the MPI library makes no progress on the transfer "
            "while the rank computes, so the non-blocking calls only add their own cost (CoMet saw this for "
            "small messages)")


def crowding(placement: Sequence[Placement], ranks: Sequence[int]) -> str | None:
    """Where some of `ranks` share PUs (more ranks on a node than the PUs
    they are bound to, together), one phrase saying so; else None."""
    by_node: dict = {}
    for p in placement:
        if p.rank in ranks:
            by_node.setdefault((p.host, p.node), []).append(p)
    for (host, _), members in sorted(by_node.items()):
        pus = set().union(*(set(m.pus) for m in members))
        if len(members) > 1 and len(pus) < len(members):
            return (f"ranks {', '.join(str(m.rank) for m in members)} share {len(pus)} PU(s) of {host}: "
                    "time-slicing, not the hardware")
    return None


def _finite(x) -> bool:
    return x is not None and math.isfinite(x)


def overlap_flags(lengths: Sequence[int], sizes: Sequence[int], medians: dict, errors: dict, percent: np.ndarray,
                  crowded: str | None = None) -> list[OverlapFlag]:
    """The flags of an overlap grid. medians and errors: mode -> array
    (lengths, sizes) of median seconds and of their relative standard
    errors; percent: the overlap percentages (NaN where not measurable);
    crowded: what `crowding` said about the pair, if anything."""
    flags = []
    for i, n in enumerate(lengths):
        for j, size in enumerate(sizes):
            found = []
            blocking, comm_only = medians["blocking"][i, j], medians["comm_only"][i, j]
            se = math.hypot(blocking * _rse(errors, "blocking", i, j), comm_only * _rse(errors, "comm_only", i, j))
            if _finite(blocking) and _finite(comm_only) and blocking < comm_only * (1 - BLOCKING_SLACK) - 2 * se:
                found.append((BELOW_COMM, 100.0 * blocking / comm_only, ("blocking", "comm_only")))
            pct = percent[i, j]
            if _finite(pct) and pct > OVERLAP_RANGE[1]:
                found.append((ABOVE_RANGE, float(pct), tuple(medians)))
            elif _finite(pct) and pct < OVERLAP_RANGE[0]:
                found.append((BELOW_RANGE, float(pct), tuple(medians)))
            for problem, value, modes in found:
                if problem == BELOW_RANGE:
                    hideable = min(comm_only, medians["compute_only"][i, j])
                    default = _below_range_cause(medians["nonblocking"][i, j] - blocking, hideable)
                else:
                    default = _CAUSES[problem]
                flags.append(OverlapFlag(vector_length=int(n), size=int(size), problem=problem, value=value,
                                         cause=_cause(crowded, errors, modes, i, j, default)))
    return flags


def _rse(errors: dict, mode: str, i: int, j: int) -> float:
    value = errors[mode][i, j] if mode in errors else math.nan
    return float(value) if _finite(value) else 0.0


def _cause(crowded: str | None, errors: dict, modes: tuple, i: int, j: int, default: str) -> str:
    if crowded:
        return crowded
    worst = max(_rse(errors, m, i, j) for m in modes)
    if worst > NOISY_RSE:
        by = "more than 100%" if worst > 1 else f"{100 * worst:.0f}%"
        return f"noisy samples: a median is uncertain by {by} (another process took the core, or the network was busy)"
    return default


def flagged_cells(flags: Sequence[OverlapFlag]) -> list:
    """The distinct (vector_length, size) cells among the flags, in order."""
    return list(dict.fromkeys((f.vector_length, f.size) for f in flags))
