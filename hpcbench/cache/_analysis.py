"""Cache levels, their sizes and latencies, from a latency sweep
(pure functions of sizes, cycles and what is known of the placement; no
hardware, no MPI).

Each rise of the curve (_rises.py) ends a level: the plateau before it is
the level's latency, and the rise says its size, by one of two methods:

* "edge": where the buffer's pages are evenly coloured, no set of a cache
  can overflow before the whole cache is full, so misses begin at its size
  whatever the replacement policy: the size is where the plateau ends,
  bracketed by the last size on the plateau and the first above it (the
  refinement of the sweep makes that bracket a few percent wide). The
  first level always qualifies: it is indexed within a page (virtually
  indexed, physically tagged), so any placement colours it evenly.
* "probabilistic": where the placement is random, or cannot be known (a
  virtual machine), some page sets overflow well before the cache is full
  and the rise is spread out; Servet's page-set model (Fig. 3) fitted to the
  whole rise, with the replacement policy (LRU-like or random) as one more
  unknown, gives the size (_probabilistic.py).
* "capacity": where the sweep's best placement (the lowest sample of any
  pass at each size) bounds the size from both sides (_capacity.py: the
  bytes that hit per traversal never exceed the size; the best placement
  misses fewer than half its accesses at the size) and the page-set fit
  falls outside those bounds, the size comes from the bounds: the cache
  geometry between them, or the capacity held.

After the last rise comes memory: its plateau is memory's latency. A rise
still climbing at the largest size leaves memory unreached.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ._capacity import choose
from ._curve import PLACEMENTS, AnalysisSettings, Curve, checked_curve
from ._page_sets import PageSetEntry, fit_together, page_set_entry
from ._probabilistic import significant_bits
from ._rises import DEFAULT_MIN_RISE, DEFAULT_STEP_THRESHOLD, Rise, find_rises, gradient, monotone_fit

__all__ = ["PLACEMENTS", "AnalysisSettings", "CacheLevel", "MemoryPlateau", "estimate_levels", "find_rises",
           "gradient", "memory_plateau", "monotone_fit", "plateau_value"]


@dataclass(frozen=True)
class CacheLevel:
    """One cache level found in the sweep."""

    level: int                    #: 1, 2, ...
    size: int                     #: bytes
    method: str                   #: "edge", "probabilistic" or "capacity"
    range: tuple[int, int]        #: (first, last) sweep size analysed, bytes
    ways: int | None = None       #: associativity of the best probabilistic fit
    divergence: float | None = None  #: its divergence (sum of |MR - P|)
    onset: int | None = None      #: largest size (bytes) still on the plateau before the rise
    why: str = ""                 #: why this method
    policy: str | None = None     #: replacement policy of the best probabilistic fit
    plateau: tuple[int, ...] = ()  #: (first, last) size (bytes) of the level's plateau: its latency's sizes
    bracket: tuple[int, ...] = ()  #: edge: (last size on the plateau, first size above), bytes
    held: int | None = None       #: bytes the best placement held (a lower bound of the size), if known
    half_miss: int | None = None  #: first size (bytes) where the best placement missed half its accesses
    model_size: int | None = None  #: the page-set fit's size (bytes), where it was fitted


@dataclass(frozen=True)
class MemoryPlateau:
    """The plateau after the last rise: memory."""

    first: int                    #: smallest size (bytes) on it
    last: int                     #: largest size measured


def _edge(sizes: np.ndarray, fit: np.ndarray, base_sizes: np.ndarray, rise: Rise,
          step_threshold: float, steep: bool = False) -> tuple[int, int, int]:
    """(size, a, b): the plateau ends between a and b, consecutive measured
    sizes; the size is the one with the fewest significant bits in [a, b)
    among multiples of a's lowest set bit (cache sizes are round numbers;
    the bracket bounds the choice).

    Without `steep`, a is the last size of the rise's first base step
    still within step_threshold of the plateau: where a gradual rise begins
    (a page-set level's onset). With `steep`, a is where the steep part of
    the rise starts (_steep_start): where a level whose misses come all at
    once (LRU on evenly filled sets) has its edge. Why not the first step
    past 2 %: on a KVM guest of an Intel Xeon (48 KiB L1d) the pooled curve
    drifted from 3.76 to 4.11 ticks between 32 and 43 KiB (another tenant
    on the core's other hardware thread, or frequency), then jumped to 5.1,
    6.9 and 10.8 ticks by 51 KiB: the edge came out at 33 KiB, where the
    steep part gives 44 KiB. The drift's base steps climb a fifth as
    steeply as the rise on average.
    """
    if steep:
        a_index = _steep_start(sizes, fit, base_sizes, rise, step_threshold)
    else:
        lo, hi = base_sizes[rise.start], base_sizes[rise.start + 1]
        inside = np.flatnonzero((sizes >= lo) & (sizes <= hi))
        on = inside[fit[inside] <= fit[inside[0]] * (1.0 + step_threshold)]
        a_index = int(on[-1])
    a = int(sizes[a_index])
    b = int(sizes[a_index + 1]) if a_index + 1 < sizes.size else a + 1
    return _simplest_in(a, b), a, b


def _steep_start(sizes: np.ndarray, fit: np.ndarray, base_sizes: np.ndarray, rise: Rise,
                 step_threshold: float) -> int:
    """The index (into sizes) where the steep part of a rise starts (see
    _edge): the first base step climbing at least the rise's average slope;
    then, over every measured size, forward past the steps at its start
    that are not steep, and back over every step before it that still rises
    by more than step_threshold (the first few sets to overflow climb a
    little, right at the size). Slopes are per log size, judged on base
    steps first because a refined step of a few lines turns noise into any
    slope."""
    logs = np.log(sizes.astype(float))
    at = np.searchsorted(sizes, base_sizes[rise.start:rise.end + 1])       # base sizes of the rise, in sizes
    average = (fit[at[-1]] - fit[at[0]]) / (logs[at[-1]] - logs[at[0]])

    def steep(i: int) -> bool:                                            # the step from sizes[i] to sizes[i + 1]
        return bool(fit[i + 1] > fit[i] * (1.0 + step_threshold)
                    and (fit[i + 1] - fit[i]) / (logs[i + 1] - logs[i]) >= average)

    base_slopes = np.diff(fit[at]) / np.diff(logs[at])
    j = int(np.flatnonzero(base_slopes >= average)[0])    # one exists: the average is their weighted mean
    i = int(at[j])
    while i + 1 < at[j + 1] and not steep(i):
        i += 1
    while i > at[0] and fit[i] > fit[i - 1] * (1.0 + step_threshold):
        i -= 1
    return i


def _simplest_in(a: int, b: int) -> int:
    """The number in [a, b) with the fewest significant bits (ties: the
    smallest); a itself if the bracket holds nothing simpler."""
    best = a
    for shift in range(int(b).bit_length(), -1, -1):
        unit = 1 << shift
        first = -(-a // unit) * unit          # the smallest multiple of 2^shift at or above a
        if first < b and significant_bits(first) < significant_bits(best):
            best = first
    return best


def estimate_levels(sizes: npt.ArrayLike, cycles: npt.ArrayLike, settings: AnalysisSettings | None = None, *,
                    refined: npt.ArrayLike | None = None, best: npt.ArrayLike | None = None,
                    **keywords: Any) -> list[CacheLevel]:
    """Cache levels, smallest first, from sizes (bytes) and cycles per access.

    settings (AnalysisSettings), each field of which may also be given as a
    keyword (page_size=, placement=, step_threshold=, min_rise=, model=,
    selection=, policies=, ways=, line=, expected=), overriding `settings`.
    placement: "contiguous" (huge pages or consecutive frames: every level by
    its edge), "random" or "unknown" (levels after the first by the page-set
    model). page_size (bytes) is the base page the page-set model assumes.
    refined, if given, is a boolean mask of sizes added by refinement: rises
    are detected on the other sizes (the base grid, whose steps the
    thresholds assume), and every size feeds the estimates. ways: the
    associativities the page-set model may assume (default: 1 to 64); the
    cache benchmark passes hwloc's, which CPUID reports reliably where the
    sizes are in question, so that the fit cannot trade a wrong
    associativity for a wrong size. best, if given, is the lowest sample of
    any pass at each size (ticks; NaN where none): it bounds the sizes the
    page-set model gives (_capacity.py), and a fit outside the bounds gives
    way to the geometry of `ways` ways and `line`-byte lines between them.
    It also gives the levels found by their edge their edge: those are the
    levels whose curve is the same in every pass (the first, indexed within
    a page; any, under contiguous placement), so the passes differ only by
    interference, which only adds time. Another tenant on the core's
    sibling hardware thread shrinks the L1 a chase can use while it runs:
    on a KVM guest of an Intel Xeon (48 KiB L1d) 12 of 20 passes rose
    from 38 KiB, the other 8 stayed flat to 47 KiB; the pooled curve put
    the edge at 39 KiB, the envelope at 46 KiB. Rises are still found on
    the pooled curve, which a single lucky sample cannot move.
    expected, if given, is the number of cache levels hwloc reports: where
    the curve has fewer rises, the widest page-set rise is tried as two
    levels (_split.py), with hwloc's associativities (`ways`; without them
    the fits of every associativity would take minutes, and the split is
    not tried).

    The steps: the inputs checked and the rises found (_curve.py); each
    rise's level by its edge or by the page-set model alone; the page-set
    levels fitted together, and split (_page_sets.py); their sizes weighed
    against the capacity bounds (_capacity.py).
    """
    s = replace(settings or AnalysisSettings(), **keywords)
    curve = checked_curve(sizes, cycles, refined, best, s)
    found: list[CacheLevel | PageSetEntry] = []
    for i, rise in enumerate(curve.rises):
        if i == 0 or s.placement == "contiguous":
            found.append(_edge_level(curve, i, s.step_threshold))
        else:
            _, onset, _ = _edge(curve.sizes, curve.fit, curve.base_sizes, rise, s.step_threshold)
            found.append(page_set_entry(curve, i, onset, s))
    entries = fit_together(curve, [f for f in found if isinstance(f, PageSetEntry)], s, len(found))
    levels = [f if isinstance(f, CacheLevel) else _page_set_level(f, s) for f in _in_order(found, entries)]
    return [replace(lv, level=i + 1) for i, lv in enumerate(levels)]


def _in_order(found: list[CacheLevel | PageSetEntry], entries: list[PageSetEntry]) -> list[CacheLevel | PageSetEntry]:
    """`found` with its page-set entries replaced by `entries` (fit_together's,
    in the same order), the upper level of a split (number None) right
    after the lower."""
    pending = list(entries)
    out: list[CacheLevel | PageSetEntry] = []
    for f in found:
        if isinstance(f, CacheLevel):
            out.append(f)
            continue
        out.append(pending.pop(0))
        while pending and pending[0].number is None:
            out.append(pending.pop(0))
    return out


def _edge_level(curve: Curve, i: int, step_threshold: float) -> CacheLevel:
    """Rise i's level by its edge: the first level (indexed within a page),
    or any under contiguous placement."""
    why = ("first level: indexed within a page, so every placement fills its sets evenly" if i == 0
           else "contiguous placement: the sets fill evenly, so misses begin at the size")
    base_sizes = curve.base_sizes
    size, a, b = _edge(curve.sizes, curve.edge_fit, base_sizes, curve.rises[i], step_threshold, steep=True)
    k = int(np.searchsorted(base_sizes, a, side="right")) - 1     # the base step that holds the edge
    return CacheLevel(level=i + 1, size=size, method="edge", why=why, bracket=(a, b), onset=a, plateau=curve.plateau(i),
                      range=(int(base_sizes[k]), int(base_sizes[min(k + 1, base_sizes.size - 1)])))


def _page_set_level(entry: PageSetEntry, settings: AnalysisSettings) -> CacheLevel:
    """A page-set entry as a CacheLevel: the fit's size, or the size the
    capacity bounds admit (_capacity.choose: the geometry between them, or
    the capacity held), and why."""
    fit = entry.fitted.fit
    if fit.placement == "even":
        why = (f"{settings.placement} placement: the page-set model fitted to the whole rise (together with "
               "overlapping levels) under scattered and under evenly coloured pages; the curve fits evenly "
               "coloured pages better")
    else:
        why = (f"{settings.placement} placement: page sets overflow at random before the cache is full, so the "
               "page-set model is fitted to the whole rise (together with overlapping levels)")
    size, method = fit.size, "probabilistic"
    if entry.bounds is not None:
        size, method, said = choose(fit.size, entry.bounds, settings.geometry, settings.line)
        why = f"{why}; {said}"
    if entry.number is None:
        why = (f"{why}; hwloc reports one cache more than the curve has rises, and the widest rise fits two "
               "page-set levels far better than one: this is the upper one, whose rise overlaps the level "
               "below it (no plateau between them, so no latency of its own)")
    bounds = entry.bounds
    return CacheLevel(level=entry.number or 0, size=size, method=method,
                      range=(int(entry.fitted.lo), int(entry.fitted.hi)), ways=fit.ways, divergence=fit.divergence,
                      policy=fit.policy, why=why, onset=entry.onset, plateau=entry.plateau, model_size=fit.size,
                      held=None if bounds is None else bounds.held,
                      half_miss=None if bounds is None else bounds.half_miss)


def memory_plateau(sizes: npt.ArrayLike, cycles: npt.ArrayLike, refined: npt.ArrayLike | None = None,
                   step_threshold: float = DEFAULT_STEP_THRESHOLD,
                   min_rise: float = DEFAULT_MIN_RISE) -> MemoryPlateau | None:
    """The plateau after the last rise, or None when the curve is still
    rising at the largest size (memory not reached) or never rises."""
    sizes = np.asarray(sizes, dtype=float)
    base = np.ones(sizes.size, dtype=bool) if refined is None else ~np.asarray(refined, dtype=bool)
    base_sizes = sizes[base]
    rises = find_rises(np.asarray(cycles, dtype=float)[base], step_threshold, min_rise, sizes=base_sizes)
    if not rises or rises[-1].end >= base_sizes.size - 1:
        return None
    return MemoryPlateau(first=int(base_sizes[rises[-1].end]), last=int(base_sizes[-1]))


def plateau_value(sizes: npt.ArrayLike, values: npt.ArrayLike, first: float, last: float) -> float | None:
    """Median of the values whose sizes lie in [first, last] (a plateau's
    latency or bandwidth), or None if none do or none is finite."""
    s, v = np.asarray(sizes, dtype=float), np.asarray(values, dtype=float)
    inside = v[(s >= first) & (s <= last) & np.isfinite(v)]
    return float(np.median(inside)) if inside.size else None
