"""The `distance` and `network-access` benchmarks of the suite (every rank
takes part; the job must span at least two nodes)."""
from __future__ import annotations

from typing import Generic

import numpy as np

from .. import _estimate
from .._errors import Skipped
from .._format import format_size
from .._outliers import find_outliers
from .._protocol import Benchmark, Context, Job, R
from ..topology import Topology
from ._analysis import mapping_rule
from ._measure import check_nodes, check_size, distance_benchmark, network_access_benchmark, node_layout
from ._options import NetworkOptions
from ._plot import access_figure, distance_figure
from ._records import (
    AccessDerived,
    AccessParameters,
    AccessRecord,
    DistanceDerived,
    DistanceParameters,
    DistanceRecord,
    NetworkRaw,
    NetworkSharing,
)
from ._report import access_headlines, access_meaning, distance_headlines, distance_meaning
from ._tidy import access_rows, distance_rows

UNITS = {"bandwidth": "bytes/s (mean over the measuring ranks, median over iterations)", "size": "bytes",
         "samples": "s per iteration, ranks x iterations", "rat_dist": "reference / bandwidth",
         "rat_nc": "reference / bandwidth"}


def _samples(table: dict) -> NetworkRaw:
    return NetworkRaw(samples={str(k): np.asarray(v) for k, v in table.items()})


def _rate(bandwidth: dict, ratio: dict, key: int, width: int) -> str:
    """The bandwidth (MB/s) and ratio columns of a summary row."""
    return f"{bandwidth[str(key)] / 1e6:>10.1f} MB/s{ratio[str(key)]:>{width}.2f}"


def _sharing_line(sharing: NetworkSharing) -> str:
    """Which cores share a network access, and ratNC per group, in a line."""
    ratios = ", ".join(f"[{j}] {sharing.rat_nc[str(j)]:.2f}" for j in sharing.per_group)
    where = f"{len(sharing.groups)} {sharing.level} group(s)" if sharing.level != "node" else "the node"
    return f"  network access shared per {sharing.level} ({where}, {sharing.source}); ratNC per group: {ratios}"


def _by_str(table: dict) -> dict:
    return {str(k): v for k, v in table.items()}


class _NetworkBenchmark(Benchmark[NetworkOptions, R], Generic[R]):
    """What the two degradation benchmarks share: options, their check, and
    the shape of a run (the job's nodes, a measurement, a record)."""

    scope = "world"
    group = "distance and network-access benchmarks (jobs on several nodes)"
    options_type = NetworkOptions
    min_ranks = 2
    min_nodes = 2

    def resolve(self, options: NetworkOptions, topology: Topology, job: Job) -> NetworkOptions:
        check_size(options.size)
        if options.nodes is not None:
            check_nodes(options.nodes, job.nodes)
        return options

    def estimate(self, options: NetworkOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.fixed_seconds(self.name)

    def run(self, ctx: Context[NetworkOptions]) -> R:
        layout = node_layout(ctx.comm, ctx.topology)
        if len(layout) < 2:
            raise Skipped(f"network benchmarks need a job on at least 2 nodes; this one runs on {len(layout)} "
                          "(see docs/network.md for an emulated cluster on one machine)")
        return self.record_of(ctx.options, layout, self.measure(ctx, ctx.options))

    def measure(self, ctx: Context[NetworkOptions], o: NetworkOptions):
        raise NotImplementedError

    def record_of(self, o: NetworkOptions, layout: list, result) -> R:
        raise NotImplementedError

    def _record(self, parameters, derived, result, warnings=()) -> R:
        """This benchmark's record: its parameters and derived values, the
        raw seconds of every step, the units."""
        noise = derived.outliers.warning(self.name) if derived.outliers else None
        return self.record_type(name=self.name, parameters=parameters, raw=_samples(result.samples),
                                derived=derived, units=UNITS, warnings=list(warnings) + ([noise] if noise else []))


class DistanceBenchmark(_NetworkBenchmark[DistanceRecord]):
    """network bandwidth against distance between nodes, ratDist (Servet 3.0)

    One process per node; for every distance d all of them send to the node d
    further on at once, so the links are congested as in a real code
    (docs/network.md)."""

    name = "distance"
    record_type = DistanceRecord

    def measure(self, ctx: Context[NetworkOptions], o: NetworkOptions):
        return distance_benchmark(ctx.comm, o.nodes, o.size, o.rse, o.cap_s, ctx.topology, ctx.progress)

    def record_of(self, o: NetworkOptions, layout: list, result) -> DistanceRecord:
        parameters = DistanceParameters(nodes=result.nodes, nodes_in_job=len(layout), size=o.size, cap_s=o.cap_s,
                                        rse_target=o.rse,
                                        pattern="one process per node; every process p sends to (p + d) mod N "
                                                "at once",
                                        node_order=[n["host"] for n in layout[:result.nodes]])
        return self._record(parameters, DistanceDerived(nodes=result.nodes, size=result.size,
                                                        distances=result.distances,
                                                        bandwidth=_by_str(result.bandwidth),
                                                        rat_dist=_by_str(result.rat_dist),
                                                        outliers=find_outliers(result.samples.values())), result)

    def summary(self, record: DistanceRecord) -> list:
        d = record.derived
        return [f"network degradation with distance ({d.nodes} nodes, one process each, "
                f"{format_size(d.size)} messages, all sending at once)",
                f"  {'distance':>8}{'bandwidth':>14}{'ratDist':>9}",
                *(f"  {k:>8}{_rate(d.bandwidth, d.rat_dist, k, 9)}" for k in d.distances)]

    def plot(self, record: DistanceRecord):
        return distance_figure(record)

    def meaning(self, record: DistanceRecord) -> list:
        return distance_meaning(record)

    def headlines(self, record: DistanceRecord) -> list:
        return distance_headlines(record)

    def tidy(self, record: DistanceRecord) -> list:
        return distance_rows(record)


class NetworkAccessBenchmark(_NetworkBenchmark[AccessRecord]):
    """network bandwidth against processes per node, ratNC (Servet 3.0)

    2 x NC processes in all, k per node on 2NC / k nodes, each sending to
    the same process of the next node: how the network degrades as more
    processes of a node use it (docs/network.md)."""

    name = "network-access"
    record_type = AccessRecord

    def measure(self, ctx: Context[NetworkOptions], o: NetworkOptions):
        return network_access_benchmark(ctx.comm, o.size, o.rse, o.cap_s, ctx.topology, ctx.progress)

    def record_of(self, o: NetworkOptions, layout: list, result) -> AccessRecord:
        parameters = AccessParameters(nodes_in_job=len(layout), ranks_per_node=[len(n["ranks"]) for n in layout],
                                      size=o.size, cap_s=o.cap_s, rse_target=o.rse,
                                      pattern="k processes per node on 2NC/k nodes, each sends to the same-index "
                                              "process of the next node")
        derived = AccessDerived(total=result.total, size=result.size, per_node=result.per_node,
                                nodes_used=_by_str(result.nodes_used), bandwidth=_by_str(result.bandwidth),
                                rat_nc=_by_str(result.rat_nc), notes=result.notes,
                                mapping_rule=mapping_rule(result.rat_nc),
                                outliers=find_outliers(result.samples.values()), sharing=result.sharing)
        return self._record(parameters, derived, result, result.notes)

    def summary(self, record: AccessRecord) -> list:
        d = record.derived
        lines = [f"network degradation with processes per node ({d.total} processes, "
                 f"{format_size(d.size)} messages to the next node)",
                 f"  {'per node':>8}{'nodes':>7}{'bandwidth':>14}{'ratNC':>8}",
                 *(f"  {k:>8}{d.nodes_used[str(k)]:>7}{_rate(d.bandwidth, d.rat_nc, k, 8)}" for k in d.per_node)]
        if d.sharing is not None:
            lines.append(_sharing_line(d.sharing))
        rule = d.mapping_rule
        if rule.first_over_threshold:
            lines.append(f"  mapping rule: ratNC > {rule.threshold} from {rule.first_over_threshold} processes "
                         "per node: raise the weights of cores sharing the network")
        return lines

    def plot(self, record: AccessRecord):
        return access_figure(record)

    def meaning(self, record: AccessRecord) -> list:
        return access_meaning(record)

    def headlines(self, record: AccessRecord) -> list:
        return access_headlines(record)

    def tidy(self, record: AccessRecord) -> list:
        return access_rows(record)


DISTANCE_BENCHMARK: Benchmark = DistanceBenchmark()
ACCESS_BENCHMARK: Benchmark = NetworkAccessBenchmark()
