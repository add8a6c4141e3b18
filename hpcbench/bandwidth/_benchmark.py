"""The `bandwidth` benchmark of the suite: likwid-bench's kernel catalogue
(load, store, copy, update, triad, stream triad, and non-temporal stores)
on one core per cache level and memory, and on all cores for memory."""
from __future__ import annotations

import dataclasses

from .. import _estimate
from .._errors import OptionError
from .._format import format_size, groups_text
from .._protocol import Benchmark, Context, Job
from ..topology import Topology
from ._analysis import spread_warning, summarize_run, table
from ._kernels import KERNELS, SHORT_KERNELS, Kernel, choose_isas, choose_kernels, runs_on
from ._measure import check_kernel, check_memory, run_kernel
from ._options import BandwidthOptions
from ._plan import default_team, plan_levels
from ._plot import bandwidth_figure
from ._records import BandwidthDerived, BandwidthParameters, BandwidthRaw, BandwidthRecord, LevelRecord
from ._report import bandwidth_disagreements, bandwidth_headlines, bandwidth_meaning
from ._tidy import bandwidth_rows

UNITS = {"bandwidth": "bytes/s, loads + stores (likwid-bench's data volume) of all cores over the first start "
         "to the last end", "best": "bytes/s, the best sample", "write_allocate": "bytes/s the stores also read "
         "(write-allocate), not in bandwidth", "size": "bytes per core, all arrays", "working_set": "bytes per core",
         "array_bytes": "bytes", "team_size": "bytes per core", "min_bytes": "bytes",
         "bytes_per_sample": "bytes per core", "start_ns": "ns after the run's first start",
         "end_ns": "ns after the run's first start"}
COUNTING = ("likwid-bench's data volume: bytes loaded + bytes stored; write-allocate reads of ordinary stores "
            "not counted (write_allocate beside it)")


def check_team(topology: Topology, cores: list[int]) -> list[int]:
    """PUs this process may use, each once; OptionError naming "cores"."""
    allowed = set(topology.pu_indexes)
    bad = [p for p in cores if p not in allowed]
    if bad or len(set(cores)) != len(cores) or not cores:
        raise OptionError("cores", f"must be distinct PUs this process may use ({groups_text([sorted(allowed)])}), "
                          f"got {cores}")
    return list(cores)


class BandwidthBenchmark(Benchmark[BandwidthOptions, BandwidthRecord]):
    """load, store, copy, update and triad bandwidth per cache level and memory (likwid-bench's kernels)

    One core runs each kernel over a working set inside each cache level
    hwloc reports and one in memory, with each instruction set the CPU has;
    all cores run memory together (docs/bandwidth.md)."""

    name = "bandwidth"
    scope = "node"
    options_type = BandwidthOptions
    record_type = BandwidthRecord

    def unnamed_options(self, options: BandwidthOptions) -> BandwidthOptions:
        """A run that names no benchmark: four kernels, the widest ISA."""
        return dataclasses.replace(options, kernels=options.kernels or list(SHORT_KERNELS),
                                   isas=options.isas or ["auto"])

    def resolve(self, options: BandwidthOptions, topology: Topology, job: Job) -> BandwidthOptions:
        kernels = choose_kernels(options.kernels, everything=True)
        isas = choose_isas(options.isas, everything=True)
        team = check_team(topology, default_team(topology, options.cores))
        levels, team_size = plan_levels(options, topology, team)
        sizes = [lv.size for lv in levels]
        check_memory(sizes, 1)
        if team_size:
            check_memory([team_size], len(team), "cores")
        for kernel in kernels:
            if not any(runs_on(kernel, isa) for isa in isas):
                raise OptionError("kernels", f"must each have a loop in the instruction sets chosen "
                                  f"({', '.join(isas)}): {kernel.name}'s non-temporal stores need sse2 or wider")
            for isa in isas:
                if runs_on(kernel, isa):
                    check_kernel(kernel, sizes + ([team_size] if team_size else []), isa, options.min_bytes,
                                 options.samples, options.pages)
        return dataclasses.replace(options, kernels=[k.name for k in kernels], isas=isas, cores=team)

    def estimate(self, options: BandwidthOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.bandwidth_seconds(options, topology)

    def run(self, ctx: Context[BandwidthOptions]) -> BandwidthRecord:
        o = ctx.options
        kernels = choose_kernels(o.kernels, everything=True)
        isas = choose_isas(o.isas, everything=True)
        team = default_team(ctx.topology, o.cores)
        levels, team_size = plan_levels(o, ctx.topology, team)
        raw, results = [], []
        for kernel in kernels:
            own = [i for i in isas if runs_on(kernel, i)]
            for isa in own:
                ctx.progress(f"bandwidth: {kernel.name} ({isa}) on PU {team[0]}, {len(levels)} working set(s)")
                run = run_kernel(kernel, team[:1], [lv.size for lv in levels], isa, o.min_bytes, o.samples,
                                 o.warmup, o.pages)
                got = summarize_run(run, [lv.label for lv in levels])
                raw += got[0]
                results += got[1]
            if team_size and own:
                raw, results = self._team_run(ctx, kernel, own[0], team, team_size, raw, results)
        return BandwidthRecord(
            name=self.name,
            parameters=BandwidthParameters(kernels=[k.name for k in kernels], isas=isas,
                                           levels=[LevelRecord(label=lv.label, size=lv.size) for lv in levels],
                                           pu=team[0], team=team, team_size=team_size, samples=o.samples,
                                           min_bytes=o.min_bytes, warmup=o.warmup, pages=o.pages,
                                           counting=COUNTING),
            raw=BandwidthRaw(runs=raw), derived=BandwidthDerived(results=results), units=UNITS,
            warnings=[w for w in (spread_warning(results),) if w])

    @staticmethod
    def _team_run(ctx: Context[BandwidthOptions], kernel: Kernel, isa: str, team: list[int], size: int,
                  raw: list, results: list) -> tuple[list, list]:
        """The memory working set shared out over the whole team, at once."""
        o = ctx.options
        ctx.progress(f"bandwidth: {kernel.name} ({isa}) on {len(team)} cores, memory")
        run = run_kernel(kernel, team, [size], isa, o.min_bytes, o.samples, o.warmup, o.pages)
        got = summarize_run(run, ["memory"])
        return raw + got[0], results + got[1]

    def summary(self, record: BandwidthRecord) -> list:
        p = record.parameters
        columns, rows = table(record.derived.results)
        sizes = {lv.label: lv.size for lv in p.levels}
        heads = [f"{label} x{cores} cores" if cores > 1 else label if label not in sizes or
                 label == format_size(sizes[label]) else f"{label} {format_size(sizes[label])}"
                 for label, cores in columns]
        width = max([len("kernel (isa)")] + [len(f"{k} ({i})") for k, i in rows]) + 2
        lines = [f"bandwidth on {record.node or '?'} (GB/s; PU {p.pu} alone, memory also on PUs "
                 f"{groups_text([p.team])} together; counted as likwid-bench: loads + stores)" if p.team_size
                 else f"bandwidth on {record.node or '?'} (GB/s; PU {p.pu}; counted as likwid-bench: loads + stores)",
                 "  " + "kernel (isa)".ljust(width) + "".join(h.rjust(max(len(h), 8) + 2) for h in heads)]
        for (kernel, isa), cells in rows.items():
            values = [cells.get(c) for c in columns]
            lines.append("  " + f"{kernel} ({isa})".ljust(width) + "".join(
                ("-" if v is None else f"{v / 1e9:.1f}").rjust(max(len(h), 8) + 2) for h, v in zip(heads, values)))
        written = [n for n in p.kernels if n in KERNELS and KERNELS[n].writes and not KERNELS[n].nontemporal
                   and n != "update"]
        if written:
            lines.append(f"  not counted: the write-allocate reads of {', '.join(written)} (see write_allocate; "
                         "the _nt kernels skip them)")
        return lines

    def plot(self, record: BandwidthRecord):
        return bandwidth_figure(record)

    def meaning(self, record: BandwidthRecord) -> list:
        return bandwidth_meaning(record)

    def disagreements(self, record: BandwidthRecord) -> list:
        return bandwidth_disagreements(record)

    def headlines(self, record: BandwidthRecord) -> list:
        return bandwidth_headlines(record)

    def tidy(self, record: BandwidthRecord) -> list:
        return bandwidth_rows(record)


BENCHMARK: Benchmark = BandwidthBenchmark()
