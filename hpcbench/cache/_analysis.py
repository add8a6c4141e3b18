"""Cache levels and sizes from an mcalibrator sweep (Servet 2010, Fig. 4).

Pure functions of (sizes, cycles per access): no hardware, no MPI.

The paper reads peaks of the gradient C[k+1]/C[k]. Real curves are noisy
(other tenants, frequency changes), so before looking for rises we fit the
curve with the closest non-decreasing sequence (isotonic regression): time per
access cannot fall when the array grows, so dips are noise and pooling them
removes spurious gradient peaks without shifting real ones. The gradient of
that fit is 1 on plateaus and above 1 where the array stops fitting a level.

* The first rise is L1: its size is the last size before the rise.
* A later rise confined to a single step is a cache whose misses start at one
  size (virtually indexed or page-coloured): that size, method "peak".
* A rise spread over several steps, or one still going at the largest sizes,
  is a physically indexed cache: the probabilistic algorithm (Fig. 3) on that
  range of the sweep, method "probabilistic".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import isotonic_regression

from .. import _validate
from ._probabilistic import estimate_size, significant_bits

#: A step of the fitted curve counts as rising above this relative increase.
DEFAULT_STEP_THRESHOLD = 0.02
#: A gradient valley splits a rise in two when its excess over 1 is at most
#: this fraction of the smaller of the peaks on either side.
VALLEY_DEPTH = 0.35
#: Each piece of a rise split at a valley must climb by this factor.
MIN_SPLIT_RISE = 2.0
#: A size is still on the plateau before a sharp rise while its time is
#: within this fraction of the rise above the plateau.
PLATEAU_BAND = 0.1
#: The first step of a rise that counts for its onset rises by at least this
#: share of the rise's steepest step (gentler early steps: TLB reach, noise).
ONSET_FRACTION = 0.2
#: A peak size may be snapped down by at most this share to a simpler size.
PEAK_SNAP = 0.1
#: Flat stretches shorter than this size ratio do not end a rise.
MAX_GAP_RATIO = 1.25
#: A run of rising steps is a cache level only if the time per access grows
#: by at least this factor across it.
DEFAULT_MIN_RISE = 1.25


@dataclass(frozen=True)
class CacheLevel:
    """One cache level found in the sweep."""

    level: int                    #: 1, 2, ...
    size: int                     #: bytes
    method: str                   #: "peak" or "probabilistic"
    range: tuple                  #: (first, last) sweep size analysed, bytes
    ways: int | None = None    #: associativity of the best probabilistic fit
    divergence: float | None = None  #: its divergence (sum of |MR - P|)
    onset: int | None = None   #: largest size (bytes) still on the plateau before the rise


@dataclass(frozen=True)
class Rise:
    """Indexes into the sweep: the curve climbs from sizes[start] to sizes[end]."""

    start: int
    end: int
    factor: float
    cut_before: bool = False  #: start is a valley cut, not a plateau
    cut_after: bool = False   #: end is a valley cut, not a plateau


def gradient(cycles: npt.ArrayLike) -> np.ndarray:
    """C[k+1] / C[k] for k = 0 .. n-2, as in the paper's Fig. 2(b)."""
    c = np.asarray(cycles, dtype=float)
    return c[1:] / c[:-1]


def monotone_fit(values: npt.ArrayLike) -> np.ndarray:
    """Least-squares non-decreasing fit (SciPy's isotonic regression)."""
    return isotonic_regression(np.asarray(values, dtype=float), increasing=True).x


def _split_at_valleys(grad, start, end):
    """Split the rise [start, end) of step indexes where the gradient has a
    valley between two peaks: two caches whose rises touch (Dunnington's L2
    and L3). A valley counts when its excess over 1 is at most VALLEY_DEPTH
    times the excess of the smaller neighbouring peak."""
    excess = grad[start:end] - 1.0
    cuts: list = []
    for v in range(1, excess.size - 1):
        if not (excess[v] <= excess[v - 1] and excess[v] <= excess[v + 1]):
            continue
        last_cut = cuts[-1] if cuts else 0
        left, right = excess[last_cut:v].max(), excess[v + 1:].max()
        if excess[v] <= VALLEY_DEPTH * min(left, right):
            cuts.append(v)
    bounds = [start] + [start + c for c in cuts] + [end]
    return list(zip(bounds[:-1], bounds[1:]))


def _merge_weak_pieces(pieces, fit, grad):
    """Two caches whose rises touch each multiply the access time several
    fold; a piece that climbs less than MIN_SPLIT_RISE is noise in a broad
    rise, so it joins the neighbour across the shallower valley."""
    pieces = list(pieces)
    while len(pieces) > 1:
        factors = [fit[b] / fit[a] for a, b in pieces]
        weakest = int(np.argmin(factors))
        if factors[weakest] >= MIN_SPLIT_RISE:
            break
        if weakest == 0:
            other = 1
        elif weakest == len(pieces) - 1:
            other = weakest - 1
        else:  # the boundary step with the larger gradient is the shallower valley
            left_cut, right_cut = pieces[weakest][0], pieces[weakest][1]
            other = weakest - 1 if grad[left_cut] >= grad[right_cut] else weakest + 1
        i, j = sorted((weakest, other))
        pieces[i:j + 1] = [(pieces[i][0], pieces[j][1])]
    return pieces


def find_rises(cycles: npt.ArrayLike, step_threshold: float = DEFAULT_STEP_THRESHOLD,
               min_rise: float = DEFAULT_MIN_RISE, sizes: npt.ArrayLike | None = None) -> list[Rise]:
    """Rises of the monotone fit, as Rise(start, end, factor) in sweep order:
    runs of consecutive steps rising by more than `step_threshold`, split at
    gradient valleys, that climb by at least `min_rise` overall."""
    fit = monotone_fit(cycles)
    grad = gradient(fit)
    rising = grad > 1.0 + step_threshold
    # Without sizes, gaps are judged as on the paper's doubling grid.
    sizes = 2.0 ** np.arange(fit.size) if sizes is None else np.asarray(sizes, dtype=float)
    rises, k, n = [], 0, rising.size
    while k < n:
        if not rising[k]:
            k += 1
            continue
        start = k
        while k < n and rising[k]:
            k += 1
            # Flat steps inside a broad rise are noise (1 MiB steps at tens
            # of MiB rise ~1% each, and noise pools flat stretches into the
            # monotone fit): a real plateau between two levels spans a large
            # size ratio, so rising again within MAX_GAP_RATIO continues it.
            nxt = k
            while nxt < n and not rising[nxt]:
                nxt += 1
            if k < n and nxt < n and sizes[nxt] < sizes[k] * MAX_GAP_RATIO:
                k = nxt
        pieces = _merge_weak_pieces(_split_at_valleys(grad, start, k), fit, grad)
        for a, b in pieces:
            factor = fit[b] / fit[a]
            if factor >= min_rise:
                rises.append(Rise(start=a, end=b, factor=float(factor),
                                  cut_before=a != start, cut_after=b != k))
    return rises


def refinement_sizes(sizes: npt.ArrayLike, cycles: npt.ArrayLike, stride: int = 1024, linear_from: int = 2 << 20,
                     linear_step: int = 256 << 10, per_octave: int = 8, fine_steps: int = 64,
                     max_per_rise: int = 24,
                     step_threshold: float = DEFAULT_STEP_THRESHOLD,
                     min_rise: float = DEFAULT_MIN_RISE) -> np.ndarray:
    """Extra sizes (bytes) to measure inside each rise of a first sweep.

    The paper's grid doubles up to 2 MiB, so a rise there is seen at a
    handful of points: too few to tell a 48 KiB L1 from a 32 KiB one, or to
    pin a physically indexed L2. Between consecutive sizes of every rise this
    adds `per_octave` geometric steps below `linear_from` and `linear_step`
    steps above it, all multiples of `stride`, never already in `sizes`, at
    most `max_per_rise` above `linear_from` per rise. An
    interval of at most `fine_steps` strides is filled at every stride, so a
    sharp (virtually indexed) edge is found to the stride.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    extra = set()
    for rise in find_rises(cycles, step_threshold, min_rise, sizes=sizes):
        lo = max(rise.start - 1, 0)
        mine = set()
        for a, b in zip(sizes[lo:rise.end], sizes[lo + 1:rise.end + 1]):
            if (b - a) // stride <= fine_steps:
                points = np.arange(a + stride, b, stride, dtype=float)
            elif b <= linear_from:
                points = a * 2.0 ** (np.arange(1, per_octave * np.log2(b / a)) / per_octave)
            else:
                points = np.arange(a + linear_step, b, linear_step, dtype=float)
            for x in points:
                snapped = int(round(x / stride)) * stride
                if a < snapped < b:
                    mine.add(snapped)
        # A long rise of large arrays (the last one runs to the largest size)
        # would cost more than it tells: above linear_from keep an even
        # spread of at most max_per_rise sizes.
        large = sorted(x for x in mine if x > linear_from)
        if len(large) > max_per_rise:
            keep = {large[int(i)] for i in np.linspace(0, len(large) - 1, max_per_rise)}
            mine = {x for x in mine if x <= linear_from} | keep
        extra.update(mine)
    extra -= {int(s) for s in sizes}
    return np.array(sorted(extra), dtype=np.int64)


def _onset(sizes, fit, base_sizes, base_fit, rise, step_threshold):
    """Where misses begin: the largest size still within step_threshold of
    the plateau before the first significant step of the rise (one rising by
    at least ONSET_FRACTION of the steepest; gentler steps before it, such as
    a TLB running out of reach, do not count)."""
    excess = gradient(base_fit)[rise.start:rise.end] - 1.0
    first = rise.start + int(np.flatnonzero(excess >= ONSET_FRACTION * excess.max())[0])
    inside = np.flatnonzero((sizes >= base_sizes[first]) & (sizes <= base_sizes[first + 1]))
    ref = fit[inside[0]]
    on_plateau = inside[fit[inside] <= ref * (1.0 + step_threshold)]
    return int(sizes[on_plateau[-1]])


def _simplest_below(sizes, limit):
    """Among measured sizes in [limit * (1 - PEAK_SNAP), limit], the one with
    the fewest significant bits (ties: the largest). Replacement policies
    that are not LRU barely miss one stride past a cache's size, so the last
    size on the plateau can overshoot it a little."""
    near = [int(x) for x in sizes if limit * (1 - PEAK_SNAP) <= x <= limit]
    return min(near, key=lambda x: (significant_bits(x), -x))


def estimate_levels(sizes: npt.ArrayLike, cycles: npt.ArrayLike, page_size: int = 4096,
                    refined: npt.ArrayLike | None = None,
                    step_threshold: float = DEFAULT_STEP_THRESHOLD,
                    min_rise: float = DEFAULT_MIN_RISE, model: str = "lines",
                    selection: str = "simplest") -> list[CacheLevel]:
    """Cache levels, smallest first, from sizes (bytes) and cycles per access.

    Returns a list of CacheLevel with .level, .size (bytes) and .method
    ("peak" or "probabilistic"). page_size (bytes) is the page size the sweep
    ran on; it sets the probabilistic model's page sets. refined, if given, is
    a boolean mask of sizes added by refinement_sizes(): rises are detected on
    the other sizes (the paper's grid, whose steps the thresholds assume) and
    every size inside a rise's range feeds its estimate.
    """
    sizes = _validate.sweep_array("sizes", sizes)
    cycles = _validate.sweep_array("cycles", cycles)
    if sizes.shape != cycles.shape:
        raise ValueError(f"sizes and cycles must have the same length, got {sizes.size} and {cycles.size}")
    if sizes.size < 3:
        raise ValueError(f"a sweep needs at least 3 sizes, got {sizes.size}")
    if np.any(np.diff(sizes) <= 0):
        raise ValueError("sizes must be strictly increasing")
    _validate.positive_int("page_size", page_size)
    if not step_threshold > 0:
        raise ValueError(f"step_threshold must be positive, got {step_threshold}")
    if not min_rise > 1:
        raise ValueError(f"min_rise must be above 1, got {min_rise}")
    base = np.ones(sizes.size, dtype=bool) if refined is None else ~np.asarray(refined, dtype=bool)
    if base.shape != sizes.shape or base.sum() < 3:
        raise ValueError("refined must be a boolean mask like sizes, leaving at least 3 base sizes")

    base_sizes, base_cycles = sizes[base], cycles[base]
    base_cycles_fit = monotone_fit(base_cycles)
    fit = monotone_fit(cycles)
    levels = []
    for i, rise in enumerate(find_rises(base_cycles, step_threshold, min_rise, sizes=base_sizes)):
        number = i + 1
        single_step = rise.end - rise.start == 1
        unfinished = rise.end == base_sizes.size - 1
        if number == 1 or (single_step and not unfinished):
            # The peak position: the largest size still on the plateau before
            # the rise (refined sizes make this finer than the paper's grid).
            # Search from the base size before the steepest base step.
            steep = rise.start + int(np.argmax(gradient(base_cycles_fit)[rise.start:rise.end]))
            inside = np.flatnonzero((sizes >= base_sizes[steep]) & (sizes <= base_sizes[rise.end]))
            ref, top = fit[inside[0]], fit[inside[-1]]
            plateau = ref + min(step_threshold * ref, PLATEAU_BAND * (top - ref))
            peak = inside[np.flatnonzero(fit[inside] <= plateau)[-1]]
            size = _simplest_below(sizes[inside], sizes[peak])
            levels.append(CacheLevel(level=number, size=size, method="peak", onset=int(sizes[peak]),
                                     range=(int(base_sizes[rise.start]), int(base_sizes[rise.end]))))
            continue
        # The rise plus one plateau point on each side anchors the hit time
        # and the miss overhead of the miss-rate normalisation.
        onset = _onset(sizes, fit, base_sizes, base_cycles_fit, rise, step_threshold)
        # A valley cut is already the boundary with the neighbouring cache.
        lo = base_sizes[rise.start if rise.cut_before else max(rise.start - 1, 0)]
        hi = base_sizes[rise.end if rise.cut_after else min(rise.end + 1, base_sizes.size - 1)]
        inside = (sizes >= lo) & (sizes <= hi)
        fitted = estimate_size(sizes[inside], fit[inside], page_size=page_size, model=model,
                               selection=selection)
        levels.append(CacheLevel(level=number, size=fitted.size, method="probabilistic",
                                 range=(int(lo), int(hi)), ways=fitted.ways, divergence=fitted.divergence,
                                 onset=onset))
    return levels
