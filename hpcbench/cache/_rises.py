"""The rises of a latency curve: where the time per access climbs from
one plateau to the next (pure functions of (sizes, cycles), no hardware).

The paper reads peaks of the gradient C[k+1]/C[k]. Real curves are noisy
(other tenants, frequency changes), so before looking for rises the curve is
fitted with the closest non-decreasing sequence (isotonic regression): time
per access cannot fall when the array grows, so dips are noise, and pooling
them removes spurious gradient peaks without shifting real ones. The
gradient of that fit is 1 on plateaus and above 1 where the array outgrows a
level. A rise is a run of rising steps; two caches whose rises touch are
split at the gradient's valley between them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: A step of the fitted curve counts as rising above this relative increase.
DEFAULT_STEP_THRESHOLD = 0.02
#: A gradient valley splits a rise in two when its excess over 1 is at most
#: this fraction of the smaller of the peaks on either side.
VALLEY_DEPTH = 0.5
#: Each piece of a rise split at a valley must climb by this factor.
MIN_SPLIT_RISE = 2.0
#: A step this many times steeper (in excess over 1) than every earlier step
#: of its piece starts a new piece (see _split_at_knees).
KNEE = 4.0
#: Flat stretches shorter than this size ratio do not end a rise.
MAX_GAP_RATIO = 1.25
#: A run of rising steps is a cache level only if the time per access grows
#: by at least this factor across it.
DEFAULT_MIN_RISE = 1.25


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
    out: np.ndarray = c[1:] / c[:-1]
    return out


def monotone_fit(values: npt.ArrayLike) -> np.ndarray:
    """Least-squares non-decreasing fit (SciPy's isotonic regression)."""
    from scipy.optimize import isotonic_regression  # here, not at import: it costs every command 0.3 s
    return np.asarray(isotonic_regression(np.asarray(values, dtype=float), increasing=True).x, dtype=float)


def _split_at_valleys(grad: np.ndarray, start: int, end: int) -> list[tuple[int, int]]:
    """Split the rise [start, end) of step indexes where the gradient has a
    valley between two peaks: two caches whose rises touch (Dunnington's L2
    and L3). A valley counts when its excess over 1 is at most VALLEY_DEPTH
    times the excess of the smaller neighbouring peak."""
    excess = grad[start:end] - 1.0
    cuts: list[int] = []
    for v in range(1, excess.size - 1):
        if not (excess[v] <= excess[v - 1] and excess[v] <= excess[v + 1]):
            continue
        last_cut = cuts[-1] if cuts else 0
        left, right = excess[last_cut:v].max(), excess[v + 1:].max()
        if excess[v] <= VALLEY_DEPTH * min(left, right):
            cuts.append(v)
    bounds = [start] + [start + c for c in cuts] + [end]
    return list(zip(bounds[:-1], bounds[1:]))


def _split_at_knees(pieces: list[tuple[int, int]], grad: np.ndarray, fit: np.ndarray) -> list[tuple[int, int]]:
    """Split a piece where one step climbs KNEE times as steeply as every
    step before it in the piece, after those had already climbed
    MIN_SPLIT_RISE: a level's misses set in on top of the previous level's
    gradual rise, with no plateau between (a shared cache that other
    tenants leave almost no room in)."""
    out = []
    for start, end in pieces:
        cut_from = start
        for k in range(start + 1, end):
            before = grad[cut_from:k] - 1.0
            if fit[k] / fit[cut_from] >= MIN_SPLIT_RISE and grad[k] - 1.0 >= KNEE * max(before.max(), 1e-12):
                out.append((cut_from, k))
                cut_from = k
        out.append((cut_from, end))
    return out


def _merge_weak_pieces(pieces: list[tuple[int, int]], fit: np.ndarray,
                       grad: np.ndarray) -> list[tuple[int, int]]:
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
        pieces = _merge_weak_pieces(_split_at_knees(_split_at_valleys(grad, start, k), grad, fit), fit, grad)
        for a, b in pieces:
            factor = fit[b] / fit[a]
            if factor >= min_rise:
                rises.append(Rise(start=a, end=b, factor=float(factor),
                                  cut_before=a != start, cut_after=b != k))
    return rises
