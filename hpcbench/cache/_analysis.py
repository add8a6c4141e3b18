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

import numpy as np
import numpy.typing as npt

from .. import _validate
from ._capacity import capacity_bounds, choose
from ._joint import PageSetLevel, joint_fit
from ._probabilistic import DEFAULT_WAYS, POLICIES, estimate_size, significant_bits
from ._rises import DEFAULT_MIN_RISE, DEFAULT_STEP_THRESHOLD, Rise, find_rises, gradient, monotone_fit
from ._split import lower_bounds, split_widest

PLACEMENTS = ("contiguous", "random", "unknown")
__all__ = ["CacheLevel", "MemoryPlateau", "estimate_levels", "find_rises", "gradient", "memory_plateau",
           "monotone_fit", "plateau_value"]


@dataclass(frozen=True)
class CacheLevel:
    """One cache level found in the sweep."""

    level: int                    #: 1, 2, ...
    size: int                     #: bytes
    method: str                   #: "edge", "probabilistic" or "capacity"
    range: tuple                  #: (first, last) sweep size analysed, bytes
    ways: int | None = None       #: associativity of the best probabilistic fit
    divergence: float | None = None  #: its divergence (sum of |MR - P|)
    onset: int | None = None      #: largest size (bytes) still on the plateau before the rise
    why: str = ""                 #: why this method
    policy: str | None = None     #: replacement policy of the best probabilistic fit
    plateau: tuple = ()           #: (first, last) size (bytes) of the level's plateau: its latency's sizes
    bracket: tuple = ()           #: edge: (last size on the plateau, first size above), bytes
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


def _plateau(base_sizes: np.ndarray, rises: list, i: int) -> tuple:
    """(first, last) base size of the plateau before rise i (after rise i-1)."""
    first = base_sizes[rises[i - 1].end] if i > 0 else base_sizes[0]
    return int(first), int(base_sizes[rises[i].start])


def _next_plateau(base_sizes: np.ndarray, rises: list, i: int) -> tuple | None:
    """(first, last) of the plateau after rise i: the next level's, or
    memory's; None when the curve still rises at the largest size."""
    if i + 1 < len(rises):
        return _plateau(base_sizes, rises, i + 1)
    if rises[i].end >= base_sizes.size - 1:
        return None
    return int(base_sizes[rises[i].end]), int(base_sizes[-1])


def estimate_levels(sizes: npt.ArrayLike, cycles: npt.ArrayLike, page_size: int = 4096,
                    refined: npt.ArrayLike | None = None, placement: str = "unknown",
                    step_threshold: float = DEFAULT_STEP_THRESHOLD,
                    min_rise: float = DEFAULT_MIN_RISE, model: str = "lines",
                    selection: str = "simplest", policies: tuple = POLICIES,
                    ways: tuple | None = None, best: npt.ArrayLike | None = None,
                    line: int = 64, expected: int | None = None) -> list[CacheLevel]:
    """Cache levels, smallest first, from sizes (bytes) and cycles per access.

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
    if placement not in PLACEMENTS:
        raise ValueError(f"placement must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
    if not step_threshold > 0:
        raise ValueError(f"step_threshold must be positive, got {step_threshold}")
    if not min_rise > 1:
        raise ValueError(f"min_rise must be above 1, got {min_rise}")
    base = np.ones(sizes.size, dtype=bool) if refined is None else ~np.asarray(refined, dtype=bool)
    if base.shape != sizes.shape or base.sum() < 3:
        raise ValueError("refined must be a boolean mask like sizes, leaving at least 3 base sizes")
    if best is not None:
        best = np.asarray(best, dtype=float)
        if best.shape != sizes.shape:
            raise ValueError(f"best must have one value per size, got {best.size} for {sizes.size} sizes")
    _validate.positive_int("line", line)
    if expected is not None:
        _validate.positive_int("expected", expected)
    geometry = tuple(int(k) for k in ways) if ways else ()

    base_sizes = sizes[base]
    ways = DEFAULT_WAYS if not ways else tuple(sorted({int(k) for k in ways}))
    if any(k < 1 for k in ways):
        raise ValueError(f"ways must be positive associativities, got {ways}")
    fit = monotone_fit(cycles)
    # An edge is read off the envelope where there is one (see best above).
    edge_fit = fit if best is None else monotone_fit(np.where(np.isfinite(best), best, cycles))
    rises = find_rises(cycles[base], step_threshold, min_rise, sizes=base_sizes)
    found: list = []              # per rise: a CacheLevel (edge) or a PageSetLevel to fit jointly
    for i, rise in enumerate(rises):
        number = i + 1
        plateau = _plateau(base_sizes, rises, i)
        if number == 1 or placement == "contiguous":
            why = ("first level: indexed within a page, so every placement fills its sets evenly" if number == 1
                   else "contiguous placement: the sets fill evenly, so misses begin at the size")
            size, a, b = _edge(sizes, edge_fit, base_sizes, rise, step_threshold, steep=True)
            k = int(np.searchsorted(base_sizes, a, side="right")) - 1     # the base step that holds the edge
            found.append(CacheLevel(level=number, size=size, method="edge", why=why, bracket=(a, b), onset=a,
                                    plateau=plateau,
                                    range=(int(base_sizes[k]), int(base_sizes[min(k + 1, base_sizes.size - 1)]))))
            continue
        _, a, _ = _edge(sizes, fit, base_sizes, rise, step_threshold)     # the onset: where the rise begins
        # The rise plus one plateau point on each side anchors the hit time
        # and the miss overhead of the miss-rate normalisation; a valley cut
        # is already the boundary with the neighbouring cache.
        lo = base_sizes[rise.start if rise.cut_before else max(rise.start - 1, 0)]
        hi = base_sizes[rise.end if rise.cut_after else min(rise.end + 1, base_sizes.size - 1)]
        inside = (sizes >= lo) & (sizes <= hi)
        first = estimate_size(sizes[inside], fit[inside], page_size=page_size, model=model, selection=selection,
                              policies=policies, ways=ways)
        after = _next_plateau(base_sizes, rises, i)
        bounds = (capacity_bounds(sizes, best, plateau, after) if best is not None and after is not None
                  else None)
        found.append((PageSetLevel(fit=first, lo=float(lo), hi=float(hi)), number, a, plateau, bounds))
    page_set = [f[0] for f in found if isinstance(f, tuple)]
    if model == "lines" and page_set:
        # Where the placement is unknown (a virtual machine: the host places
        # the guest's pages), the curve decides between scattered and evenly
        # coloured pages, as it decides the policy.
        placements = ("random", "even") if placement == "unknown" else ("random",)
        page_set, score = joint_fit(sizes, fit, page_set, page_size, policies, selection, placements=placements,
                                    ways=ways)
        if expected is not None and geometry and len(found) < expected:
            split = split_widest(sizes, fit, page_set, score, page_size, policies, selection, placements, ways)
            if split is not None:
                k, page_set = split
                _, _, _, lower_plateau, _ = [f for f in found if isinstance(f, tuple)][k]
                bounds = None if best is None else lower_bounds(sizes, best, page_set, k, lower_plateau, page_size)
                found = _split_entry(found, k, page_set, bounds)
    joint = iter(page_set)
    levels = []
    for f in found:
        if isinstance(f, CacheLevel):
            levels.append(f)
            continue
        _, number, a, plateau, bounds = f
        lv = next(joint)
        if lv.fit.placement == "even":
            why = (f"{placement} placement: the page-set model fitted to the whole rise (together with overlapping "
                   "levels) under scattered and under evenly coloured pages; the curve fits evenly coloured pages "
                   "better")
        else:
            why = (f"{placement} placement: page sets overflow at random before the cache is full, so the page-set "
                   "model is fitted to the whole rise (together with overlapping levels)")
        size, method = lv.fit.size, "probabilistic"
        if bounds is not None:
            size, method, said = choose(lv.fit.size, bounds, geometry, line)
            why = f"{why}; {said}"
        if number is None:
            why = (f"{why}; hwloc reports one cache more than the curve has rises, and the widest rise fits two "
                   "page-set levels far better than one: this is the upper one, whose rise overlaps the level "
                   "below it (no plateau between them, so no latency of its own)")
        levels.append(CacheLevel(level=number or 0, size=size, method=method, range=(int(lv.lo), int(lv.hi)),
                                 ways=lv.fit.ways, divergence=lv.fit.divergence, policy=lv.fit.policy, why=why,
                                 onset=a, plateau=plateau, model_size=lv.fit.size,
                                 held=None if bounds is None else bounds.held,
                                 half_miss=None if bounds is None else bounds.half_miss))
    return [replace(lv, level=i + 1) for i, lv in enumerate(levels)]


def _split_entry(found: list, k: int, fitted: list, bounds) -> list:
    """`found` with its k-th page-set entry made two (split_widest): the
    lower keeps the entry's onset and plateau and takes `bounds` (from
    _split.lower_bounds: the plateau after it is not there); the upper
    (number None: numbered with the rest) starts where the lower's range
    ends and has no plateau."""
    positions = [i for i, f in enumerate(found) if isinstance(f, tuple)]
    at = positions[k]
    _, number, onset, plateau, _ = found[at]
    lower, upper = fitted[k], fitted[k + 1]
    # No sizes lie in [0, 0]: the upper level's latency is None, not a mixture's.
    return found[:at] + [(lower, number, onset, plateau, bounds), (upper, None, int(upper.lo), (0, 0), None)] + \
        found[at + 1:]


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
