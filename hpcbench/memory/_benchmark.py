"""The `memory` benchmark of the suite: overhead of concurrent memory access
between pairs of cores (Servet 2010, Fig. 6) and scalability of the copy
bandwidth over a representative group of each overhead level and the node."""
from __future__ import annotations

import dataclasses

from .. import _estimate
from .._format import format_size, gigabytes_per_second, groups_text
from .._outliers import find_outliers
from .._protocol import Benchmark, Context, Job
from ..topology import Topology, plan_pairs
from ..topology._pairs import check_pus, require_two_pus, spread_order
from ._analysis import (
    analyze_memory_overhead,
    analyze_scalability,
    own_rates,
    pair_aggregate,
    pair_bandwidth,
    uneven_cores_warning,
)
from ._measure import check_array_bytes, check_copy, default_array_bytes, measure_pairs, measure_scalability
from ._options import MemoryOptions
from ._plot import memory_figure
from ._records import (
    MemoryDerived,
    MemoryParameters,
    MemoryRaw,
    MemoryRecord,
    PairBandwidth,
    Scalability,
    ScalabilitySamples,
)
from ._report import memory_disagreements, memory_headlines, memory_meaning
from ._tidy import memory_rows

UNITS = {"alone": "bytes/s per core", "together": "bytes/s per core", "bandwidth": "bytes/s per core",
         "reference": "bytes/s per core", "total": "bytes/s, the sum of the cores' own rates", "per_core": "bytes/s",
         "aggregate": "bytes/s, all cores' bytes over the time from the first start to the last end",
         "start_ns": "ns after the run's first start", "end_ns": "ns after the run's first start",
         "together_start_ns": "ns after the run's first start", "together_end_ns": "ns after the run's first start",
         "array_bytes": "bytes", "relative": "bandwidth with the other core copying / bandwidth alone"}
KERNEL = "copy b[i] = a[i], doubles, ordinary stores; bandwidth counts read + write"


def largest_group(level) -> list:
    return max(level.groups, key=lambda g: (len(g), -g[0]))


class MemoryBenchmark(Benchmark[MemoryOptions, MemoryRecord]):
    """memory-access overhead between cores and bandwidth scalability (Servet III-C)

    STREAM-style copies on each tested pair of cores, alone and together,
    group the pairs into overhead levels; then the copy bandwidth as more
    cores of each level, and of the node, copy at once (docs/node.md)."""

    name = "memory"
    scope = "node"
    group = "memory benchmark (pairs of cores)"
    options_type = MemoryOptions
    record_type = MemoryRecord

    def resolve(self, options: MemoryOptions, topology: Topology, job: Job) -> MemoryOptions:
        size = default_array_bytes(topology) if options.size is None else options.size
        check_copy(size, options.repetitions, options.pages)
        if options.cores is not None or len(topology.pu_indexes) >= 2:   # else: skipped when it runs
            plan_pairs(topology, options.cores, options.pairs, options.sample, options.seed)
            check_array_bytes(size, len(check_pus(topology, options.cores)))
        return dataclasses.replace(options, size=size)

    def estimate(self, options: MemoryOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.memory_seconds(options, topology)

    def run(self, ctx: Context[MemoryOptions]) -> MemoryRecord:
        o: MemoryOptions = ctx.options
        require_two_pus(ctx.topology, o.cores)
        plan = plan_pairs(ctx.topology, o.cores, o.pairs, o.sample, o.seed)
        size = check_array_bytes(o.size or default_array_bytes(ctx.topology), len(plan.pus))
        data = measure_pairs(plan, size, o.repetitions, o.rounds, o.pages, o.seed, ctx.progress)
        measured = {p: pair_bandwidth(data["alone"][k], data["together"][k]) for k, p in enumerate(data["pairs"])}
        aggregates = {p: pair_aggregate(2 * size, data["together_start_ns"][k], data["together_end_ns"][k])
                      for k, p in enumerate(data["pairs"])}
        overhead = analyze_memory_overhead(measured, plan, o.tolerance, aggregates)
        # Each core's own rate beside the aggregate, to warn where adding
        # the rates would overstate it.
        uneven: list = [(f"pair {p[0]}-{p[1]}", own_rates(data["together"][k]), aggregates[p])
                        for k, p in enumerate(data["pairs"])]

        scalability, raw_scal = [], []
        targets = [(f"overhead level {i + 1}", largest_group(lv)) for i, lv in enumerate(overhead.levels)]
        targets.append(("node", spread_order(ctx.topology, plan.pus)))
        for name, cores in targets:
            ctx.progress(f"memory: scalability of {name} ({len(cores)} cores)")
            runs = measure_scalability(cores, size, o.repetitions, o.pages)
            samples = ScalabilitySamples(group=name, cores=cores, bandwidth=[r.bandwidth for r in runs],
                                         start_ns=[r.start_ns for r in runs], end_ns=[r.end_ns for r in runs])
            points = analyze_scalability(samples.bandwidth, 2 * size, samples.start_ns, samples.end_ns)
            scalability.append(Scalability(group=name, cores=cores, points=points))
            raw_scal.append(samples)
            uneven += [(f"{name} with {x.cores} cores", own_rates(r.bandwidth), x.aggregate)
                       for r, x in zip(runs, points)]

        per_copy = [*data["alone"].reshape(-1, o.repetitions), *data["together"].reshape(-1, o.repetitions)]
        outliers = find_outliers(per_copy + [b for run in raw_scal for b in run.bandwidth], slower="lower")
        noise = outliers.warning("memory", unit="bytes/s")
        return MemoryRecord(
            name=self.name,
            parameters=MemoryParameters(pair_mode=o.pairs, pus=plan.pus, sample=o.sample, seed=o.seed,
                                        array_bytes=size, bytes_per_copy=2 * size, repetitions=o.repetitions,
                                        rounds=o.rounds, tolerance=o.tolerance, pages=o.pages, kernel=KERNEL),
            raw=MemoryRaw(pairs=[list(p) for p in data["pairs"]], alone=data["alone"], together=data["together"],
                          scalability=raw_scal, together_start_ns=data["together_start_ns"],
                          together_end_ns=data["together_end_ns"]),
            derived=MemoryDerived(plan=plan.to_record(),
                                  pairs=[PairBandwidth(pair=list(p), reference=v[0], bandwidth=v[1], relative=v[2],
                                                       aggregate=aggregates[p])
                                         for p, v in measured.items()],
                                  overhead=overhead.to_record(), scalability=scalability, outliers=outliers),
            units=UNITS, warnings=[*overhead.inconsistencies, *(w for w in (noise, uneven_cores_warning(uneven)) if w)])

    def summary(self, record: MemoryRecord) -> list:
        p, d = record.parameters, record.derived
        lines = [f"memory access on {record.node or '?'} (copy of {format_size(p.array_bytes)} arrays, "
                 f"{p.pair_mode} pairs, tolerance {p.tolerance})",
                 f"  one core alone: {gigabytes_per_second(d.overhead.reference)}"]
        if not d.overhead.levels:
            lines.append("  no pair of cores slows the other down")
        for i, lv in enumerate(d.overhead.levels, 1):
            together = "" if lv.aggregate is None else f", {gigabytes_per_second(lv.aggregate)} per pair together"
            lines.append(f"  overhead level {i}: {gigabytes_per_second(lv.bandwidth)} per core "
                         f"({100 * lv.relative:.0f}% of alone){together}, {len(lv.pairs)} pair(s), "
                         f"groups {groups_text(lv.groups)}")
        for sc in d.scalability:
            # All cores together is the aggregate; files from before it hold
            # only the sum of the cores' own rates, shown as that.
            old = any(x.aggregate is None for x in sc.points)
            what = "sum of per-core rates, no aggregate in this file" if old else "aggregate"
            points = "  ".join(f"{x.cores}: {x.per_core / 1e9:.1f}/{(x.total if old else x.all_cores) / 1e9:.1f}"
                               for x in sc.points)
            lines.append(f"  scalability, {sc.group} {groups_text([sc.cores])} (cores: GB/s per core/{what}): {points}")
        return lines

    def plot(self, record: MemoryRecord):
        return memory_figure(record)

    def meaning(self, record: MemoryRecord) -> list:
        return memory_meaning(record)

    def disagreements(self, record: MemoryRecord) -> list:
        return memory_disagreements(record)

    def headlines(self, record: MemoryRecord) -> list:
        return memory_headlines(record)

    def tidy(self, record: MemoryRecord) -> list:
        return memory_rows(record)


BENCHMARK: Benchmark = MemoryBenchmark()
