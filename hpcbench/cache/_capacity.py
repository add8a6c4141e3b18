"""What a cache must hold, from the best placement a sweep saw (pure NumPy).

The page-set model (_probabilistic.py) predicts a rise from a replacement
policy and a placement it assumes. Two facts hold whatever the policy and
the placement, and bound the size from the measurements alone:

* Hits cannot exceed the capacity. In a cyclic chase a line hits only if it
  stayed in the cache for one whole traversal, so at any instant every line
  that will hit on its next visit is resident: the bytes that hit per
  traversal, S * (1 - m(S)) with m the share of accesses that miss, never
  exceed the cache's size. The largest of them over the sweep is a lower
  bound of the size ("capacity held").
* Where the pages fill the sets evenly nothing misses up to the size, under
  any policy; with pages at random the loads of the sets scatter about
  their mean and, at the size, about half the accesses miss under LRU and
  fewer under policies that keep part of an overflowing set. So the best
  placement of the sweep's passes misses on fewer than half of its accesses
  at the size: the size lies below the first size where it misses half
  ("half-miss size").

The best placement is the lowest sample of any pass at each size (the
envelope): each pass is a new buffer, so a new placement, and interference
only ever adds time. m(S) is the envelope's place between the level's hit
latency and the next level's.

A cache with K ways and a power-of-two number of sets of L-byte lines holds
K * L * 2^j bytes: where hwloc reports the ways and one such size lies
within the bounds, it is the size (see `choose` for the order of the rules).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Share by which a size may fall below the capacity held (the hit and miss
#: latencies that turn times into miss shares are medians of noisy plateaus).
BELOW_HELD = 0.05
#: Share by which a size may exceed the half-miss size (the crossing is
#: interpolated between measured sizes a few percent apart).
ABOVE_HALF = 0.05
#: Miss share that defines the half-miss size.
HALF = 0.5


@dataclass(frozen=True)
class CapacityBounds:
    """What the best placement says of one level's size (bytes)."""

    held: int                  #: the most bytes that hit per traversal at any size: size >= held
    held_at: int               #: the size (bytes) where that was measured
    half_miss: int | None      #: the first size where the best placement missed half its accesses (None: never)
    hit: float                 #: the level's hit latency (ticks), from the envelope of its plateau
    miss: float                #: the next level's latency (ticks), from the envelope of its plateau

    def admits(self, size: float) -> bool:
        """Whether `size` (bytes) is consistent with both bounds."""
        if size < self.held * (1.0 - BELOW_HELD):
            return False
        return self.half_miss is None or size <= self.half_miss * (1.0 + ABOVE_HALF)


def envelope(samples: np.ndarray) -> np.ndarray:
    """(sizes, passes, samples) -> per size the lowest sample of any pass
    (NaN where a size has none)."""
    flat = np.asarray(samples, dtype=float).reshape(samples.shape[0], -1)
    finite = np.isfinite(flat).any(axis=1)
    out = np.full(flat.shape[0], np.nan)
    out[finite] = np.nanmin(flat[finite], axis=1)
    return out


def capacity_bounds(sizes: np.ndarray, best: np.ndarray, plateau: tuple[int, int],
                    next_plateau: tuple[int, int]) -> CapacityBounds | None:
    """The bounds of the level whose plateau is `plateau` (first, last
    bytes), followed by the plateau `next_plateau` of the next level (or
    memory), from `best`, the envelope (ticks) at `sizes` (bytes). None
    where either plateau has no finite sample or the next is not slower."""
    s = np.asarray(sizes, dtype=float)
    best = np.asarray(best, dtype=float)
    on_next = np.isfinite(best) & (s >= next_plateau[0]) & (s <= next_plateau[1])
    if not on_next.any():
        return None
    return bounds_below(sizes, best, plateau, float(np.median(best[on_next])), next_plateau[0])


def bounds_below(sizes: np.ndarray, best: np.ndarray, plateau: tuple[int, int], miss: float,
                 region_end: float) -> CapacityBounds | None:
    """The bounds of the level whose plateau is `plateau` (first, last
    bytes), whose misses cost `miss` ticks, from the envelope `best` at
    the sizes up to `region_end` (bytes). capacity_bounds reads `miss` off
    the next plateau; a level split from the rise above it (_split.py) has
    none, and takes it from the joint model instead. Extra time from a
    deeper level's misses can only lower the capacity held, so that bound
    stays a lower bound. None where the plateau has no finite sample or
    `miss` is not slower than it."""
    s = np.asarray(sizes, dtype=float)
    best = np.asarray(best, dtype=float)
    ok = np.isfinite(best)
    on_level = ok & (s >= plateau[0]) & (s <= plateau[1])
    if not on_level.any():
        return None
    hit = float(np.median(best[on_level]))
    if not miss > hit:
        return None
    region = ok & (s >= plateau[0]) & (s <= region_end)
    rs, share = s[region], np.clip((best[region] - hit) / (miss - hit), 0.0, 1.0)
    held = rs * (1.0 - share)
    k = int(np.argmax(held))
    return CapacityBounds(held=int(held[k]), held_at=int(rs[k]), half_miss=_crossing(rs, share, HALF),
                          hit=hit, miss=float(miss))


def _crossing(sizes: np.ndarray, share: np.ndarray, level: float) -> int | None:
    """The first size where `share` reaches `level`, interpolated in log2
    of the size between the measured sizes around it."""
    above = np.flatnonzero(share >= level)
    if not above.size:
        return None
    i = int(above[0])
    if i == 0:
        return int(sizes[0])
    s0, s1, m0, m1 = np.log2(sizes[i - 1]), np.log2(sizes[i]), share[i - 1], share[i]
    return int(round(2.0 ** (s0 + (level - m0) / (m1 - m0) * (s1 - s0))))


def geometry_sizes(ways: tuple[int, ...], line: int, low: float, high: float) -> list[int]:
    """Sizes K * line * 2^j (K in `ways`) in [low, high], bytes."""
    out = set()
    for k in ways:
        unit = int(k) * int(line)
        j = 0
        while unit << j <= high:
            if unit << j >= low:
                out.add(unit << j)
            j += 1
    return sorted(out)


def choose(model_size: int, bounds: CapacityBounds, ways: tuple[int, ...] | None, line: int) -> tuple[int, str, str]:
    """(size, method, why) for a level whose page-set fit gave `model_size`.

    Where hwloc's associativities are known and exactly one size of their
    geometry lies within the bounds, that size: the bounds are facts of the
    measurement, the geometry a fact of how caches are built, and the
    page-set fit rests on a placement and a policy it can only assume.
    Otherwise the fit where the bounds admit it; otherwise the geometry
    size within the bounds nearest to the fit (in log); otherwise the
    capacity held itself: what this core could use of the cache, the only
    figure the measurements then support."""
    held, half = bounds.held, bounds.half_miss
    said = (f"the best placement of the passes held {held / 1024:.0f} KiB"
            + (f" and missed half its accesses from {half / 1024:.0f} KiB" if half else ""))
    high = half * (1.0 + ABOVE_HALF) if half else 2.0 * max(held, model_size)
    candidates = geometry_sizes(ways or (), line, held * (1.0 - BELOW_HELD), high)
    fit = f"the page-set fit gave {model_size / 1024:.0f} KiB"
    if len(candidates) == 1:
        size = candidates[0]
        return size, "capacity", (f"{said}; {size / 1024:.0f} KiB is the one size of {_ways_of(size, ways or (), line)}"
                                  f"-way geometry with a power-of-two number of sets between them ({fit})")
    if bounds.admits(model_size):
        return model_size, "probabilistic", f"{said}, which admits the page-set fit"
    if candidates:
        size = min(candidates, key=lambda c: abs(np.log2(c / model_size)))
        return size, "capacity", (f"{said}, which rules out the page-set fit ({model_size / 1024:.0f} KiB); "
                                  f"{size / 1024:.0f} KiB is the size of {_ways_of(size, ways or (), line)}-way "
                                  "geometry between them nearest to the fit")
    return held, "capacity", (f"{said}, which rules out the page-set fit ({model_size / 1024:.0f} KiB), and no "
                              "cache geometry lies between them: the capacity held is reported")


def _ways_of(size: int, ways: tuple[int, ...], line: int) -> int:
    """The associativity among `ways` whose geometry gives `size`."""
    for k in sorted(ways):
        unit = int(k) * int(line)
        if size % unit == 0 and (size // unit) & (size // unit - 1) == 0:
            return int(k)
    return 0
