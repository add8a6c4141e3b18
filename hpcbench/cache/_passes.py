"""The passes of a latency sweep and of its refinement, and how their
samples are pooled (pure orchestration: the timing is a callable, the C
chase on this machine or a simulator in the tests).

Each pass times a list of sizes, in a new random order, on one new buffer:
a new placement. Where the placement is random, one pass's curve is one
draw of the page colours along the buffer, and the page-set model describes
their average: the more passes, the closer the curve comes to it. Passes
over small sizes cost little (a 2 MiB traversal takes a millisecond), so
the refinement, which adds the sizes the estimates rest on, runs
CHEAP_PASS_FACTOR times as many passes over sizes up to CHEAP_SIZE; larger
sizes keep the base number.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ._grid import refinement_sizes
from ._robust import per_size

#: Sizes up to this many bytes are cheap to time again and again.
CHEAP_SIZE = 4 << 20
#: The refinement runs this many times the base passes over cheap sizes.
CHEAP_PASS_FACTOR = 4
#: Refinement measures at most this share of the base sweep's bytes above
#: CHEAP_SIZE again (each size costs a few traversals of itself per pass): it
#: bounds the time a noisy memory plateau, whose wobbles look like rises, could
#: cost.
REFINEMENT_BUDGET = 0.5

#: run_pass(sizes in visiting order, seed) -> (ticks (n, samples), ns (n, samples), accesses (n,), placement)
RunPass = Callable[[np.ndarray, int], tuple]


@dataclass
class Passes:
    """The pooled samples of a sweep: (sizes, passes, samples), NaN where a
    size had fewer passes or samples than the widest."""

    sizes: np.ndarray
    ticks: np.ndarray
    ns: np.ndarray
    accesses: np.ndarray
    refined: np.ndarray
    placements: list = field(default_factory=list)


def _run(run_pass: RunPass, sizes: np.ndarray, passes: int, seed: int, rows: dict, accesses: dict,
         placements: list, progress, label: str) -> None:
    """`passes` passes over `sizes`; each size's rows (ticks, ns) appended to rows[size]."""
    rng = np.random.default_rng(seed)
    for p in range(passes):
        order = rng.permutation(sizes.size)
        ticks, ns, acc, placement = run_pass(sizes[order], seed + 7919 * p)
        for k, i in enumerate(order):
            rows.setdefault(int(sizes[i]), []).append((ticks[k], ns[k]))
            accesses[int(sizes[i])] = int(acc[k])
        placements.append(placement)
        if progress:
            progress(f"{label}: pass {p + 1}/{passes} done")


def _pool(sizes: np.ndarray, rows: dict, samples: int) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(rows[int(s)]) for s in sizes)
    ticks = np.full((sizes.size, width, samples), np.nan)
    ns = np.full_like(ticks, np.nan)
    for i, s in enumerate(sizes):
        for p, (t, n) in enumerate(rows[int(s)]):
            ticks[i, p], ns[i, p] = t, n
    return ticks, ns


def _neighbours(sizes: np.ndarray, extra: np.ndarray) -> np.ndarray:
    """Base sizes with a refined size between them and a neighbour."""
    keep = []
    for i in range(sizes.size):
        lo = sizes[i - 1] if i > 0 else sizes[i]
        hi = sizes[i + 1] if i + 1 < sizes.size else sizes[i]
        if np.any((extra > lo) & (extra < hi)):
            keep.append(i)
    return sizes[np.array(keep, dtype=int)]


def run_passes(run_pass: RunPass, sizes: np.ndarray, passes: int, samples: int, stride: int, refine: bool,
               seed: int, progress: Callable[[str], None] | None = None) -> Passes:
    """The base sweep over `sizes`, then (refine) the refinement: the sizes
    refinement_sizes adds inside the rises, with the base sizes around them
    again, CHEAP_PASS_FACTOR times as many passes for sizes up to
    CHEAP_SIZE. Every pass's samples are pooled per size."""
    sizes = np.asarray(sizes, dtype=np.int64)
    rows: dict = {}
    accesses: dict = {}
    placements: list = []
    _run(run_pass, sizes, passes, seed, rows, accesses, placements, progress, "cache sweep")
    extra = np.zeros(0, dtype=np.int64)
    if refine:
        ticks, _ = _pool(sizes, rows, samples)
        extra = refinement_sizes(sizes, per_size(ticks), stride=stride,
                                 budget=REFINEMENT_BUDGET * float(np.sum(sizes[sizes > CHEAP_SIZE])),
                                 budget_from=CHEAP_SIZE)
        if extra.size:
            todo = np.union1d(extra, _neighbours(sizes, extra))
            cheap, dear = todo[todo <= CHEAP_SIZE], todo[todo > CHEAP_SIZE]
            if cheap.size:
                _run(run_pass, cheap, CHEAP_PASS_FACTOR * passes, seed + 1, rows, accesses, placements, progress,
                     "refinement")
            if dear.size:
                _run(run_pass, dear, passes, seed + 2, rows, accesses, placements, progress, "refinement (large)")
    every = np.union1d(sizes, extra)
    ticks, ns = _pool(every, rows, samples)
    return Passes(sizes=every, ticks=ticks, ns=ns, accesses=np.array([accesses[int(s)] for s in every]),
                  refined=np.isin(every, extra), placements=placements)
