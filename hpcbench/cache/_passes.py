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

A sweep whose curve still rises at its largest size has not reached memory:
the last level's rise has no upper plateau, and neither its latency nor the
page-set fit of its size has an anchor above it (random replacement spreads
a rise over about four times the cache). Before refining, such a sweep is
extended octave by octave past its top (extension_sizes) until a plateau
appears, up to a bound the caller gives (a multiple of the largest cache,
within the memory available) and within EXTENSION_BUDGET; refinement and
the analysis then see the extended curve.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ._grid import POINTS_PER_OCTAVE, IntArray, RefinementSettings, extension_sizes, refinement_sizes
from ._probabilistic import FloatArray
from ._rises import DEFAULT_STEP_THRESHOLD, find_rises, monotone_fit
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

#: The extension measures at most this multiple of the base sweep's bytes
#: (each size costs a few traversals of itself per pass). Past the top of the
#: fine grid one octave holds as many bytes as every size below it, so this
#: allows one octave there, a little more on the paper's grid; it bounds what
#: the extension adds to a default sweep's time (docs/cache.md).
EXTENSION_BUDGET = 1.5

#: The extension stops at this many times the largest cache: random
#: replacement under random pages leaves a level's rise about four times
#: its size wide (a page set of n > K lines hits on a share h = exp(-(n/K)(1 - h))).
EXTEND_FACTOR = 4
#: Without a cache to go by, the extension stops here.
EXTEND_DEFAULT = 256 << 20

#: run_pass(sizes in visiting order, seed) -> (ticks (n, samples), ns (n, samples), accesses (n,), placement)
RunPass = Callable[[IntArray, int], tuple[Any, Any, Any, Any]]
Progress = Callable[[str], None]


@dataclass(frozen=True)
class PassPlan:
    """How run_passes sweeps: what every pass times, and what may be added."""

    passes: int                   #: passes over the base sizes (each on a new buffer, in a new order)
    samples: int                  #: timings per size per pass
    stride: int                   #: bytes: the sizes added are multiples of it
    refine: bool = True           #: add sizes inside the rises (refinement_sizes)
    seed: int = 12345             #: of the visiting orders and of every pass
    extend_to: int = 0            #: bytes the extension may reach (0: no extension)
    cache_top: int | None = None  #: bytes of the largest cache known: a rise past it is not a cache's


@dataclass
class Passes:
    """The pooled samples of a sweep: (sizes, passes, samples), NaN where a
    size had fewer passes or samples than the widest."""

    sizes: IntArray
    ticks: FloatArray
    ns: FloatArray
    accesses: IntArray
    refined: npt.NDArray[np.bool_]
    placements: list[Any] = field(default_factory=list)
    #: True for sizes the extension added
    extended: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))


@dataclass
class _Samples:
    """Every pass's samples so far, per size: the rows (ticks, ns) of each
    pass, the accesses per sample, and each pass's placement."""

    run_pass: RunPass
    progress: Progress | None
    rows: dict[int, list[tuple[Any, Any]]] = field(default_factory=dict)
    accesses: dict[int, int] = field(default_factory=dict)
    placements: list[Any] = field(default_factory=list)

    def run(self, sizes: IntArray, passes: int, seed: int, label: str) -> None:
        """`passes` passes over `sizes`, each in a new random order."""
        rng = np.random.default_rng(seed)
        for p in range(passes):
            order = rng.permutation(sizes.size)
            ticks, ns, acc, placement = self.run_pass(sizes[order], seed + 7919 * p)
            for k, i in enumerate(order):
                self.rows.setdefault(int(sizes[i]), []).append((ticks[k], ns[k]))
                self.accesses[int(sizes[i])] = int(acc[k])
            self.placements.append(placement)
            if self.progress:
                self.progress(f"{label}: pass {p + 1}/{passes} done")

    def pool(self, sizes: IntArray, samples: int) -> tuple[FloatArray, FloatArray]:
        """(ticks, ns) of `sizes`, shape (sizes, passes, samples): NaN where
        a size had fewer passes than the widest."""
        width = max(len(self.rows[int(s)]) for s in sizes)
        ticks = np.full((sizes.size, width, samples), np.nan)
        ns = np.full_like(ticks, np.nan)
        for i, s in enumerate(sizes):
            for p, (t, n) in enumerate(self.rows[int(s)]):
                ticks[i, p], ns[i, p] = t, n
        return ticks, ns


def _neighbours(sizes: IntArray, extra: IntArray) -> IntArray:
    """Base sizes with a refined size between them and a neighbour."""
    keep: list[int] = []
    for i in range(sizes.size):
        lo = sizes[i - 1] if i > 0 else sizes[i]
        hi = sizes[i + 1] if i + 1 < sizes.size else sizes[i]
        if np.any((extra > lo) & (extra < hi)):
            keep.append(i)
    kept: IntArray = sizes[np.array(keep, dtype=int)]
    return kept


def extension_limit(largest_cache: int | None, available: int) -> int:
    """Bytes the extension may reach: EXTEND_FACTOR times the largest cache
    (EXTEND_DEFAULT if none is known), within `available` (the memory a
    buffer may take)."""
    target = EXTEND_FACTOR * largest_cache if largest_cache else EXTEND_DEFAULT
    return int(min(target, available))


def still_rising(sizes: npt.ArrayLike, cycles: npt.ArrayLike, cache_top: int | None = None) -> bool:
    """The curve has not reached a plateau at its largest size: its last
    rise runs to the end, or it ends less than a quarter octave before the
    end and the monotone fit still climbs by more than the rise threshold
    over the last quarter octave. The second test is the first's on the fine
    grid; on the paper's grid, whose 1 MiB steps are 4 % of 24 MiB, a curve
    climbing 40 % an octave rises less than the threshold per step and would
    pass for a plateau. Wobbles at the top of a plateau that began earlier
    (a busy machine: 10 % at hundreds of MiB) are not a rise. A curve
    without a rise is not rising, nor one whose last rise starts past
    `cache_top` (the largest cache known, if given): no cache's misses begin
    there, so it is memory's latency wobbling (another tenant's burst during
    one pass, seen at 512 MiB on a busy guest whose largest cache is 300 MiB)."""
    sizes = np.asarray(sizes)
    rises = find_rises(cycles, sizes=sizes)
    if not rises or (cache_top is not None and sizes[rises[-1].start] > cache_top):
        return False
    if rises[-1].end >= sizes.size - 1:
        return True
    below = np.log2(sizes[-1]) - 1.0 / POINTS_PER_OCTAVE
    if np.log2(sizes[rises[-1].end]) <= below:
        return False
    fit = monotone_fit(cycles)
    back = float(np.interp(below, np.log2(sizes.astype(float)), fit))
    return bool(fit[-1] > back * (1.0 + DEFAULT_STEP_THRESHOLD))


def _next_octave(candidates: IntArray, top: int, spent: float, budget: float) -> IntArray:
    """The candidates in the octave above `top` that the budget still
    affords (each with the top again, see _extend), smallest first."""
    octave = candidates[candidates <= 2 * top]
    cost = top + np.cumsum(octave)
    return octave[spent + cost <= budget]


def _extend(samples: _Samples, sizes: IntArray, plan: PassPlan) -> IntArray:
    """While the pooled curve still rises at its largest size, `passes`
    passes over the next octave of sizes (up to `extend_to` bytes, within
    EXTENSION_BUDGET of the base sweep's bytes). The previous top is timed
    again with them, so that the step onto the new sizes compares samples
    taken under the same conditions. Returns the sizes added."""
    candidates = extension_sizes(int(sizes[-1]), plan.extend_to, plan.stride)
    budget = EXTENSION_BUDGET * float(np.sum(sizes))
    swept, spent, step = sizes, 0.0, 0
    while candidates.size and still_rising(swept, per_size(samples.pool(swept, plan.samples)[0]), plan.cache_top):
        octave = _next_octave(candidates, int(swept[-1]), spent, budget)
        if not octave.size:
            break
        todo = np.r_[swept[-1:], octave]
        step += 1
        samples.run(todo, plan.passes, plan.seed + 100 + step, f"extension to {int(octave[-1]) >> 20} MiB")
        spent += float(np.sum(todo))
        swept = np.r_[swept, octave]
        candidates = candidates[candidates > octave[-1]]
    return swept[sizes.size:]


def _refine(samples: _Samples, sizes: IntArray, plan: PassPlan) -> IntArray:
    """The sizes refinement_sizes adds inside the rises, timed with the base
    sizes around them again: CHEAP_PASS_FACTOR times as many passes for
    sizes up to CHEAP_SIZE. Returns the sizes added."""
    ticks, _ = samples.pool(sizes, plan.samples)
    extra = refinement_sizes(sizes, per_size(ticks), RefinementSettings(
        stride=plan.stride, budget=REFINEMENT_BUDGET * float(np.sum(sizes[sizes > CHEAP_SIZE])),
        budget_from=CHEAP_SIZE))
    if extra.size:
        todo = np.union1d(extra, _neighbours(sizes, extra))
        cheap, dear = todo[todo <= CHEAP_SIZE], todo[todo > CHEAP_SIZE]
        if cheap.size:
            samples.run(cheap, CHEAP_PASS_FACTOR * plan.passes, plan.seed + 1, "refinement")
        if dear.size:
            samples.run(dear, plan.passes, plan.seed + 2, "refinement (large)")
    return extra


def run_passes(run_pass: RunPass, sizes: npt.ArrayLike, plan: PassPlan, progress: Progress | None = None) -> Passes:
    """The base sweep over `sizes`; then, while its curve still rises at
    the largest size, the extension past it (up to `plan.extend_to` bytes;
    0: none; only for a rise that starts at or below `plan.cache_top`, the
    largest cache known, if given), whose sizes join the base grid; then
    (`plan.refine`) the refinement: the sizes refinement_sizes adds inside
    the rises, with the base sizes around them again, CHEAP_PASS_FACTOR
    times as many passes for sizes up to CHEAP_SIZE. Every pass's samples
    are pooled per size."""
    base = np.asarray(sizes, dtype=np.int64)
    samples = _Samples(run_pass, progress)
    samples.run(base, plan.passes, plan.seed, "cache sweep")
    added = _extend(samples, base, plan)
    base = np.r_[base, added]
    extra = _refine(samples, base, plan) if plan.refine else np.zeros(0, dtype=np.int64)
    every = np.union1d(base, extra)
    ticks, ns = samples.pool(every, plan.samples)
    return Passes(sizes=every, ticks=ticks, ns=ns, accesses=np.array([samples.accesses[int(s)] for s in every]),
                  refined=np.isin(every, extra), placements=samples.placements, extended=np.isin(every, added))
