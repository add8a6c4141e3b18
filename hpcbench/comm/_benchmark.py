"""The `comm` benchmark of the suite: every rank of COMM_WORLD takes part.

Order: echo (ping-pong) over all sizes, regionalised fit, extra sizes around
each detected protocol change; pairwise exchange; broadcast; global sum;
barrier; DAXPY rate; overlap (flagged cells measured again); with 4 ranks or
more the collectives against the number of processes, echo with contention
on ranks chosen from the placement, and echo over hops; Servet's
communication layers (auto or all pairs). Every part is collective;
measurements are broadcast, so every rank computes the same derived values.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import _estimate
from .._errors import OptionError, Skipped
from .._format import format_size
from .._memory import safe_memory_limit
from .._outliers import find_outliers
from .._protocol import Benchmark, Context, Job
from .._record import to_plain
from ..topology import Topology
from . import _kernels as kernels
from ._contention import contention_study
from ._kernels import BarrierTimes, DaxpyRate
from ._layers import LayerSettings, LayerSurvey, gather_placement, survey_layers
from ._mesh import hop_node, make_mesh, max_hops
from ._models import bandwidth_thresholds, hockney_fit, hop_fit, refinement_sizes, regional_fit, vector_rate
from ._options import CommOptions
from ._overlap import OverlapGrid, overlap
from ._plot import comm_figure
from ._records import (
    BarrierStats,
    CommDerived,
    CommParameters,
    CommRaw,
    CommRecord,
    ContentionRecord,
    DaxpyFit,
    HopPoint,
    HopsRecord,
    LayerPlanRecord,
    LayerSamples,
    MeshRecord,
    OverlapRecord,
    PairLatency,
    Placement,
    ScalingRecord,
    SweepFit,
    SweepSamples,
)
from ._report import comm_disagreements, comm_failed_fits, comm_headlines, comm_machine_figures, comm_meaning
from ._scaling import measure_scaling, scaling_record
from ._summary import comm_summary
from ._sweep import SizeSweep, message_sizes, ns_samples
from ._tidy import comm_rows

UNITS = {"sizes": "bytes", "samples": "ns (rounded to 0.1 ns)", "median": "s", "minimum": "s", "p10": "s",
         "p90": "s", "p99": "s", "bandwidth": "bytes/s", "latency": "s", "seconds_per_byte": "s/byte",
         "rank_average": "s", "flops": "flop/s", "r_inf": "flop/s", "n_half": "doubles", "per_hop": "s",
         "overlap_percent": "%", "saved": "s", "load_bandwidth": "bytes/s", "slowdown": "x"}
HOP_SIZES = [0, 1024, 16384, 262144]
#: The largest message the benchmark sweeps to (bytes).
MAX_MESSAGE = 1 << 30


def sweep_fit(sweep) -> SweepFit:
    """The summary, regional and Hockney fits and bandwidth thresholds of a sweep."""
    sizes, median = sweep.sizes, np.maximum(sweep.median, 1e-12)
    fit = SweepFit(summary=sweep.summary(), regions=[r.to_record() for r in regional_fit(sizes, median)],
                   hockney=hockney_fit(sizes, median).to_record(), outliers=find_outliers(sweep.samples))
    if np.count_nonzero(sizes) >= 2:
        thresholds = bandwidth_thresholds(sizes, median)
        fit.peak_bandwidth, fit.n_half, fit.n_90 = thresholds["peak"], thresholds[0.5], thresholds[0.9]
    return fit


def _probe_size(topology: Topology) -> int:
    l1 = [c.size for c in topology.caches if c.level == 1 and c.kind != "instruction"]
    return int(l1[0]) if l1 else 32768


def _daxpy_fit(daxpy, topology: Topology) -> DaxpyFit:
    """r_inf and n_1/2 from the lengths whose two vectors fit in the L2 (the
    vector-pipe regime Hockney's model describes); the rate per length too."""
    l2 = [c.size for c in topology.caches if c.level == 2 and c.kind != "instruction"]
    fits = daxpy.lengths * 16 <= (l2[0] if l2 else 1 << 20)
    keep = fits if np.count_nonzero(fits) >= 3 else np.ones_like(fits)
    rate = vector_rate(daxpy.lengths[keep], daxpy.median[keep])
    return DaxpyFit(lengths=daxpy.lengths.tolist(), median=daxpy.median.tolist(), flops=daxpy.flops.tolist(),
                    fit_lengths=daxpy.lengths[keep].tolist(), r_inf=rate.r_inf, n_half=rate.n_half,
                    fit=rate.fit.to_record(), outliers=find_outliers(daxpy.samples))


def _hops(comm, rse: float, cap_s: float) -> tuple:
    """Echo from rank 0 to the rank n hops away in a hypercube numbering."""
    size = comm.Get_size()
    points: list = []
    raw = []
    for n in range(1, max_hops(size) + 1):
        peer = hop_node(0, n, size)
        if peer is None:          # n hops away lies outside the job
            break
        sweep = kernels.pingpong(comm, HOP_SIZES, peer=peer, test_rank=0, rse=rse, cap_s=cap_s)
        raw.append({"hops": n, "peer": peer, **to_plain(sweep.to_samples())})
        points.extend(HopPoint(size=int(s), hops=n, median=float(t)) for s, t in zip(sweep.sizes, sweep.median))
    derived = HopsRecord(points=points)
    if len({p.hops for p in points}) >= 2:
        sizes, hops, times = (np.array(v, dtype=float) for v in zip(*((p.size, p.hops, p.median) for p in points)))
        derived.model = hop_fit(sizes, hops, np.maximum(times, 1e-12)).to_record()
    return raw, derived


def _overlap_record(grid: OverlapGrid) -> OverlapRecord:
    def table(values) -> list:
        return [[None if not np.isfinite(v) else float(v) for v in row] for row in values]
    return OverlapRecord(vector_lengths=grid.vector_lengths.tolist(), sizes=grid.sizes.tolist(),
                         median={m: t.tolist() for m, t in grid.times.items()}, saved=grid.saved.tolist(),
                         overlap_percent=grid.overlap_percent.tolist(),
                         outliers=find_outliers(cell for rows in grid.samples.values() for row in rows
                                                for cell in row),
                         rse={m: table(v) for m, v in grid.rse.items()}, flags=grid.flags,
                         repeated=[[r["vector_length"], r["size"]] for r in grid.repeated])


def _overlap_raw(grid: OverlapGrid) -> dict:
    """Every sample of the grid (ns), and the first measurement of each
    cell that was measured again, with the flags it had."""
    return {"vector_lengths": grid.vector_lengths, "sizes": grid.sizes, "interleaved": True,
            "samples": {m: [ns_samples(row) for row in rows] for m, rows in grid.samples.items()},
            "repeated": [{"vector_length": r["vector_length"], "size": r["size"],
                          "samples": {m: ns_samples([v])[0] for m, v in r["samples"].items()},
                          "flags": [to_plain(f) for f in r["flags"]]} for r in grid.repeated]}


def _flag_warnings(overlap: OverlapRecord) -> list:
    if not overlap.flags:
        return []
    return [f"comm overlap: {len(overlap.flags)} result(s) cannot be right even after measuring the cell again "
            f"(flagged in the record; show names the likely cause)"]


def _outlier_warnings(fits: dict, bar, daxpy: DaxpyFit, overlap: OverlapRecord, layers: list) -> list:
    """A stalled rank or a noisy machine, said once per kernel and layer."""
    reports = [(name, fit.outliers) for name, fit in fits.items()] + [("barrier", find_outliers([bar.samples]))]
    reports += [("DAXPY", daxpy.outliers), ("overlap", overlap.outliers)]
    reports += [(f"layer '{layer.name}'", find_outliers(layer.sweep.samples)) for layer in layers if layer.sweep]
    return [w for name, report in reports if report and (w := report.warning(f"comm {name}"))]


@dataclass
class _Sweeps:
    """The size sweeps of echo (refined around protocol changes), exchange,
    broadcast and global sum: the echo sweep itself (the layers reuse it),
    each kernel's fits and raw samples by name."""

    echo: SizeSweep
    fits: dict[str, SweepFit]
    samples: dict[str, SweepSamples]


@dataclass
class _ManyRanks:
    """What needs 4 ranks or more (None below that, with a note saying so):
    collectives against the number of processes, echo with contention,
    echo over hops; each as (raw samples, derived record)."""

    raw_scaling: dict | None = None
    scaling: ScalingRecord | None = None
    raw_contention: dict | None = None
    contention: ContentionRecord | None = None
    raw_hops: list | None = None
    hops: HopsRecord | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class _Measured:
    """Everything run measured, in the order it measured it."""

    probe: int                   #: bytes, the layers' probe size
    placement: list[Placement]
    sweeps: _Sweeps
    bar: BarrierTimes
    daxpy: DaxpyRate
    grid: OverlapGrid
    many: _ManyRanks
    survey: LayerSurvey


def _measure_sweeps(comm, sizes: np.ndarray, o: CommOptions, say: Callable[[str], None]) -> _Sweeps:
    """Echo over all sizes, then extra sizes around each protocol change the
    regional fit finds; exchange, broadcast and global sum."""
    echo = kernels.pingpong(comm, sizes, rse=o.rse, cap_s=o.cap_s)
    extra = refinement_sizes(echo.sizes, regional_fit(echo.sizes, np.maximum(echo.median, 1e-12)))
    if extra.size:
        echo = echo.merged(kernels.pingpong(comm, extra, rse=o.rse, cap_s=o.cap_s))
    sweeps = _Sweeps(echo, {"echo": sweep_fit(echo)}, {"echo": echo.to_samples()})
    sweeps.fits["echo"].refined_sizes = extra.tolist()
    say(f"comm: echo over {echo.sizes.size} sizes ({extra.size} added around protocol changes)")
    lengths = np.unique(sizes // 8)
    for name, measure in (("exchange", lambda: kernels.exchange(comm, sizes, rse=o.rse, cap_s=o.cap_s)),
                          ("broadcast", lambda: kernels.bcast(comm, sizes, rse=o.rse, cap_s=o.cap_s)),
                          ("global_sum", lambda: kernels.allreduce(comm, lengths, rse=o.rse, cap_s=o.cap_s))):
        sweep = measure()
        sweeps.samples[name], sweeps.fits[name] = sweep.to_samples(), sweep_fit(sweep)
        say(f"comm: {name} done")
    return sweeps


def _measure_many_ranks(comm, o: CommOptions, placement: list[Placement], sizes: np.ndarray, echo: SweepFit,
                        say: Callable[[str], None]) -> _ManyRanks:
    """The parts that need 4 ranks or more; a note for each one skipped."""
    many = _ManyRanks()
    if comm.Get_size() < 4:
        many.notes = ["collectives against the number of processes need 4 ranks or more; skipped",
                      "echo with contention and echo over hops need 4 ranks or more; skipped"]
        return many
    many.raw_scaling, many.scaling = scaling_record(measure_scaling(comm, rse=o.rse, cap_s=o.cap_s, progress=say))
    known = {(0, 1): [echo.n_half, echo.n_90]} if echo.n_half and echo.n_90 else {}
    many.raw_contention, many.contention = contention_study(comm, placement, sizes.tolist(), known, o.cap_s,
                                                            progress=say)
    many.raw_hops, many.hops = _hops(comm, o.rse, o.cap_s)
    say("comm: contention and hops done")
    return many


def _measure(comm, o: CommOptions, topology: Topology, say: Callable[[str], None]) -> _Measured:
    """Every part of the benchmark, in its collective order (module doc)."""
    probe = _probe_size(topology) if o.probe_size is None else o.probe_size
    sizes = message_sizes(o.max_size)
    placement = gather_placement(comm)
    sweeps = _measure_sweeps(comm, sizes, o, say)
    bar = kernels.barrier(comm)
    daxpy = comm.bcast(kernels.daxpy() if comm.Get_rank() == 0 else None, root=0)
    # A cell of the overlap grid (all four modes) gets the cap of a size.
    grid = overlap(comm, rse=o.rse, cap_s=o.cap_s)
    say(f"comm: daxpy and overlap done ({len(grid.flags)} overlap cell(s) flagged after "
        f"{len(grid.repeated)} repeated)")
    many = _measure_many_ranks(comm, o, placement, sizes, sweeps.fits["echo"], say)
    settings = LayerSettings(tolerance=o.layer_tolerance, mode=o.pairs, sample=o.sample)
    survey = survey_layers(comm, topology, probe, sizes, settings, known={(0, 1): sweeps.echo}, progress=say)
    return _Measured(probe, placement, sweeps, bar, daxpy, grid, many, survey)


def _parameters(o: CommOptions, ranks: int, probe: int) -> CommParameters:
    return CommParameters(ranks=ranks, max_size=o.max_size, rse_target=o.rse, cap_s=o.cap_s, probe_size=probe,
                          layer_tolerance=o.layer_tolerance,
                          collectives=kernels.COLLECTIVE_NOTE + "; the time of an iteration is the slowest rank's",
                          echo="one-way time = round trip / 2 on the test rank (CoMet)", test_pair=[0, 1],
                          layer_pairs=o.pairs, layer_sample=o.sample if o.pairs == "auto" else None)


def _raw(m: _Measured) -> CommRaw:
    samples, survey = m.sweeps.samples, m.survey
    return CommRaw(echo=samples["echo"], exchange=samples["exchange"], broadcast=samples["broadcast"],
                   global_sum=samples["global_sum"],
                   barrier={"samples": ns_samples([m.bar.samples])[0], "per_rank": ns_samples(m.bar.per_rank)},
                   daxpy={"lengths": m.daxpy.lengths, "samples": ns_samples(m.daxpy.samples)},
                   overlap=_overlap_raw(m.grid), contention=m.many.raw_contention, hops=m.many.raw_hops,
                   layers=LayerSamples(probe_size=m.probe,
                                       latencies=[PairLatency(pair=list(p), latency=t)
                                                  for p, t in survey.latencies.items()],
                                       sweeps=[layer.sweep.to_samples() for layer in survey.layers if layer.sweep]),
                   scaling=m.many.raw_scaling)


def _derived(m: _Measured, ranks: int, daxpy: DaxpyFit, overlap_record: OverlapRecord,
             plan: LayerPlanRecord) -> CommDerived:
    fits, bar, mesh = m.sweeps.fits, m.bar, make_mesh(ranks)
    return CommDerived(echo=fits["echo"], exchange=fits["exchange"], broadcast=fits["broadcast"],
                       global_sum=fits["global_sum"],
                       barrier=BarrierStats(minimum=bar.minimum, median=bar.typical,
                                            p90=float(np.percentile(bar.samples, 90)),
                                            outliers=find_outliers([bar.samples])),
                       daxpy=daxpy, overlap=overlap_record, contention=m.many.contention, hops=m.many.hops,
                       layers=[layer.to_record() for layer in m.survey.layers], placement=m.placement,
                       mesh=MeshRecord(rows=mesh.rows, cols=mesh.cols, layout=mesh.layout,
                                       neighbours=[mesh.neighbours(r) for r in range(ranks)]),
                       layer_plan=plan, scaling=m.many.scaling)


def _comm_record(name: str, o: CommOptions, ranks: int, m: _Measured, topology: Topology) -> CommRecord:
    daxpy_fit = _daxpy_fit(m.daxpy, topology)
    overlap_record = _overlap_record(m.grid)
    plan = m.survey.plan_record()
    derived = _derived(m, ranks, daxpy_fit, overlap_record, plan)
    notes = list(m.many.notes)
    if plan.failed_checks:
        notes.append(f"comm layers: {len(plan.failed_checks)} of {len(plan.checks)} checked pair(s) fell outside "
                     f"their class's layer (see show); their own latencies are kept")
    warnings = (notes + _outlier_warnings(m.sweeps.fits, m.bar, daxpy_fit, overlap_record, m.survey.layers)
                + _flag_warnings(overlap_record))
    return CommRecord(name=name, parameters=_parameters(o, ranks, m.probe), raw=_raw(m), derived=derived,
                      units=UNITS, warnings=warnings)


class CommBenchmark(Benchmark[CommOptions, CommRecord]):
    """CoMet's message-passing kernels, Servet's communication layers, fitted models

    Every rank takes part: echo, exchange, broadcast, global sum, barrier,
    DAXPY, overlap, collectives against the number of processes, contention
    and hops, then pair latencies grouped into layers (docs/comm.md)."""

    name = "comm"
    scope = "world"
    group = "comm benchmark (every rank takes part; needs mpiexec -n 2 or more)"
    options_type = CommOptions
    record_type = CommRecord
    min_ranks = 2
    needs_ranks = 2

    def resolve(self, options: CommOptions, topology: Topology, job: Job) -> CommOptions:
        # Every rank holds a send and a receive buffer of the largest message.
        for name in ("max_size", "probe_size"):
            size = getattr(options, name)
            if size is not None and 2 * size > safe_memory_limit():
                raise OptionError(name, f"must let a send and a receive buffer fit in the "
                                        f"{format_size(safe_memory_limit())} that may be used now, "
                                        f"got {format_size(size)}")
        return options

    def estimate(self, options: CommOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.comm_seconds(options, job)

    def run(self, ctx: Context[CommOptions]) -> CommRecord:
        comm = ctx.comm
        if comm.Get_size() < 2:
            raise Skipped("the communication benchmark needs at least 2 MPI ranks (mpiexec -n 2 or more)")
        measured = _measure(comm, ctx.options, ctx.topology, ctx.progress)
        return _comm_record(self.name, ctx.options, comm.Get_size(), measured, ctx.topology)

    def summary(self, record: CommRecord) -> list:
        return comm_summary(record)

    def plot(self, record: CommRecord):
        return comm_figure(record)

    def meaning(self, record: CommRecord) -> list:
        return comm_meaning(record)

    def disagreements(self, record: CommRecord) -> list:
        return comm_disagreements(record)

    def failed_fits(self, record: CommRecord) -> list:
        return comm_failed_fits(record)

    def machine_figures(self, record: CommRecord) -> list:
        return comm_machine_figures(record)

    def headlines(self, record: CommRecord) -> list:
        return comm_headlines(record)

    def tidy(self, record: CommRecord) -> list:
        return comm_rows(record)


BENCHMARK: Benchmark = CommBenchmark()
