"""Cost models fitted to measured times (pure Python, no MPI).

* Hockney: t(N) = t0 + N * tb, startup t0 (s) and bandwidth 1/tb (bytes/s).
* Regionalised least squares (Hammond et al. 2009, section 5.1): the sizes
  are split where the protocol changes (the 2048-byte split of their
  Table 3, CoMet's 100-byte jump of NX/2) and each region gets its own
  (latency, bandwidth). Breakpoints are found, not given: every way of
  cutting the sorted sizes into at most `max_regions` runs of at least
  `min_points` points is scored by dynamic programming, and the number of
  regions is chosen by the Bayesian information criterion, so a split is
  only made when it pays for its extra parameters. Choosing the best of
  many possible cuts flatters any split, so neighbouring regions are then
  merged unless an F-test (SciPy's F distribution) says their two lines
  differ clearly: p below MERGE_P = 1e-5.
* Hops (CoMet): t(N, n) = t0 + N * tb + (n - 1) * h.
* n_1/2 and n_90: the message sizes reaching 50% and 90% of the peak
  bandwidth, read off the measured curve.

Fits weight each point by 1/t (relative residuals): times span five orders
of magnitude between 0 bytes and 4 MiB, and an unweighted fit would ignore
every small message.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ._records import HopModelRecord, RegionRecord

DEFAULT_MAX_REGIONS = 4
DEFAULT_MIN_POINTS = 4
#: Neighbouring regions whose two lines improve on one common line with an
#: F-test p-value above this are merged.
MERGE_P = 1e-5
#: Relative residuals below this are measurement precision, not signal: a
#: floor for squared-residual sums (noise-free curves must not be split).
RESIDUAL_FLOOR = 1e-6


@dataclass(frozen=True)
class Linear:
    """t(N) = t0 + N * tb over [first, last] bytes."""
    t0: float              #: seconds
    tb: float              #: seconds per byte
    first: int             #: smallest size of the region (bytes)
    last: int              #: largest size of the region (bytes)
    residual: float        #: RMS relative residual of the fit

    @property
    def latency(self) -> float:
        return self.t0

    @property
    def bandwidth(self) -> float:
        """bytes/s (inf when the time does not grow with the size)."""
        return 1.0 / self.tb if self.tb > 0 else math.inf

    @property
    def n_half(self) -> float:
        """Hockney's n_1/2 = t0 / tb: the size at half the asymptotic bandwidth."""
        return self.t0 / self.tb if self.tb > 0 else math.inf

    def predict(self, sizes: npt.ArrayLike) -> np.ndarray:
        """Seconds for messages of `sizes` bytes."""
        return self.t0 + np.asarray(sizes, dtype=float) * self.tb

    def to_record(self) -> RegionRecord:
        bw = self.bandwidth
        return RegionRecord(first=self.first, last=self.last, latency=self.t0, seconds_per_byte=self.tb,
                            bandwidth=None if math.isinf(bw) else bw, rms_relative_residual=self.residual)


def _check(sizes, times):
    sizes = np.asarray(sizes, dtype=float)
    times = np.asarray(times, dtype=float)
    if sizes.ndim != 1 or sizes.shape != times.shape:
        raise ValueError(f"sizes and times must be 1-D and of equal length, got {sizes.shape} and {times.shape}")
    if sizes.size < 2:
        raise ValueError(f"a fit needs at least 2 points, got {sizes.size}")
    if np.any(sizes < 0) or not np.all(np.isfinite(times)) or np.any(times <= 0):
        raise ValueError("sizes must be >= 0 and times positive and finite")
    order = np.argsort(sizes, kind="stable")
    return sizes[order], times[order]


def _weighted_line(sizes, times):
    """(t0, tb, sum of squared relative residuals) by weighted least squares."""
    w = 1.0 / times
    a = np.column_stack([w, sizes * w])
    (t0, tb), *_ = np.linalg.lstsq(a, np.ones_like(times), rcond=None)
    rel = (t0 + tb * sizes - times) / times
    return float(t0), float(tb), float(np.sum(rel ** 2))


def hockney_fit(sizes: npt.ArrayLike, times: npt.ArrayLike) -> Linear:
    """One line through all points: t(N) = t0 + N * tb."""
    sizes, times = _check(sizes, times)
    t0, tb, sse = _weighted_line(sizes, times)
    return Linear(t0, tb, int(sizes[0]), int(sizes[-1]), math.sqrt(sse / sizes.size))


def _segment_costs(sizes, times, min_points):
    n = sizes.size
    cost = np.full((n, n), np.inf)
    for i in range(n):
        for j in range(i + min_points - 1, n):
            cost[i, j] = _weighted_line(sizes[i:j + 1], times[i:j + 1])[2]
    return cost


def _best_split(cost, n, k):
    """Minimum total cost of k segments covering 0..n-1, and the segment starts."""
    best = np.full((k + 1, n + 1), np.inf)
    back = np.zeros((k + 1, n + 1), dtype=int)
    best[0, 0] = 0.0
    for m in range(1, k + 1):
        for end in range(1, n + 1):
            for start in range(m - 1, end):
                c = best[m - 1, start] + cost[start, end - 1]
                if c < best[m, end]:
                    best[m, end], back[m, end] = c, start
    starts, end = [], n
    for m in range(k, 0, -1):
        start = back[m, end]
        starts.append(start)
        end = start
    return best[k, n], sorted(starts)


def regional_fit(sizes: npt.ArrayLike, times: npt.ArrayLike, max_regions: int = DEFAULT_MAX_REGIONS,
                 min_points: int = DEFAULT_MIN_POINTS) -> list:
    """Regions with one Linear each, in increasing size; one region if no
    split is justified. A breakpoint is the first size of the next region."""
    sizes, times = _check(sizes, times)
    if max_regions < 1 or min_points < 2:
        raise ValueError("max_regions must be >= 1 and min_points >= 2")
    n = sizes.size
    cost = _segment_costs(sizes, times, min_points)
    best = None
    for k in range(1, min(max_regions, n // min_points) + 1):
        sse, starts = _best_split(cost, n, k)
        if not math.isfinite(sse):
            continue
        params = 3 * k - 1                       # (t0, tb) per region + the breakpoints
        bic = n * math.log(max(sse / n, RESIDUAL_FLOOR ** 2)) + params * math.log(n)
        if best is None or bic < best[0]:
            best = (bic, starts)
    starts = _merge_similar(sizes, times, best[1] if best else [0])
    regions = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else n
        t0, tb, sse = _weighted_line(sizes[start:end], times[start:end])
        regions.append(Linear(t0, tb, int(sizes[start]), int(sizes[end - 1]), math.sqrt(sse / (end - start))))
    return regions


def split_p_value(sizes: np.ndarray, times: np.ndarray, a: int, m: int, b: int) -> float:
    """F-test of two lines over [a, m) and [m, b) against one line over
    [a, b): the p-value of the improvement (2 extra parameters)."""
    apart = _weighted_line(sizes[a:m], times[a:m])[2] + _weighted_line(sizes[m:b], times[m:b])[2]
    together = _weighted_line(sizes[a:b], times[a:b])[2]
    dof = (b - a) - 4
    if dof <= 0:
        return 0.0
    apart = max(apart, dof * RESIDUAL_FLOOR ** 2)
    from scipy.stats import f as f_distribution  # here, not at import: scipy.stats costs every command 0.6 s
    return float(f_distribution.sf(((together - apart) / 2) / (apart / dof), 2, dof))


def _merge_similar(sizes, times, starts) -> list:
    """Merge the neighbouring pair of regions that an F-test separates
    least, until every remaining split is clear."""
    starts = list(starts)
    while len(starts) > 1:
        bounds = starts + [sizes.size]
        p_values = [split_p_value(sizes, times, bounds[i], bounds[i + 1], bounds[i + 2])
                    for i in range(len(starts) - 1)]
        weakest = int(np.argmax(p_values))
        if p_values[weakest] <= MERGE_P:
            break
        del starts[weakest + 1]
    return starts


def breakpoints(regions: list[Linear]) -> list:
    """The first size (bytes) of every region after the first."""
    return [r.first for r in regions[1:]]


def refinement_sizes(sizes: npt.ArrayLike, regions: list[Linear], points: int = 3) -> np.ndarray:
    """Sizes to add around each breakpoint: `points` evenly spaced sizes in
    the grid step before the first size of a region and in the step after
    it, since noise can put a split one grid step early or late."""
    sizes = np.unique(np.asarray(sizes, dtype=np.int64))
    extra = set()
    for bp in breakpoints(regions):
        i = int(np.searchsorted(sizes, bp))
        for a, b in ((sizes[max(i - 1, 0)], sizes[i]), (sizes[i], sizes[min(i + 1, sizes.size - 1)])):
            for k in range(1, points + 1):
                s = int(round(a + (b - a) * k / (points + 1)))
                if a < s < b:
                    extra.add(s)
    return np.array(sorted(extra.difference(sizes.tolist())), dtype=np.int64)


def predict(regions: list[Linear], sizes: npt.ArrayLike) -> np.ndarray:
    """Model time for each size, using the region it falls in."""
    sizes = np.asarray(sizes, dtype=float)
    out = np.empty_like(sizes)
    bounds = breakpoints(regions)
    for i, s in enumerate(sizes):
        k = int(np.searchsorted(bounds, s, side="right"))
        out[i] = regions[k].predict([s])[0]
    return out


def bandwidth_thresholds(sizes: npt.ArrayLike, times: npt.ArrayLike, fractions: tuple = (0.5, 0.9)) -> dict:
    """{fraction: smallest message size (bytes) whose measured bandwidth
    reaches fraction x the peak}, interpolated on log scales between grid
    points; also 'peak' (bytes/s). Sizes of 0 bytes are ignored."""
    sizes, times = _check(sizes, times)
    keep = sizes > 0
    sizes, times = sizes[keep], times[keep]
    if sizes.size < 2:
        raise ValueError("bandwidth thresholds need at least 2 non-empty message sizes")
    bw = sizes / times
    peak = float(bw.max())
    out = {"peak": peak}
    for f in fractions:
        target = f * peak
        i = int(np.argmax(bw >= target))
        if i == 0:
            out[f] = float(sizes[0])
            continue
        # log-log interpolation between the last point below and the first at or above.
        x0, x1 = math.log(sizes[i - 1]), math.log(sizes[i])
        y0, y1 = math.log(bw[i - 1]), math.log(bw[i])
        x = x0 + (math.log(target) - y0) * (x1 - x0) / (y1 - y0) if y1 > y0 else x1
        out[f] = float(math.exp(x))
    return out


@dataclass(frozen=True)
class HopModel:
    t0: float
    tb: float
    h: float                 #: seconds per extra hop
    residual: float

    def to_record(self) -> HopModelRecord:
        return HopModelRecord(t0=self.t0, seconds_per_byte=self.tb, per_hop=self.h, rms_relative_residual=self.residual)


def hop_fit(sizes: npt.ArrayLike, hops: npt.ArrayLike, times: npt.ArrayLike) -> HopModel:
    """CoMet's t(N) = t0 + N * tb + (n - 1) * h over points measured at
    several sizes N and hop counts n (at least two distinct hop counts)."""
    sizes = np.asarray(sizes, dtype=float)
    hops = np.asarray(hops, dtype=float)
    times = np.asarray(times, dtype=float)
    if not (sizes.shape == hops.shape == times.shape) or sizes.ndim != 1 or sizes.size < 3:
        raise ValueError("sizes, hops and times must be 1-D, of equal length, with at least 3 points")
    if np.unique(hops).size < 2 or np.any(hops < 1) or np.any(times <= 0):
        raise ValueError("hop fits need at least two distinct hop counts (>= 1) and positive times")
    w = 1.0 / times
    a = np.column_stack([w, sizes * w, (hops - 1) * w])
    (t0, tb, h), *_ = np.linalg.lstsq(a, np.ones_like(times), rcond=None)
    rel = (t0 + tb * sizes + h * (hops - 1) - times) / times
    return HopModel(float(t0), float(tb), float(h), float(math.sqrt(np.mean(rel ** 2))))


@dataclass(frozen=True)
class VectorRate:
    """Hockney's r_inf and n_1/2 for a vector kernel of `flops_per_element`."""
    r_inf: float             #: flops/s as the length grows
    n_half: float            #: length reaching half of r_inf
    fit: Linear


def vector_rate(lengths: npt.ArrayLike, times: npt.ArrayLike, flops_per_element: float = 2.0) -> VectorRate:
    """r_inf and n_1/2 from t(n) = t0 + n * tb: r_inf = flops_per_element /
    tb, n_1/2 = t0 / tb (CoMet asks these of a node's DAXPY)."""
    fit = hockney_fit(lengths, times)
    if fit.tb <= 0:
        raise ValueError("the vector times do not grow with the length: no asymptotic rate")
    return VectorRate(flops_per_element / fit.tb, max(fit.t0, 0.0) / fit.tb, fit)
