"""The page-set steps of the cache analysis (_analysis.estimate_levels):
each rise past the first (under random or unknown placement) fitted alone,
then all of them together, the widest tried as two levels where hwloc
counts one cache more, each with the capacity bounds of its sizes (pure
NumPy, no hardware)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ._capacity import CapacityBounds, capacity_bounds
from ._curve import AnalysisSettings, Curve
from ._joint import JointSettings, PageSetLevel, joint_fit
from ._probabilistic import SizeFitSettings, estimate_size
from ._rises import Rise
from ._split import lower_bounds, split_widest


@dataclass(frozen=True)
class PageSetEntry:
    """A level found by the page-set model, on its way to a CacheLevel."""

    fitted: PageSetLevel             #: its page-set fit and the sizes it is fitted over
    number: int | None               #: the rise's number (1, 2, ...); None: the upper level of a split
    onset: int                       #: bytes: where its rise begins
    plateau: tuple[int, int]         #: (first, last) size of its plateau (bytes); (0, 0): none
    bounds: CapacityBounds | None    #: what the best placement says of its size, where known


def joint_settings(settings: AnalysisSettings) -> JointSettings:
    """The settings of the joint fit. Where the placement is unknown (a
    virtual machine: the host places the guest's pages), the curve decides
    between scattered and evenly coloured pages, as it decides the policy."""
    placements = ("random", "even") if settings.placement == "unknown" else ("random",)
    return JointSettings(page_size=settings.page_size, policies=settings.policies, selection=settings.selection,
                         placements=placements, ways=settings.fit_ways)


def page_set_entry(curve: Curve, i: int, onset: int, settings: AnalysisSettings) -> PageSetEntry:
    """Rise i's level as the page-set model gives it alone: the model fitted
    over the rise plus one plateau point on each side (they anchor the hit
    time and the miss overhead of the miss-rate normalisation; a valley cut
    is already the boundary with the neighbouring cache), and its capacity
    bounds where the envelope and the plateau after it are known."""
    rise: Rise = curve.rises[i]
    base_sizes = curve.base_sizes
    lo = base_sizes[rise.start if rise.cut_before else max(rise.start - 1, 0)]
    hi = base_sizes[rise.end if rise.cut_after else min(rise.end + 1, base_sizes.size - 1)]
    inside = (curve.sizes >= lo) & (curve.sizes <= hi)
    fit = estimate_size(curve.sizes[inside], curve.fit[inside],
                        SizeFitSettings(page_size=settings.page_size, model=settings.model,
                                        selection=settings.selection, policies=settings.policies,
                                        ways=settings.fit_ways))
    plateau, after = curve.plateau(i), curve.next_plateau(i)
    bounds = (capacity_bounds(curve.sizes, curve.best, plateau, after)
              if curve.best is not None and after is not None else None)
    return PageSetEntry(PageSetLevel(fit=fit, lo=float(lo), hi=float(hi)), i + 1, onset, plateau, bounds)


def fit_together(curve: Curve, entries: list[PageSetEntry], settings: AnalysisSettings,
                 rises_found: int) -> list[PageSetEntry]:
    """The page-set entries fitted jointly (_joint.py, the "lines" model
    only), the widest made two where hwloc reports more caches than the
    `rises_found` rises (_split.py; with hwloc's associativities only:
    without them the fits of every associativity would take minutes)."""
    if settings.model != "lines" or not entries:
        return entries
    joint = joint_settings(settings)
    fitted, score = joint_fit(curve.sizes, curve.fit, [e.fitted for e in entries], joint)
    if settings.expected is not None and settings.geometry and rises_found < settings.expected:
        split = split_widest(curve.sizes, curve.fit, fitted, score, joint)
        if split is not None:
            return _split_entries(curve, entries, *split, settings.page_size)
    return [replace(e, fitted=f) for e, f in zip(entries, fitted)]


def _split_entries(curve: Curve, entries: list[PageSetEntry], k: int, fitted: list[PageSetLevel],
                   page_size: int) -> list[PageSetEntry]:
    """`entries` with the k-th made two (split_widest gave `fitted`, one
    level more than `entries`): the lower keeps the entry's onset and
    plateau and takes the bounds _split.lower_bounds gives (the plateau
    after it is not there); the upper (number None: numbered with the rest)
    starts where the lower's range ends and has no plateau."""
    lower = entries[k]
    bounds = None if curve.best is None else lower_bounds(curve.sizes, curve.best, fitted, k, lower.plateau,
                                                          page_size)
    upper = fitted[k + 1]
    # No sizes lie in [0, 0]: the upper level's latency is None, not a mixture's.
    two = [replace(lower, fitted=fitted[k], bounds=bounds), PageSetEntry(upper, None, int(upper.lo), (0, 0), None)]
    rest = [replace(e, fitted=f) for e, f in zip(entries[:k] + entries[k + 1:], fitted[:k] + fitted[k + 2:])]
    return rest[:k] + two + rest[k:]
