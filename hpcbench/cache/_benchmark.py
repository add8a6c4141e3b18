"""The `cache` benchmark of the suite: measure, analyse, compare with hwloc,
and build the record."""
from __future__ import annotations

import dataclasses

import numpy as np

from .._format import format_size
from .._outliers import find_outliers
from .._protocol import Benchmark, Context, Job
from ..topology import Topology
from ._analysis import CacheLevel, estimate_levels, gradient
from ._measure import check_parameters, check_pu, default_max_size, measure
from ._options import CacheOptions
from ._plot import cache_figure
from ._records import CacheDerived, CacheParameters, CacheRaw, CacheRecord, HwlocLevel, MeasuredLevel, OrderProbe

#: A measured level "agrees" with hwloc within this relative difference.
AGREEMENT = 0.15

UNITS = {
    "sizes": "bytes", "cycles_per_access": "TSC ticks per access", "ns_per_access": "ns per access",
    "level.size": "bytes", "hwloc_size": "bytes", "relative_difference": "(measured - hwloc) / hwloc",
}


def compare_with_hwloc(levels: list, hwloc_caches: list) -> list:
    """MeasuredLevel records: each level with hwloc's size beside it."""
    out = []
    for lv in levels:
        hw = next((c for c in hwloc_caches if c.level == lv.level), None)
        diff = (lv.size - hw.size) / hw.size if hw and hw.size else None
        out.append(MeasuredLevel(level=lv.level, size=lv.size, method=lv.method, range=list(lv.range),
                                 ways=lv.ways, divergence=lv.divergence, onset=lv.onset,
                                 hwloc_size=hw.size if hw else None, relative_difference=diff,
                                 agrees=None if diff is None else abs(diff) <= AGREEMENT))
    return out


def unstable_sizes(samples, limit=0.10) -> list:
    """Sizes whose passes disagree: relative spread of pass medians above limit."""
    per_pass = np.min(samples, axis=2)
    med = np.nanmedian(per_pass, axis=1)
    spread = (np.nanmax(per_pass, axis=1) - np.nanmin(per_pass, axis=1)) / med
    return [int(i) for i in np.flatnonzero(spread > limit)]


def _warnings(sweep, levels: list[CacheLevel], compared: list, hwloc_caches: list, unstable: list) -> list:
    warnings = []
    if sweep.parameters["pages"] == "huge":
        warnings.append("with 2 MiB pages the page-set model only describes caches whose way size (size / ways) "
                        "exceeds 2 MiB; for the others read 'misses from'")
    if len(unstable) > 0.2 * sweep.sizes.size:
        warnings.append(f"{len(unstable)} of {sweep.sizes.size} sizes varied by more than 10% between passes: "
                        "the machine is busy; rerun on an idle node or raise --cache-passes")
    for rec in compared:
        if rec.agrees is False:
            warnings.append(f"L{rec.level}: measured {rec.size} bytes, hwloc reports {rec.hwloc_size}")
    if len(levels) != len(hwloc_caches):
        warnings.append(f"found {len(levels)} cache levels, hwloc reports {len(hwloc_caches)}")
    return warnings


def _level_row(lv: MeasuredLevel) -> str:
    """One row of the summary's table: measured size and method, onset, hwloc, difference, flag."""
    cells = [f"L{lv.level:<5}", f"{format_size(lv.size):>12}", f"{lv.method:>15}",
             f"{format_size(lv.onset) if lv.onset else '-':>13}",
             f"{format_size(lv.hwloc_size) if lv.hwloc_size else '-':>12}",
             f"{'-' if lv.relative_difference is None else f'{100 * lv.relative_difference:+.1f}%':>9}",
             f"  {'' if lv.agrees is not False else 'DISAGREES'}"]
    return "  " + "".join(cells)


class CacheBenchmark(Benchmark):
    """cache levels and sizes from array traversals (Servet III-A)

    One pinned thread chases dependent loads through arrays of growing size;
    the steps of the time per access are the cache levels (docs/cache.md),
    set beside hwloc's sizes."""

    name = "cache"
    scope = "node"
    options_type = CacheOptions
    record_type = CacheRecord

    def resolve(self, options: CacheOptions, topology: Topology, job: Job) -> CacheOptions:
        max_size = default_max_size(topology) if options.max_size is None else options.max_size
        check_parameters(options.min_size, max_size, options.stride, options.passes, options.samples,
                         options.order, options.pages, options.min_accesses, options.window)
        if options.pu is not None:
            check_pu(options.pu, topology)
        return dataclasses.replace(options, max_size=max_size)

    def run(self, ctx: Context) -> CacheRecord:
        sweep = measure(**dataclasses.asdict(ctx.options), topology=ctx.topology, progress=ctx.progress)
        levels = estimate_levels(sweep.sizes, sweep.cycles, page_size=sweep.parameters["page_size"],
                                 refined=sweep.refined)
        hw = ctx.topology.data_caches_of(sweep.parameters["pu"])
        unstable = unstable_sizes(sweep.samples_cycles)
        compared = compare_with_hwloc(levels, hw)
        # A pass a size did not have is NaN: each size's set is its measured timings.
        outliers = find_outliers(sweep.samples_ns)
        params = dict(sweep.parameters)
        probe = params.pop("order_probe")
        return CacheRecord(
            name=self.name,
            parameters=CacheParameters(**params, order_probe=OrderProbe(**probe) if probe else None),
            raw=CacheRaw(sizes=sweep.sizes.tolist(), refined=sweep.refined.tolist(),
                         accesses_per_sample=sweep.accesses_per_sample.tolist(),
                         cycles_per_access=sweep.samples_cycles, ns_per_access=sweep.samples_ns),
            derived=CacheDerived(cycles_per_access=sweep.cycles.tolist(), ns_per_access=sweep.ns.tolist(),
                                 gradient=gradient(sweep.cycles).tolist(), levels=compared,
                                 hwloc_levels=[HwlocLevel(level=c.level, size=c.size, kind=c.kind,
                                                          associativity=c.associativity) for c in hw],
                                 unstable_sizes=unstable, outliers=outliers),
            units=UNITS, warnings=_warnings(sweep, levels, compared, hw, unstable) +
            [w for w in [outliers.warning("cache sweep", unit="ns")] if w])

    def summary(self, record: CacheRecord) -> list:
        p, levels, hwloc = record.parameters, record.derived.levels, record.derived.hwloc_levels
        lines = [f"cache levels on {record.node or '?'} (PU {p.pu}, {p.order} order, {p.pages} pages, "
                 f"stride {format_size(p.stride)})",
                 f"  {'level':<6}{'measured':>12}{'method':>15}{'misses from':>13}{'hwloc':>12}{'diff':>9}  flag"]
        lines += [_level_row(lv) for lv in levels]
        if len(levels) != len(hwloc):
            lines.append(f"  note: {len(levels)} levels measured, hwloc reports {len(hwloc)}")
        return lines

    def plot(self, record: CacheRecord):
        return cache_figure(record)
