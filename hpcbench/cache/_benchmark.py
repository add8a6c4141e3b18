"""The `cache` benchmark of the suite: measure, analyse, set beside hwloc,
and build the record."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import _estimate
from .._format import format_size
from .._outliers import find_outliers
from .._protocol import Benchmark, Context, Job
from .._tidy import Row
from ..topology import Cache, Topology
from ._analysis import CacheLevel, gradient, memory_plateau, plateau_value
from ._compare import AGREEMENT, judge
from ._levels import sweep_levels
from ._measure import CacheSweep, measure
from ._options import CacheOptions
from ._placement import Placement, combined
from ._plot import cache_figure
from ._records import (
    CacheDerived,
    CacheParameters,
    CacheRaw,
    CacheRecord,
    HwlocLevel,
    MeasuredLevel,
    MemoryRecord,
    PlacementRecord,
)
from ._report import cache_disagreements, cache_headlines, cache_meaning, disagreement_text, flag_text
from ._resolve import resolve_options
from ._tidy import cache_rows

if TYPE_CHECKING:          # for the annotations only: the CLI's start-up imports none of them
    from matplotlib.figure import Figure

    from .._headline import Headline

UNITS = {
    "sizes": "bytes", "cycles_per_access": "TSC ticks per access", "ns_per_access": "ns per access",
    "level.size": "bytes", "hwloc_size": "bytes", "relative_difference": "(measured - hwloc) / hwloc",
    "latency_cycles": "TSC ticks per access", "latency_ns": "ns per access", "bandwidth": "bytes/s read",
}


def unstable_sizes(samples: np.ndarray, limit: float = 0.10) -> list[int]:
    """Sizes whose passes disagree: relative spread of pass medians above limit."""
    finite = np.isfinite(samples)
    # Per pass the fastest sample (a size timed once has NaN for the rest;
    # a pass a size did not get is all NaN and left out).
    per_pass = np.where(finite.any(axis=2), np.min(np.where(finite, samples, np.inf), axis=2), np.nan)
    unstable = []
    for i, row in enumerate(per_pass):
        row = row[np.isfinite(row)]
        if row.size >= 2 and (row.max() - row.min()) / np.median(row) > limit:
            unstable.append(i)
    return unstable


def placement_record(p: Placement) -> PlacementRecord:
    return PlacementRecord(**dataclasses.asdict(p))


def bandwidth_at(sweep: CacheSweep, first: int, last: int) -> tuple[float | None, int | None]:
    """(bytes/s, size) read inside a plateau: at the measured size nearest
    (in log) to half its last size, or to its first, whichever is larger."""
    sizes = sweep.bandwidth_sizes
    inside = np.flatnonzero((sizes >= first) & (sizes <= last))
    if not inside.size:
        return None, None
    target = np.log2(max(first, last / 2))
    k = int(inside[np.argmin(np.abs(np.log2(sizes[inside]) - target))])
    value = float(sweep.bandwidth[k])
    return (value if np.isfinite(value) and value > 0 else None), int(sizes[k])


def measured_levels(sweep: CacheSweep, levels: list[CacheLevel],
                    hwloc_caches: Sequence[Cache]) -> tuple[list[MeasuredLevel], list[str]]:
    """MeasuredLevel records (hwloc beside each, latency, bandwidth, status)
    and the words for hwloc's caches that showed no step."""
    verdicts, missing = judge([lv.size for lv in levels], hwloc_caches)
    out = []
    for lv, v in zip(levels, verdicts):
        diff = (lv.size - v.hwloc_size) / v.hwloc_size if v.hwloc_size else None
        first, last = lv.plateau
        bandwidth, bandwidth_size = bandwidth_at(sweep, first, last)
        out.append(MeasuredLevel(
            level=v.number, size=lv.size, method=lv.method, range=list(lv.range), ways=lv.ways,
            divergence=lv.divergence, onset=lv.onset, hwloc_size=v.hwloc_size, relative_difference=diff,
            agrees=None if diff is None else abs(diff) <= AGREEMENT, why=lv.why, policy=lv.policy,
            bracket=list(lv.bracket) or None, plateau=[first, last], held=lv.held, half_miss=lv.half_miss,
            model_size=lv.model_size,
            latency_cycles=plateau_value(sweep.sizes, sweep.cycles, first, last),
            latency_ns=plateau_value(sweep.sizes, sweep.ns, first, last),
            bandwidth=bandwidth, bandwidth_size=bandwidth_size, status=v.status, note=v.note))
    return out, missing


def memory_record(sweep: CacheSweep) -> MemoryRecord | None:
    plateau = memory_plateau(sweep.sizes, sweep.cycles, sweep.refined)
    if plateau is None:
        return None
    bandwidth = size = None
    if sweep.bandwidth_sizes.size:
        size = int(sweep.bandwidth_sizes[-1])
        value = float(sweep.bandwidth[-1])
        bandwidth = value if np.isfinite(value) and value > 0 else None
    return MemoryRecord(from_size=plateau.first,
                        latency_cycles=plateau_value(sweep.sizes, sweep.cycles, plateau.first, plateau.last),
                        latency_ns=plateau_value(sweep.sizes, sweep.ns, plateau.first, plateau.last),
                        bandwidth=bandwidth, bandwidth_size=size)


def _warnings(sweep: CacheSweep, placement: Placement, compared: list[MeasuredLevel], missing: list[str],
              unstable: list[int]) -> list[str]:
    warnings = []
    if placement.frames_known == 0 and not placement.virtual_machine:
        warnings.append("the buffer's physical frames are hidden (pagemap needs CAP_SYS_ADMIN): placement "
                        "judged from huge pages alone")
    if sweep.parameters["pages"] == "huge" and (placement.huge_share or 0.0) < 0.9:
        warnings.append("huge pages were asked for but back only "
                        f"{100 * (placement.huge_share or 0.0):.0f}% of the buffer (system THP policy or "
                        "fragmented memory)")
    if len(unstable) > 0.2 * sweep.sizes.size:
        warnings.append(f"{len(unstable)} of {sweep.sizes.size} sizes varied by more than 10% between passes: "
                        "the machine is busy; rerun on an idle node or raise --cache-passes")
    for rec in compared:
        if rec.status == "flagged":
            warnings.append(flag_text(rec))
        elif rec.agrees is False:
            warnings.append(disagreement_text(rec))
    return warnings + missing


def _bounds_row(lv: MeasuredLevel) -> str:
    """What the best placement of the passes said of a level, in words."""
    name = f"L{lv.level}" if lv.hwloc_size is not None or lv.status != "flagged" else "step"
    half = "" if lv.half_miss is None else f", missed half its accesses from {format_size(lv.half_miss)}"
    fit = "" if lv.model_size is None else f"; page-set fit {format_size(lv.model_size)}"
    return f"  {name} bounds: the best placement held {format_size(lv.held or 0)}{half}{fit}"


def _extension_words(p: CacheParameters) -> str:
    """Why the sweep stopped where it did, for a curve still rising there."""
    if not (p.extend and p.extend_limit):
        return "; raise --cache-max"
    if (p.extended_to or p.max_size) * 2 ** 0.25 > p.extend_limit:      # no quarter octave left below the bound
        return f"; the extension stopped at its bound, {format_size(p.extend_limit)}"
    return "; the extension stopped at its time budget: raise --cache-max"


def _level_row(lv: MeasuredLevel) -> str:
    """One row of the summary's table."""
    flagged = lv.status == "flagged"
    name = "step" if flagged and lv.hwloc_size is None else f"L{lv.level}"
    latency = "-" if lv.latency_cycles is None else f"{lv.latency_cycles:.1f} / {lv.latency_ns or 0:.1f}"
    bandwidth = "-" if lv.bandwidth is None else f"{lv.bandwidth / 1e9:.0f}"
    cells = [f"{name:<6}", f"{format_size(lv.size):>12}", f"{lv.method:>15}", f"{latency:>15}",
             f"{bandwidth:>8}", f"{format_size(lv.hwloc_size) if lv.hwloc_size else '-':>12}",
             f"{'-' if lv.relative_difference is None else f'{100 * lv.relative_difference:+.1f}%':>9}",
             f"  {'flagged' if flagged else 'DISAGREES' if lv.agrees is False else ''}"]
    return "  " + "".join(cells)


def _old_level_row(lv: MeasuredLevel) -> str:
    """A row for a record of an earlier version (no latency, bandwidth or status)."""
    cells = [f"L{lv.level:<5}", f"{format_size(lv.size):>12}", f"{lv.method:>15}",
             f"{format_size(lv.onset) if lv.onset else '-':>13}",
             f"{format_size(lv.hwloc_size) if lv.hwloc_size else '-':>12}",
             f"{'-' if lv.relative_difference is None else f'{100 * lv.relative_difference:+.1f}%':>9}",
             f"  {'' if lv.agrees is not False else 'DISAGREES'}"]
    return "  " + "".join(cells)


class CacheBenchmark(Benchmark[CacheOptions, CacheRecord]):
    """cache levels: size, latency and read bandwidth of each (Servet III-A)

    One pinned thread chases pointers through growing prefixes of one
    buffer, then streams loads over them; the steps of the time per access
    are the cache levels (docs/cache.md), set beside hwloc's sizes."""

    name = "cache"
    scope = "node"
    options_type = CacheOptions
    record_type = CacheRecord

    def resolve(self, options: CacheOptions, topology: Topology, job: Job) -> CacheOptions:
        return resolve_options(options, topology)

    def estimate(self, options: CacheOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.cache_seconds(options, topology)

    def run(self, ctx: Context[CacheOptions]) -> CacheRecord:
        sweep = measure(ctx.options, topology=ctx.topology, progress=ctx.progress)
        placement = combined(sweep.placements)
        hw = ctx.topology.data_caches_of(sweep.parameters["pu"])
        levels = sweep_levels(sweep, hw)
        unstable = unstable_sizes(sweep.samples_cycles)
        compared, missing = measured_levels(sweep, levels, hw)
        # A pass a size did not have is NaN: each size's set is its measured timings.
        outliers = find_outliers(sweep.samples_ns)
        flags = [flag_text(lv) for lv in compared if lv.status == "flagged"]
        return CacheRecord(
            name=self.name,
            parameters=CacheParameters(**sweep.parameters),
            raw=CacheRaw(sizes=sweep.sizes.tolist(), refined=sweep.refined.tolist(),
                         accesses_per_sample=sweep.accesses_per_sample.tolist(),
                         cycles_per_access=sweep.samples_cycles, ns_per_access=sweep.samples_ns,
                         placements=[placement_record(p) for p in sweep.placements],
                         bandwidth_sizes=sweep.bandwidth_sizes.tolist() or None,
                         bandwidth=sweep.bandwidth_samples if sweep.bandwidth_sizes.size else None),
            derived=CacheDerived(cycles_per_access=sweep.cycles.tolist(), ns_per_access=sweep.ns.tolist(),
                                 gradient=gradient(sweep.cycles).tolist(), levels=compared,
                                 hwloc_levels=[HwlocLevel(level=c.level, size=c.size, kind=c.kind,
                                                          associativity=c.associativity) for c in hw],
                                 unstable_sizes=unstable, outliers=outliers, placement=placement_record(placement),
                                 memory=memory_record(sweep),
                                 bandwidth_sizes=sweep.bandwidth_sizes.tolist() or None,
                                 bandwidth=sweep.bandwidth.tolist() or None, flags=flags + missing),
            units=UNITS, warnings=_warnings(sweep, placement, compared, missing, unstable) +
            [w for w in [outliers.warning("cache sweep", unit="ns")] if w])

    def summary(self, record: CacheRecord) -> list[str]:
        p, d = record.parameters, record.derived
        levels, hwloc = d.levels, d.hwloc_levels
        if all(lv.status is None for lv in levels):        # a record of an earlier version
            lines = [f"cache levels on {record.node or '?'} (PU {p.pu}, {p.order} order, {p.pages} pages, "
                     f"stride {format_size(p.stride)})",
                     f"  {'level':<6}{'measured':>12}{'method':>15}{'misses from':>13}{'hwloc':>12}{'diff':>9}  flag"]
            lines += [_old_level_row(lv) for lv in levels]
            if len(levels) != len(hwloc):
                lines.append(f"  note: {len(levels)} levels measured, hwloc reports {len(hwloc)}")
            return lines
        placement = d.placement.kind if d.placement else "?"
        lines = [f"cache levels on {record.node or '?'} (PU {p.pu}, {p.order} order, {p.pages} pages, "
                 f"stride {format_size(p.stride)}, placement {placement}, loads {p.isa or '-'})",
                 f"  {'level':<6}{'measured':>12}{'method':>15}{'latency cyc/ns':>15}{'GB/s':>8}{'hwloc':>12}"
                 f"{'diff':>9}  flag"]
        lines += [_level_row(lv) for lv in levels]
        m = d.memory
        if m is not None:
            latency = "-" if m.latency_cycles is None else f"{m.latency_cycles:.1f} / {m.latency_ns or 0:.1f}"
            bandwidth = "-" if m.bandwidth is None else f"{m.bandwidth / 1e9:.0f}"
            lines.append(f"  {'memory':<6}{format_size(m.from_size):>12}{'plateau from':>15}{latency:>15}"
                         f"{bandwidth:>8}")
        else:
            lines.append(f"  memory: not reached (the curve still rises at the largest size, "
                         f"{format_size(max(record.raw.sizes))}{_extension_words(p)})")
        if p.extended_to:
            lines.append(f"  sweep extended from {format_size(p.max_size)} to {format_size(p.extended_to)}: "
                         "the curve still rose at the base sweep's largest size")
        lines += [_bounds_row(lv) for lv in levels if lv.held is not None]
        lines += [f"  flagged: {flag}" for flag in d.flags or []]
        return lines

    def plot(self, record: CacheRecord) -> Figure:
        return cache_figure(record)

    def meaning(self, record: CacheRecord) -> list[str]:
        return cache_meaning(record)

    def disagreements(self, record: CacheRecord) -> list[str]:
        return cache_disagreements(record)

    def headlines(self, record: CacheRecord) -> list[Headline]:
        return cache_headlines(record)

    def tidy(self, record: CacheRecord) -> list[Row]:
        return cache_rows(record)


BENCHMARK: Benchmark[CacheOptions, CacheRecord] = CacheBenchmark()
