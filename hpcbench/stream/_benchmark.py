"""The `stream` benchmark of the suite: STREAM's four kernels (Copy, Scale,
Add, Triad) on one core, on one of each domain cores share, and on every
core of the node; Triad on all cores is the node's headline."""
from __future__ import annotations

import dataclasses

from .. import _estimate
from .._format import format_size, groups_text
from .._outliers import find_outliers
from .._protocol import Benchmark, Context, Job
from ..memory._measure import default_array_bytes
from ..topology import Topology
from ._analysis import node_triad, spans_ns, team_rates
from ._counting import KERNELS
from ._measure import WARMUP, check_array_bytes, check_stream, choose_isa, stream_run, supported_isas
from ._options import StreamOptions
from ._plan import plan_teams
from ._plot import stream_figure
from ._records import StreamDerived, StreamParameters, StreamRaw, StreamRecord, TeamRates, TeamSamples
from ._report import stream_headlines, stream_machine_figures, stream_meaning
from ._tidy import stream_rows

#: The scalar s of Scale and Triad (the C kernel's HPCB_STREAM_SCALAR, sqrt(2) - 1: see csrc/kernels/stream.h).
SCALAR = 2 ** 0.5 - 1
UNITS = {"best": "bytes/s of the team (STREAM's count)", "median": "bytes/s of the team",
         "worst": "bytes/s of the team", "best_with_write_allocate": "bytes/s, write-allocate reads counted too",
         "bytes": "bytes per member and run (STREAM's count)", "write_allocate_bytes": "bytes per member and run",
         "min_ns": "ns", "median_ns": "ns", "max_ns": "ns", "triad": "bytes/s of all cores",
         "start_ns": "ns after the run's first start", "end_ns": "ns after the run's first start",
         "array_bytes": "bytes"}


class StreamBenchmark(Benchmark[StreamOptions, StreamRecord]):
    """STREAM's Copy, Scale, Add and Triad per core count (Triad at all cores: the node's headline)

    The four kernels of STREAM on one core, on the cores of each domain
    they share (a cache, a NUMA node, a package) and on all cores, counted
    as STREAM counts bytes, with the write-allocate traffic beside
    (docs/stream.md)."""

    name = "stream"
    scope = "node"
    options_type = StreamOptions
    record_type = StreamRecord

    def resolve(self, options: StreamOptions, topology: Topology, job: Job) -> StreamOptions:
        size = default_array_bytes(topology) if options.size is None else options.size
        isa = choose_isa(options.isa, supported_isas())
        check_stream(size, options.repetitions, isa, options.stores, options.pages)
        teams = plan_teams(topology, options.cores)
        check_array_bytes(size, len(teams[-1].pus))
        return dataclasses.replace(options, size=size)

    def estimate(self, options: StreamOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.stream_seconds(options, topology)

    def run(self, ctx: Context[StreamOptions]) -> StreamRecord:
        o: StreamOptions = ctx.options
        teams = plan_teams(ctx.topology, o.cores)
        size = check_array_bytes(o.size or default_array_bytes(ctx.topology), len(teams[-1].pus))
        isa = choose_isa(o.isa, supported_isas())
        raw, rates, used = [], [], isa
        for team in teams:
            ctx.progress(f"stream: {team.group} ({len(team.pus)} core(s))")
            run = stream_run(team.pus, size, o.repetitions, isa, o.stores, o.pages)
            used = run.isa
            raw.append(TeamSamples(group=team.group, pus=list(team.pus), start_ns=run.start_ns, end_ns=run.end_ns))
            rates.append(team_rates(team.group, list(team.pus), size, o.stores, run.start_ns, run.end_ns))
        outliers = find_outliers([spans_ns(t.start_ns, t.end_ns)[:, k] for t in raw for k in range(len(KERNELS))])
        noise = outliers.warning("stream")
        return StreamRecord(
            name=self.name,
            parameters=StreamParameters(pus=sorted(teams[-1].pus),
                                        array_bytes=size, repetitions=o.repetitions, warmup=WARMUP, isa=o.isa,
                                        isa_used=used, stores=o.stores, pages=o.pages, scalar=SCALAR),
            raw=StreamRaw(teams=raw),
            derived=StreamDerived(teams=rates, triad=node_triad(rates), outliers=outliers),
            units=UNITS, warnings=[noise] if noise else [])

    def summary(self, record: StreamRecord) -> list:
        p, d = record.parameters, record.derived
        lines = [f"STREAM on {record.node or '?'} ({format_size(p.array_bytes)} arrays x3 per core, "
                 f"{p.isa_used} loads and {p.stores} stores, best of {p.repetitions} repetitions)"]
        for team in d.teams:
            lines += team_table(team, p.stores)
        if d.triad is not None:
            lines.append(f"  Triad, all {len(d.teams[-1].pus)} core(s): {d.triad / 1e9:.1f} GB/s (the node's headline)")
        return lines

    def plot(self, record: StreamRecord):
        return stream_figure(record)

    def meaning(self, record: StreamRecord) -> list:
        return stream_meaning(record)

    def headlines(self, record: StreamRecord) -> list:
        return stream_headlines(record)

    def machine_figures(self, record: StreamRecord) -> list:
        return stream_machine_figures(record)

    def tidy(self, record: StreamRecord) -> list:
        return stream_rows(record)


def team_table(team: TeamRates, stores: str) -> list:
    """STREAM's table for one team (GB/s = 1e9 bytes/s, times in s), with
    the median and worst rates and the rate counting write-allocate reads."""
    wa = "with write-allocate" if stores == "ordinary" else "(no write-allocate)"
    lines = [f"  {team.group} {groups_text([team.pus])}:",
             f"    {'Function':<9}{'Best GB/s':>10}{'Median':>9}{'Worst':>9}{'Min time':>11}{'Max time':>11}"
             f"  {wa}"]
    for k in team.kernels:
        lines.append(f"    {k.kernel.capitalize() + ':':<9}{k.best / 1e9:>10.1f}{k.median / 1e9:>9.1f}"
                     f"{k.worst / 1e9:>9.1f}{k.min_ns * 1e-9:>11.6f}{k.max_ns * 1e-9:>11.6f}"
                     f"  {k.best_with_write_allocate / 1e9:.1f}")
    return lines


BENCHMARK: Benchmark = StreamBenchmark()
