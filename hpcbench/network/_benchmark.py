"""The `distance` and `network-access` benchmarks of the suite (every rank
takes part; the job must span at least two nodes)."""
from __future__ import annotations

import math

import numpy as np

from .._errors import OptionError, Skipped
from .._format import format_size
from .._protocol import Benchmark, Context, Job
from ..topology import Topology
from ._analysis import mapping_rule
from ._measure import check_nodes, check_size, distance_benchmark, network_access_benchmark, node_layout
from ._options import NetworkOptions
from ._plot import access_figure, distance_figure
from ._records import (AccessDerived, AccessParameters, AccessRecord, DistanceDerived, DistanceParameters,
                       DistanceRecord, NetworkRaw)

UNITS = {"bandwidth": "bytes/s (mean over the measuring ranks, median over iterations)", "size": "bytes",
         "samples": "s per iteration, ranks x iterations", "rat_dist": "reference / bandwidth",
         "rat_nc": "reference / bandwidth"}


def _layout_or_skip(comm, topology):
    layout = node_layout(comm, topology)
    if len(layout) < 2:
        raise Skipped(f"network benchmarks need a job on at least 2 nodes; this one runs on {len(layout)} "
                      "(see docs/network.md for an emulated cluster on one machine)")
    return layout


def _samples(table: dict) -> NetworkRaw:
    return NetworkRaw(samples={str(k): np.asarray(v) for k, v in table.items()})


def _by_str(table: dict) -> dict:
    return {str(k): v for k, v in table.items()}


class _NetworkBenchmark(Benchmark):
    """What the two degradation benchmarks share: options and their check."""
    scope = "world"
    group = "distance and network-access benchmarks (jobs on several nodes)"
    options_type = NetworkOptions
    min_ranks = 2
    min_nodes = 2

    def check(self, options: NetworkOptions, topology: Topology, job: Job = Job()) -> NetworkOptions:
        check_size(options.size)
        if options.nodes is not None:
            check_nodes(options.nodes, job.nodes)
        if not 0 < options.cap_s <= 600 or not math.isfinite(options.cap_s):
            raise OptionError("cap_s", f"must be in (0, 600] seconds, got {options.cap_s}")
        return options


class DistanceBenchmark(_NetworkBenchmark):
    name = "distance"
    title = "network bandwidth against distance between nodes, ratDist (Servet 3.0)"
    record_type = DistanceRecord

    def run(self, ctx: Context) -> DistanceRecord:
        o: NetworkOptions = ctx.options
        layout = _layout_or_skip(ctx.comm, ctx.topology)
        result = distance_benchmark(ctx.comm, o.nodes, o.size, o.rse, o.cap_s, ctx.topology, ctx.progress)
        return DistanceRecord(
            name=self.name,
            parameters=DistanceParameters(nodes=result.nodes, nodes_in_job=len(layout), size=o.size, cap_s=o.cap_s,
                                          rse_target=o.rse,
                                          pattern="one process per node; every process p sends to (p + d) mod N "
                                                  "at once",
                                          node_order=[n["host"] for n in layout[:result.nodes]]),
            raw=_samples(result.samples),
            derived=DistanceDerived(nodes=result.nodes, size=result.size, distances=result.distances,
                                    bandwidth=_by_str(result.bandwidth), rat_dist=_by_str(result.rat_dist)),
            units=UNITS, warnings=[])

    def summary(self, record: DistanceRecord) -> list:
        d = record.derived
        lines = [f"network degradation with distance ({d.nodes} nodes, one process each, "
                 f"{format_size(d.size)} messages, all sending at once)",
                 f"  {'distance':>8}{'bandwidth':>14}{'ratDist':>9}"]
        for dist in d.distances:
            lines.append(f"  {dist:>8}{d.bandwidth[str(dist)] / 1e6:>10.1f} MB/s{d.rat_dist[str(dist)]:>9.2f}")
        return lines

    def plot(self, record: DistanceRecord):
        return distance_figure(record)


class NetworkAccessBenchmark(_NetworkBenchmark):
    name = "network-access"
    title = "network bandwidth against processes per node, ratNC (Servet 3.0)"
    record_type = AccessRecord

    def run(self, ctx: Context) -> AccessRecord:
        o: NetworkOptions = ctx.options
        layout = _layout_or_skip(ctx.comm, ctx.topology)
        result = network_access_benchmark(ctx.comm, o.size, o.rse, o.cap_s, ctx.topology, ctx.progress)
        return AccessRecord(
            name=self.name,
            parameters=AccessParameters(nodes_in_job=len(layout), ranks_per_node=[len(n["ranks"]) for n in layout],
                                        size=o.size, cap_s=o.cap_s, rse_target=o.rse,
                                        pattern="k processes per node on 2NC/k nodes, each sends to the same-index "
                                                "process of the next node"),
            raw=_samples(result.samples),
            derived=AccessDerived(total=result.total, size=result.size, per_node=result.per_node,
                                  nodes_used=_by_str(result.nodes_used), bandwidth=_by_str(result.bandwidth),
                                  rat_nc=_by_str(result.rat_nc), notes=result.notes,
                                  mapping_rule=mapping_rule(result.rat_nc)),
            units=UNITS, warnings=list(result.notes))

    def summary(self, record: AccessRecord) -> list:
        d = record.derived
        lines = [f"network degradation with processes per node ({d.total} processes, "
                 f"{format_size(d.size)} messages to the next node)",
                 f"  {'per node':>8}{'nodes':>7}{'bandwidth':>14}{'ratNC':>8}"]
        for k in d.per_node:
            lines.append(f"  {k:>8}{d.nodes_used[str(k)]:>7}{d.bandwidth[str(k)] / 1e6:>10.1f} MB/s"
                         f"{d.rat_nc[str(k)]:>8.2f}")
        rule = d.mapping_rule
        if rule.first_over_threshold:
            lines.append(f"  mapping rule: ratNC > {rule.threshold} from {rule.first_over_threshold} processes "
                         "per node: raise the weights of cores sharing the network")
        return lines

    def plot(self, record: AccessRecord):
        return access_figure(record)
