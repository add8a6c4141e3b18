"""The four OSU/IMB families as benchmarks of the suite (`p2p`,
`collectives`, `nbc`, `rma`): one class, one subclass per family for its
name and its place in the default suite. Every rank of COMM_WORLD calls
them; a test that involves some ranks runs them while the others sleep."""
from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

from .. import _estimate
from .._errors import OptionError, Skipped
from .._format import format_size
from .._memory import safe_memory_limit
from .._protocol import Benchmark, Context, Job
from .._subset import on_ranks
from ..topology import Topology
from ._measure import SamplePlan, measure_series
from ._options import ALL_SIZES, DEFAULT_SIZES, MicroOptions, tests_field
from ._records import MicroDerived, MicroParameters, MicroRaw, MicroRecord, MicroSeries
from ._rma import rma_available
from ._sizes import parse_sizes
from ._tests import DEFAULT_TESTS, family_tests

UNITS = {"samples": "ns per operation (rounded to 0.1 ns)", "latency": "s", "bandwidth": "bytes/s",
         "message_rate": "messages/s", "overlap_percent": "%", "sizes": "bytes"}
BUFFERS = ("page-aligned; from 2 MiB on 2 MiB-aligned with transparent huge pages (madvise), allocated and first "
           "touched by the rank that uses them before the timed loop; send and receive buffers apart")
STATISTICS = {
    "median": "hpcbench: median over the samples of the slowest taking part rank's time per operation (latency), "
              "or of the bytes over that time (bandwidth)",
    "p10, p90": "hpcbench: the 10th and 90th percentiles of the same",
    "osu": "OSU: each rank's loop time over its operations, averaged over the ranks (osu_latency: rank 0's loop, "
           "halved; one-sided: the origin's loop); bandwidth: each sender's bytes over its loop time, summed over the "
           "senders",
    "t_min, t_max, t_avg": "IMB: minimum, maximum and mean over the ranks of each rank's mean time per operation",
    "rank_mean": "median over the samples of the mean over the ranks (collectives: OSU's average, per iteration)",
}
#: The sizes the collectives also run at against the number of processes.
SCALING_SIZES = (8, 65536)


class MicroBenchmark(Benchmark[MicroOptions, MicroRecord]):
    """OSU/IMB micro-benchmarks of one family (see the subclasses)."""

    family: ClassVar[str]
    scope = "world"
    group = ("OSU/IMB families: p2p, collectives, nbc, rma (every rank takes part; 2 ranks or more; "
             "docs/comm.md)")
    options_type = MicroOptions
    record_type = MicroRecord
    min_ranks = 2
    needs_ranks = 2

    def in_unnamed_run(self, options: MicroOptions, job: Job) -> bool:
        """In the default suite (p2p, collectives), and every family with
        --comm-suite all."""
        return options.suite == "all" or self.in_default_suite(job)

    def unnamed_options(self, options: MicroOptions) -> MicroOptions:
        """A run that names no benchmark runs the short subset unless
        --comm-suite says otherwise."""
        return dataclasses.replace(options, suite="default") if options.suite == "auto" else options

    def resolve(self, options: MicroOptions, topology: Topology, job: Job) -> MicroOptions:
        suite = "all" if options.suite == "auto" else options.suite
        chosen = getattr(options, tests_field(self.family)) or (
            family_tests(self.family) if suite == "all" else DEFAULT_TESTS[self.family])
        tests = [t for t in family_tests(self.family) if t in chosen]      # the family's order
        sizes = options.sizes or parse_sizes(ALL_SIZES if suite == "all" else DEFAULT_SIZES)
        pairs = options.pairs if options.pairs is not None else max(job.ranks // 2, 1)
        if self.family == "p2p" and pairs > job.ranks // 2:
            raise OptionError("pairs", f"must be at most half the ranks ({job.ranks // 2} of {job.ranks}), "
                                       f"got {pairs}")
        procs = self._procs(options.procs, suite, job)
        self._check_memory(tests, sizes, job)
        if self.family == "rma" and not rma_available():
            raise OptionError("rma_tests", "cannot run: this MPI library does not create one-sided windows "
                                           "(MPI_Win_allocate failed)")
        chosen_tests: dict[str, Any] = {tests_field(self.family): tuple(tests)}
        return dataclasses.replace(options, suite=suite, sizes=tuple(sizes), pairs=pairs, procs=procs, **chosen_tests)

    def _procs(self, given: tuple | None, suite: str, job: Job) -> tuple:
        """The numbers of processes the collectives also run at."""
        if self.family not in ("collectives", "nbc"):
            return ()
        if given is not None:
            if max(given) > job.ranks:
                raise OptionError("procs", f"must not exceed the ranks of the job ({job.ranks}), got {max(given)}")
            return tuple(n for n in given if n < job.ranks)
        if suite != "all" or job.ranks < 4:
            return ()
        return tuple(2 ** k for k in range(1, job.ranks.bit_length()) if 2 ** k < job.ranks)

    def _check_memory(self, tests, sizes, job: Job) -> None:
        """A rank's largest buffers (a block per peer for the block
        collectives, send and receive), times the ranks of a node."""
        per_peer = any(t.endswith(("gather", "gatherv", "alltoall", "alltoallv", "scatter", "scatterv"))
                       for t in tests)
        largest = max(sizes) * (job.ranks if per_peer else 1) * 2
        per_node = math.ceil(job.ranks / max(job.nodes, 1))
        if largest * per_node > safe_memory_limit():
            raise OptionError("sizes", f"must let {per_node} rank(s) of a node hold their buffers "
                                       f"({format_size(largest * per_node)}) in the {format_size(safe_memory_limit())}"
                                       f" that may be used now, got {format_size(max(sizes))}")

    def estimate(self, options: MicroOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.micro_seconds(self.family, options, job)

    def run(self, ctx: Context[MicroOptions]) -> MicroRecord:
        comm, o = ctx.comm, ctx.options
        if comm.Get_size() < 2:
            raise Skipped(f"the {self.family} tests need at least 2 ranks")
        plan = SamplePlan(o.budget_s, o.iterations, o.warmup)
        tests = list(getattr(o, tests_field(self.family)))
        sizes = list(o.sizes or ())          # resolved: never None here
        series, raws, notes = [], [], []
        for test in tests:
            for sync in (o.syncs if self.family == "rma" else (None,)):
                ctx.progress(f"{self.family}: {test}" + (f" ({sync})" if sync else ""))
                one, raw = measure_series(comm, test, sizes, plan, o.window, o.pairs, sync)
                if not one.points:
                    notes.append(f"{test}: no size of {', '.join(map(str, sizes))} is whole floats (a multiple "
                                 "of 4 bytes): not measured")
                    continue
                series.append(one)
                raws.append(raw)
        scaling = self._scaling(ctx, tests, plan)
        return MicroRecord(name=self.name, parameters=self._parameters(ctx, tests), raw=MicroRaw(series=raws),
                           derived=MicroDerived(series=series, scaling=scaling), units=UNITS,
                           warnings=notes + self._oversubscribed(ctx))

    def _scaling(self, ctx: Context[MicroOptions], tests: list[str], plan: SamplePlan) -> list[MicroSeries]:
        """The same tests on the first N ranks, for each N of `procs`."""
        out = []
        for n in ctx.options.procs or ():
            for test in tests:
                ctx.progress(f"{self.family}: {test} at {n} processes")
                def measure(sub: Any, test: str = test) -> tuple[MicroSeries, Any]:
                    return measure_series(sub, test, SCALING_SIZES, plan)
                one, _ = on_ranks(ctx.comm, list(range(n)), measure, root=0)
                out.append(one)
        return out

    def _parameters(self, ctx: Context[MicroOptions], tests: list[str]) -> MicroParameters:
        o = ctx.options
        return MicroParameters(family=self.family, ranks=ctx.comm.Get_size(), nodes=max(ctx.job.nodes, 1),
                               suite=o.suite, tests=tests, sizes=list(o.sizes or ()), iterations=o.iterations,
                               warmup=o.warmup, budget_s=o.budget_s, window=o.window, pairs=o.pairs or 1,
                               syncs=list(o.syncs) if self.family == "rma" else [], procs=list(o.procs or ()),
                               buffers=BUFFERS, statistics=STATISTICS)

    @staticmethod
    def _oversubscribed(ctx: Context[MicroOptions]) -> list[str]:
        per_node = math.ceil(ctx.comm.Get_size() / max(ctx.job.nodes, 1))
        pus = len(ctx.topology.pu_indexes)
        if per_node > pus:
            return [f"{per_node} ranks per node on {pus} PUs: the ranks time-share the cores, and the times "
                    "include it"]
        return []

    # What is said about a record: imported when asked, so that `run` does not load matplotlib's users.
    def summary(self, record: MicroRecord) -> list:
        from ._summary import micro_summary
        return micro_summary(record)

    def plot(self, record: MicroRecord):
        from ._plot import micro_figure
        return micro_figure(record)

    def meaning(self, record: MicroRecord) -> list:
        from ._report import micro_meaning
        return micro_meaning(record)

    def disagreements(self, record: MicroRecord) -> list:
        from ._report import micro_disagreements
        return micro_disagreements(record)

    def headlines(self, record: MicroRecord) -> list:
        from ._report import micro_headlines
        return micro_headlines(record)

    def tidy(self, record: MicroRecord) -> list:
        from ._tidy import micro_rows
        return micro_rows(record)


class P2PBenchmark(MicroBenchmark):
    """OSU/IMB point-to-point: latency, bandwidth (windowed, bidirectional, multi-pair) and message rate

    osu_latency's ping-pong (each side answers from an unchanged buffer,
    unlike comm's CoMet echo), osu_bw's window of messages, osu_bibw,
    osu_mbw_mr over pairs of ranks and osu_multi_lat, over user sizes, each
    payload verified (docs/comm.md)."""

    name = "p2p"
    family = "p2p"


class CollectivesBenchmark(MicroBenchmark):
    """OSU/IMB collectives: every MPI collective against size and the number of processes

    barrier, bcast, allreduce, reduce, allgather(v), alltoall(v), gather(v),
    scatter(v) and reduce_scatter, one call per sample after a barrier, with
    the slowest rank's time beside OSU's and IMB's means over ranks
    (docs/comm.md)."""

    name = "collectives"
    family = "collectives"


class NbcBenchmark(MicroBenchmark):
    """IMB-NBC: non-blocking collectives, their pure time, compute time and overlap

    Each non-blocking collective alone (t_pure), with a computation as long
    between the call and its wait (t_ovrl), the computation alone (t_CPU),
    and the overlap IMB-NBC derives from them (docs/comm.md)."""

    name = "nbc"
    family = "nbc"
    default = False


class RmaBenchmark(MicroBenchmark):
    """OSU/IMB one-sided: put, get and accumulate latency and bandwidth, with fence and with lock

    MPI_Put, MPI_Get and MPI_Accumulate from rank 0 to rank 1's window,
    closed by MPI_Win_fence or by lock/unlock, as osu_put_latency,
    osu_get_latency, osu_acc_latency, osu_put_bw and osu_get_bw
    (docs/comm.md)."""

    name = "rma"
    family = "rma"
    default = False


P2P_BENCHMARK: Benchmark = P2PBenchmark()
COLLECTIVES_BENCHMARK: Benchmark = CollectivesBenchmark()
NBC_BENCHMARK: Benchmark = NbcBenchmark()
RMA_BENCHMARK: Benchmark = RmaBenchmark()
