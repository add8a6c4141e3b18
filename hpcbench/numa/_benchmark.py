"""The `numa` benchmark of the suite: the NUMA local/remote matrix. For
every pair (cores of node i, memory of node j) the read bandwidth of node
i's cores together and the load latency of one of them, over a buffer bound
to node j with hwloc (docs/numa.md)."""
from __future__ import annotations

import dataclasses

from .. import _core, _estimate
from .._errors import Skipped
from .._outliers import find_outliers
from .._protocol import Benchmark, Context, Job
from ..topology import Topology
from ._analysis import analyze_numa, cell_figures
from ._distances import hwloc_distances
from ._measure import WINDOW_BYTES, chase_bytes, check_memory, check_numa, default_buffer_bytes, measure_plan
from ._options import NumaOptions
from ._plan import plan_numa
from ._plot import numa_figure
from ._records import NumaCell, NumaDerived, NumaParameters, NumaRaw, NumaRecord
from ._report import numa_disagreements, numa_headlines, numa_meaning, numa_summary
from ._tidy import numa_rows

UNITS = {"bandwidth": "bytes/s, all readers of the row together (bytes read over first start to last end)",
         "latency_ns": "ns per dependent load of one core", "bandwidth_ratio": "cell / the row's local cell",
         "latency_ratio": "cell / the row's local cell", "hwloc_ratio": "hwloc distance / the row's local distance",
         "local_bandwidth": "bytes/s", "local_latency_ns": "ns", "buffer_bytes": "bytes",
         "bytes_per_read": "bytes", "window_bytes": "bytes", "chase_bytes": "bytes"}
KERNEL = ("read: each core of the row reads its slice of the buffer once per repetition, widest loads; "
          "latency: one core chases p = *p through every 64-byte line of the buffer's first chase_bytes")
ISA_NAMES = {_core.ISA_SCALAR: "scalar", _core.ISA_SSE2: "sse2", _core.ISA_AVX2: "avx2",
             _core.ISA_AVX512: "avx512"}


class NumaBenchmark(Benchmark[NumaOptions, NumaRecord]):
    """NUMA local/remote matrix: read bandwidth and load latency of each node's cores on each node's memory

    For every pair (cores of NUMA node i, memory of NUMA node j), the cores
    of node i read a buffer bound to node j with hwloc, then one of them
    chases it; ratios remote/local per pair, hwloc's distances beside them
    (docs/numa.md). On a one-node machine, the one local figure."""

    name = "numa"
    scope = "node"
    group = "numa benchmark (NUMA local/remote matrix)"
    options_type = NumaOptions
    record_type = NumaRecord

    def resolve(self, options: NumaOptions, topology: Topology, job: Job) -> NumaOptions:
        plan = plan_numa(topology, options.nodes)
        size = default_buffer_bytes(topology, plan) if options.size is None else options.size
        check_memory(size, topology, plan)
        check_numa(size, plan.largest_team, options.repetitions, options.accesses, options.pages)
        return dataclasses.replace(options, size=size)

    def estimate(self, options: NumaOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.numa_seconds(options, topology)

    def run(self, ctx: Context[NumaOptions]) -> NumaRecord:
        o: NumaOptions = ctx.options
        plan = plan_numa(ctx.topology, o.nodes)
        size = o.size or default_buffer_bytes(ctx.topology, plan)
        chased = min(size, chase_bytes(ctx.topology))
        if not ctx.topology.is_this_system:
            raise Skipped("numa measures this machine's memory; the topology loaded is not this system's")
        samples = measure_plan(plan, size, chased, o.repetitions, o.accesses, o.pages, o.seed, ctx.progress)
        bandwidth, latency = {}, {}
        for cell, s in samples.items():
            bandwidth[cell], latency[cell] = cell_figures(s.bandwidth, s.latency_ns)
        a = analyze_numa(plan.cpu_nodes, plan.nodes, bandwidth, latency, hwloc_distances(ctx.topology))
        cells = [NumaCell(cpu_node=i, memory_node=j, readers=plan.readers[i], chaser=plan.chaser(i),
                          bytes_per_read=s.bytes_per_repetition, bandwidth=s.bandwidth, latency_ns=s.latency_ns,
                          strict=s.strict, location_chunks=s.location_chunks, misplaced_chunks=s.misplaced_chunks)
                 for (i, j), s in samples.items()]
        misplaced = sum(c.misplaced_chunks for c in cells)
        checked = all(c.location_chunks > 0 for c in cells)
        outliers = find_outliers([s.bandwidth for s in samples.values()], slower="lower")
        warnings = list(a.disagreements)
        if misplaced:
            warnings.append(f"numa: {misplaced} chunk(s) of the bound buffers had pages on another node than bound")
        if not checked:
            warnings.append("numa: hwloc cannot tell where pages are here; the binding was not checked")
        if noise := outliers.warning("numa", unit="bytes/s"):
            warnings.append(noise)
        first = next(iter(samples.values()))
        return NumaRecord(
            name=self.name,
            parameters=NumaParameters(nodes=plan.nodes, buffer_bytes=size, repetitions=o.repetitions,
                                      accesses=o.accesses, pages=o.pages, order="windowed",
                                      window_bytes=WINDOW_BYTES, isa=ISA_NAMES.get(first.isa, str(first.isa)),
                                      seed=o.seed, kernel=KERNEL, chase_bytes=chased),
            raw=NumaRaw(cells=cells),
            derived=NumaDerived(rows=a.rows, cols=a.cols, bandwidth=a.bandwidth, latency_ns=a.latency_ns,
                                bandwidth_ratio=a.bandwidth_ratio, latency_ratio=a.latency_ratio,
                                local_bandwidth=a.local_bandwidth, local_latency_ns=a.local_latency_ns,
                                worst_bandwidth_ratio=a.worst_bandwidth_ratio,
                                worst_latency_ratio=a.worst_latency_ratio, hwloc_ratio=a.hwloc_ratio,
                                pages_checked=checked, pages_misplaced=misplaced, outliers=outliers),
            units=UNITS, warnings=warnings)

    def summary(self, record: NumaRecord) -> list:
        return numa_summary(record)

    def plot(self, record: NumaRecord):
        return numa_figure(record)

    def meaning(self, record: NumaRecord) -> list:
        return numa_meaning(record)

    def disagreements(self, record: NumaRecord) -> list:
        return numa_disagreements(record)

    def headlines(self, record: NumaRecord) -> list:
        return numa_headlines(record)

    def tidy(self, record: NumaRecord) -> list:
        return numa_rows(record)


BENCHMARK: Benchmark = NumaBenchmark()
