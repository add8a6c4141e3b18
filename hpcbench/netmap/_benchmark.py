"""The `network-map` and `bisection` benchmarks of the suite (every rank
takes part; the map's members are the job's nodes, or its ranks)."""
from __future__ import annotations

import numpy as np

from .._errors import OptionError, Skipped
from .._protocol import Benchmark, Context, Job
from .._robust import FLOOR, K
from ..topology import Topology
from ._analysis import Finding, bandwidth, bisection_figures, median_cells, slow_links, slow_nodes
from ._measure import MapSamples, Members, measure_bisections, measure_map, members_of
from ._options import ALONE_UP_TO, BisectionOptions, NetworkMapOptions
from ._plot import bisection_figure, map_figure
from ._records import (
    BisectionDerived,
    BisectionParameters,
    BisectionRaw,
    BisectionRecord,
    MapDerived,
    MapParameters,
    MapRaw,
    NetworkMapRecord,
    SlowLink,
    SlowNode,
)
from ._report import (
    bisection_headlines,
    bisection_meaning,
    bisection_summary,
    map_headlines,
    map_meaning,
    map_summary,
)
from ._tidy import bisection_rows, map_rows

#: The fewest members a map needs: the rule judges a member against at least two others.
MIN_MEMBERS = 3
RULE = (f"out of line: beyond {K:g} scaled MADs of the median and {100 * FLOOR:.0f} % worse; nodes judged first by "
        "the median of their row and column, links without the slow nodes' cells")

MAP_UNITS = {"bandwidth_loaded": "s per message, [source][destination][iteration] (receiver's time)",
             "latency_loaded": "s, half a round trip of 8 B, [a][b][iteration]",
             "bandwidth_alone": "s per message, as bandwidth_loaded, one pair at a time",
             "latency_alone": "s, as latency_loaded, one pair at a time",
             "derived.bandwidth_*": "bytes/s", "derived.latency_*": "s", "size": "bytes"}
BISECTION_UNITS = {"seconds": "s per message, [bisection][flow][iteration]", "pair_bandwidth": "bytes/s",
                   "totals": "bytes/s", "size": "bytes"}


def check_members(unit: str, job: Job, prefix: str) -> int:
    """The members a job gives (its nodes or its ranks); OptionError on the
    unit when there are fewer than MIN_MEMBERS (the job's shape is known
    before anything is measured)."""
    members = job.nodes if unit == "node" else job.ranks
    if members < MIN_MEMBERS:
        hint = f" (--{prefix}-unit rank maps ranks instead)" if unit == "node" and job.ranks >= MIN_MEMBERS else ""
        raise OptionError("unit", f"{unit}: needs at least {MIN_MEMBERS} {unit}s to judge each against its peers; "
                                  f"this job has {members}{hint}")
    return members


def _members_or_skip(ctx: Context, unit: str, name: str) -> Members:
    members = members_of(ctx.comm, unit, ctx.topology)
    if len(members.ranks) < MIN_MEMBERS:
        where = (f"this job has {members.nodes} node(s)" if unit == "node" else
                 f"this job has {len(members.ranks)} rank(s)")
        raise Skipped(f"{name} needs at least {MIN_MEMBERS} {unit}s to judge each against its peers; {where} "
                      f"(--{'map' if name == 'network-map' else 'bisection'}-unit rank maps ranks instead)")
    return members


def _matrices(size: int, samples: MapSamples) -> dict:
    out = {"bandwidth_loaded": bandwidth(size, samples.bandwidth_loaded),
           "latency_loaded": median_cells(samples.latency_loaded)}
    if samples.bandwidth_alone is not None and samples.latency_alone is not None:
        out["bandwidth_alone"] = bandwidth(size, samples.bandwidth_alone)
        out["latency_alone"] = median_cells(samples.latency_alone)
    return out


def _node(f: Finding, labels: list[str]) -> SlowNode:
    d = f.deviation
    return SlowNode(node=labels[f.who[0]], matrix=f.matrix, value=d.value, median=d.median, spread=d.spread,
                    relative=d.relative, evidence=f.evidence(labels))


def _link(f: Finding, labels: list[str]) -> SlowLink:
    d = f.deviation
    return SlowLink(source=labels[f.who[0]], destination=labels[f.who[1]], matrix=f.matrix, value=d.value,
                    median=d.median, spread=d.spread, relative=d.relative, evidence=f.evidence(labels))


def map_record(name: str, o: NetworkMapOptions, labels: list[str], alone: bool,
               samples: MapSamples) -> NetworkMapRecord:
    """The record of measured samples: matrices, then slow nodes, then slow links."""
    matrices = _matrices(o.size, samples)
    nodes = slow_nodes(matrices)
    links = slow_links(matrices, {f.who[0] for f in nodes})
    parameters = MapParameters(members=labels, unit=o.unit, size=o.size, iterations=o.iterations,
                               latency_iterations=o.latency_iterations, alone=alone,
                               pattern="mpiGraph's shift: in step d every member sends to the one d further on")
    raw = MapRaw(bandwidth_loaded=samples.bandwidth_loaded, latency_loaded=samples.latency_loaded,
                 bandwidth_alone=samples.bandwidth_alone, latency_alone=samples.latency_alone,
                 rechecked=samples.rechecked or None)
    derived = MapDerived(bandwidth_loaded=matrices["bandwidth_loaded"], latency_loaded=matrices["latency_loaded"],
                         bandwidth_alone=matrices.get("bandwidth_alone"),
                         latency_alone=matrices.get("latency_alone"),
                         slow_nodes=[_node(f, labels) for f in nodes],
                         slow_links=[_link(f, labels) for f in links], rule=RULE)
    return NetworkMapRecord(name=name, parameters=parameters, raw=raw, derived=derived, units=MAP_UNITS)


class NetworkMapBenchmark(Benchmark[NetworkMapOptions, NetworkMapRecord]):
    """bandwidth and latency of every ordered pair of nodes, under load and alone; slow nodes and links

    mpiGraph's shift pattern (every node sending and receiving at once),
    then each pair alone; the slow nodes and links are named by a robust
    rule with their evidence (docs/network-map.md)."""

    name = "network-map"
    scope = "world"
    options_type = NetworkMapOptions
    record_type = NetworkMapRecord
    group = "network-map and bisection benchmarks (jobs on several nodes)"
    min_ranks = MIN_MEMBERS
    min_nodes = MIN_MEMBERS
    needs_ranks = MIN_MEMBERS

    def resolve(self, options: NetworkMapOptions, topology: Topology, job: Job) -> NetworkMapOptions:
        members = check_members(options.unit, job, "map")
        if options.alone == "yes" and members > 256:
            raise OptionError("alone", f"every pair alone is {members * (members - 1)} flows one after another; "
                                       f"at most 256 members, got {members}")
        return options

    def estimate(self, options: NetworkMapOptions, topology: Topology, job: Job = Job()) -> float:
        n = job.nodes if options.unit == "node" else job.ranks
        flows = (n - 1) * (1 + (n if self._alone(options, n) else 0))
        return 2.0 + flows * (options.iterations + 1) * max(options.size / 1e9, 20e-6) * 4

    @staticmethod
    def _alone(options: NetworkMapOptions, members: int) -> bool:
        return options.alone == "yes" or (options.alone == "auto" and members <= ALONE_UP_TO)

    def run(self, ctx: Context[NetworkMapOptions]) -> NetworkMapRecord:
        o = ctx.options
        members = _members_or_skip(ctx, o.unit, self.name)
        alone = self._alone(o, len(members.ranks))
        samples = measure_map(ctx.comm, members, o.size, o.iterations, o.latency_iterations, alone, ctx.progress)
        return map_record(self.name, o, members.labels, alone, samples)

    def summary(self, record: NetworkMapRecord) -> list:
        return map_summary(record)

    def plot(self, record: NetworkMapRecord):
        return map_figure(record)

    def meaning(self, record: NetworkMapRecord) -> list:
        return map_meaning(record)

    def headlines(self, record: NetworkMapRecord) -> list:
        return map_headlines(record)

    def tidy(self, record: NetworkMapRecord) -> list:
        return map_rows(record)


def bisection_record(name: str, o: BisectionOptions, labels: list[str], pairs: list,
                     seconds: np.ndarray) -> BisectionRecord:
    figures = bisection_figures(o.size, seconds)
    totals = figures.totals
    parameters = BisectionParameters(members=labels, unit=o.unit, size=o.size, bisections=o.bisections,
                                     iterations=o.iterations, seed=o.seed,
                                     pattern="random halves paired, every pair exchanging both ways at once")
    derived = BisectionDerived(pair_bandwidth=figures.median, mean=figures.mean, quartiles=list(figures.quartiles),
                               worst=figures.worst, pair_samples=figures.flows.tolist(), totals=totals.tolist(),
                               total_median=float(np.median(totals)), total_worst=float(np.min(totals)))
    raw = BisectionRaw(pairs=[[list(pair) for pair in bisection] for bisection in pairs], seconds=seconds)
    return BisectionRecord(name=name, parameters=parameters, raw=raw, derived=derived, units=BISECTION_UNITS)


class BisectionBenchmark(Benchmark[BisectionOptions, BisectionRecord]):
    """effective bisection bandwidth over random bisections, with its distribution (Netgauge)

    The nodes shuffled and split in two halves, each node paired with one of
    the other half, every pair exchanging both ways at once; repeated over
    random bisections (docs/network-map.md)."""

    name = "bisection"
    scope = "world"
    options_type = BisectionOptions
    record_type = BisectionRecord
    group = "network-map and bisection benchmarks (jobs on several nodes)"
    min_ranks = MIN_MEMBERS
    min_nodes = MIN_MEMBERS
    needs_ranks = MIN_MEMBERS

    def resolve(self, options: BisectionOptions, topology: Topology, job: Job) -> BisectionOptions:
        check_members(options.unit, job, "bisection")
        return options

    def estimate(self, options: BisectionOptions, topology: Topology, job: Job = Job()) -> float:
        return 1.0 + options.bisections * (options.iterations + 1) * max(options.size / 1e9, 20e-6) * 4

    def run(self, ctx: Context[BisectionOptions]) -> BisectionRecord:
        o = ctx.options
        members = _members_or_skip(ctx, o.unit, self.name)
        samples = measure_bisections(ctx.comm, members, o.size, o.bisections, o.iterations, o.seed, ctx.progress)
        return bisection_record(self.name, o, members.labels, samples.pairs, samples.seconds)

    def summary(self, record: BisectionRecord) -> list:
        return bisection_summary(record)

    def plot(self, record: BisectionRecord):
        return bisection_figure(record)

    def meaning(self, record: BisectionRecord) -> list:
        return bisection_meaning(record)

    def headlines(self, record: BisectionRecord) -> list:
        return bisection_headlines(record)

    def tidy(self, record: BisectionRecord) -> list:
        return bisection_rows(record)


NETWORK_MAP_BENCHMARK: Benchmark = NetworkMapBenchmark()
BISECTION_BENCHMARK: Benchmark = BisectionBenchmark()
