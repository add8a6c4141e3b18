"""Measuring one test over its sizes: the sampling plan, the C kernel calls
(hpcbench._core.micro_times, timed loops in C with the GIL released), and
the statistics of every size, callable from scripts on any communicator.

    from mpi4py import MPI
    from hpcbench.micro import measure_series
    series, raw = measure_series(MPI.COMM_WORLD, "allreduce", [8, 65536])
    if MPI.COMM_WORLD.rank == 0:
        print([(p.size, p.median, p.osu) for p in series.points])

Every function here is collective over `comm` and returns the same result
on every rank. A test that involves only some ranks (a pair, the pairs of
the multi-pair tests, origin and target of one-sided tests) runs on a
sub-communicator of them while the others sleep (hpcbench/_subset.py).
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import _core
from .._collective import check_comm, collectively, require_ranks
from .._subset import on_ranks
from .._timer import ticks_per_second
from ._definitions import definition
from ._options import DEFAULT_BUDGET_S, DEFAULT_WINDOW
from ._records import MicroPoint, MicroRawSeries, MicroSeries
from ._stats import Sampling, bandwidth_point, latency_point, nbc_point
from ._tests import SYNCS, TESTS, Test

if TYPE_CHECKING:
    from mpi4py import MPI

#: A point-to-point or one-sided sample groups enough operations to last
#: this long: the two timer reads, and the first operation after the
#: sample's barrier (which finds the other rank just leaving it, and the
#: lock and window lines in the other core's cache), stay well under 1% of
#: it. At 5 us, put_latency with lock measured 1.05 to 1.15x a plain C loop
#: and put_bw of 8 B 0.75x (benchmarks/bench_micro.py).
SAMPLE_TARGET_S = 20e-6
MAX_INNER = 1000
#: Samples per size: at least MIN_SAMPLES (a median and a spread), at most
#: MAX_SAMPLES (the raw samples of `--comm-suite all` stay a few MB).
MIN_SAMPLES = 5
MAX_SAMPLES = 1000
#: Samples of the probe that sizes the plan, after one untimed (which also
#: opens the connection, which can take milliseconds); a latency test's
#: probe samples hold PROBE_INNER operations, so that the skew of the ranks
#: leaving the barrier before a sample does not pass for operation time.
PROBE_SAMPLES = 3
PROBE_INNER = 10
#: A budgeted size's samples come in up to BATCHES calls; after a call that
#: ends OVERRUN budgets in, no more: a machine that slows down after the
#: probe (other jobs, more ranks than cores) cannot stretch a size's time.
BATCHES = 4
OVERRUN = 1.5


@dataclass(frozen=True)
class SamplePlan:
    """How many samples each size gets: `iterations` operations (OSU's -i,
    grouped into samples of `inner` operations) when given, else as many as
    `budget_s` seconds allow; `warmup` untimed operations (OSU's -x, rounded
    up to whole samples; a tenth of the samples, at least 1, when not
    given)."""

    budget_s: float = DEFAULT_BUDGET_S
    iterations: int | None = None
    warmup: int | None = None


@dataclass(frozen=True)
class _Run:
    """One test as the kernel takes it."""

    test: Test
    window: int
    pairs: int
    sync: str | None

    def kernel_args(self, size: int) -> dict:
        return {"test": getattr(_core, self.test.constant), "bytes": size,
                "window": self.window if self.test.windowed else 1,
                "pairs": self.pairs if self.test.multi_pair else 1,
                "sync": getattr(_core, f"SYNC_{(self.sync or SYNCS[0]).upper()}")}

    @property
    def grouped(self) -> bool:
        """Point-to-point and one-sided tests group operations (round trips,
        windows) per sample, as OSU times a loop of them; collectives time
        each call after a barrier, as OSU does."""
        return self.test.family in ("p2p", "rma")


def _sizes_for(test: Test, sizes: Sequence[int]) -> list[int]:
    """The sizes a test takes: reductions sum whole floats (multiples of 4);
    a barrier moves no data, so it runs once (recorded at the first size),
    as OSU's osu_barrier does."""
    if test.name in ("barrier", "ibarrier"):
        return [int(min(sizes))] if len(sizes) else []
    return [int(s) for s in sizes if not test.reduction or int(s) % 4 == 0]


def participants(test: Test, size: int, pairs: int) -> list[int]:
    """The ranks of a communicator of `size` ranks that take part."""
    if test.family in ("collectives", "nbc"):
        return list(range(size))
    return list(range(2 * pairs)) if test.multi_pair else [0, 1]


def measure_series(comm: MPI.Intracomm, test: str, sizes: Sequence[int], plan: SamplePlan = SamplePlan(),
                   window: int = DEFAULT_WINDOW, pairs: int | None = None,
                   sync: str | None = None) -> tuple[MicroSeries, MicroRawSeries]:
    """One test (a name of hpcbench.micro.TESTS) over `sizes` (bytes; a
    reduction skips sizes that are not whole floats): its series (every
    statistic per size) and its raw samples. pairs: of the multi-pair
    tests (default half the ranks); sync: of one-sided tests ("fence" or
    "lock", default fence). ValueError for a bad argument."""
    check_comm(comm)
    require_ranks(comm, 2, f"the {test} test")
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    spec = TESTS[test]
    pairs = comm.Get_size() // 2 if pairs is None else pairs
    if spec.multi_pair and not 1 <= pairs <= comm.Get_size() // 2:
        raise ValueError(f"pairs must be between 1 and half the ranks ({comm.Get_size() // 2}), got {pairs}")
    if spec.family == "rma" and (sync or SYNCS[0]) not in SYNCS:
        raise ValueError(f"sync must be one of {', '.join(SYNCS)}, got {sync!r}")
    run = _Run(spec, window, pairs, (sync or SYNCS[0]) if spec.family == "rma" else None)
    members = participants(spec, comm.Get_size(), pairs)
    if len(members) < comm.Get_size():
        return on_ranks(comm, members, lambda sub: _series(sub, run, sizes, plan, members), root=0)
    return _series(comm, run, sizes, plan, members)


def _series(comm, run: _Run, sizes: Sequence[int], plan: SamplePlan, members: list[int]):
    points: list = []
    samples: list = []
    extra: dict[str, list] = {"pure_samples": [], "cpu_samples": [], "overlap_cpu_samples": []}
    kept = _sizes_for(run.test, sizes)
    for size in kept:
        point, rows = (_nbc_size if run.test.family == "nbc" else _size)(comm, run, size, plan)
        points.append(point)
        samples.append(rows["samples"])
        for key in extra:
            if key in rows:
                extra[key].append(rows[key])
    series = MicroSeries(test=run.test.name, kind=run.test.kind, unit="s" if run.test.kind == "latency" else "bytes/s",
                         procs=comm.Get_size(), sync=run.sync, pairs=run.pairs if run.test.multi_pair else None,
                         window=run.window if run.test.windowed else None, definition=definition(run.test, run.window,
                                                                                                 run.pairs, run.sync),
                         points=points)
    raw = MicroRawSeries(test=run.test.name, procs=comm.Get_size(), sync=run.sync, sizes=kept, ranks=members,
                         samples=samples, **{k: v for k, v in extra.items() if v})
    return comm.bcast((series, raw) if comm.Get_rank() == 0 else None, root=0)


def _call(comm, run: _Run, size: int, sampling: Sampling, mode: int = 0, compute_ticks: int = 0):
    return collectively(comm, _core.micro_times, comm, warmup=sampling.warmup, iterations=sampling.samples,
                        inner=sampling.inner, mode=mode, compute_ticks=compute_ticks, **run.kernel_args(size))


def _plan(comm, run: _Run, size: int, plan: SamplePlan, mode: int = 0, budget_share: float = 1.0) -> Sampling:
    """Probe a few operations (the slowest rank's median time per
    operation), then size the samples: the same on every rank."""
    probe_inner = PROBE_INNER if run.grouped and run.test.kind == "latency" else 1
    ticks = _call(comm, run, size, Sampling(PROBE_SAMPLES, probe_inner, 1), mode=mode)
    ticks = (ticks[0] if isinstance(ticks, tuple) else ticks) / probe_inner
    local = float(np.nanmedian(ticks)) if np.any(np.isfinite(ticks)) else 0.0
    per_op = comm.allreduce(local, op=_max()) / ticks_per_second()
    inner = int(min(max(math.ceil(SAMPLE_TARGET_S / max(per_op, 1e-9)), 1), MAX_INNER)) if run.grouped else 1
    if plan.iterations is not None:
        samples = max(math.ceil(plan.iterations / inner), 1)
    else:
        affordable = int(plan.budget_s * budget_share / max(per_op * inner, 1e-9))
        samples = min(max(affordable, MIN_SAMPLES), MAX_SAMPLES)
    warmup = math.ceil(plan.warmup / inner) if plan.warmup is not None else max(1, samples // 10)
    return Sampling(samples, inner, warmup)


def _sampled(comm, run: _Run, size: int, sampling: Sampling, budget_s: float | None, mode: int = 0,
             compute_ticks: int = 0) -> tuple[list[np.ndarray], Sampling]:
    """The samples of one size, as arrays (one, or MODE_OVERLAP's two): all
    in one call when the count is fixed (OSU's -i), else in up to BATCHES
    calls that stop once OVERRUN x budget_s has passed on rank 0's clock.
    Returns the arrays and the sampling as it ran (the samples taken)."""
    if budget_s is None:
        out = _call(comm, run, size, sampling, mode, compute_ticks)
        return (list(out) if isinstance(out, tuple) else [out]), sampling
    batch = max(math.ceil(sampling.samples / BATCHES), MIN_SAMPLES)
    chunks: list[list[np.ndarray]] = []
    started, done = time.monotonic(), 0
    while done < sampling.samples:
        n = min(batch, sampling.samples - done)
        # Every call allocates its buffers (and one-sided window) afresh, whose
        # first use maps pages into the other rank and warms the MPI library's
        # caches: a later batch warms up with one sample too.
        out = _call(comm, run, size, Sampling(n, sampling.inner, sampling.warmup if not done else 1), mode,
                    compute_ticks)
        chunks.append(list(out) if isinstance(out, tuple) else [out])
        done += n
        in_time = time.monotonic() - started < OVERRUN * budget_s if comm.Get_rank() == 0 else None
        if not comm.bcast(in_time, root=0):
            break
    arrays = [np.concatenate([c[k] for c in chunks]) for k in range(len(chunks[0]))]
    return arrays, Sampling(done, sampling.inner, sampling.warmup)


def _gathered(comm, ticks: np.ndarray, sampling: Sampling, halve: bool) -> np.ndarray | None:
    """Every rank's seconds per operation, rows by rank, on rank 0."""
    seconds = np.asarray(ticks, dtype=float) / ticks_per_second() / sampling.inner / (2 if halve else 1)
    rows = comm.gather(seconds, root=0)
    return np.vstack(rows) if rows is not None else None


def _size(comm, run: _Run, size: int, plan: SamplePlan) -> tuple[MicroPoint | None, dict]:
    sampling = _plan(comm, run, size, plan)
    (ticks,), sampling = _sampled(comm, run, size, sampling, _budget(plan))
    round_trip = run.test.name in ("latency", "multi_lat")     # one-way time, as OSU prints it
    seconds = _gathered(comm, ticks, sampling, halve=round_trip)
    if seconds is None:
        return None, {"samples": None}
    return _point(run, size, seconds, sampling), {"samples": _ns(seconds)}


def _budget(plan: SamplePlan, share: float = 1.0) -> float | None:
    """The seconds a size (or one of nbc's measurements) may take; None
    with a fixed count of iterations."""
    return None if plan.iterations is not None else plan.budget_s * share


def _point(run: _Run, size: int, seconds: np.ndarray, sampling: Sampling) -> MicroPoint:
    test = run.test
    if test.kind == "latency":
        # osu_latency and OSU's one-sided tests report the loop of rank 0 (the origin)
        osu_rank = 0 if test.name == "latency" or test.family == "rma" else None
        return latency_point(size, seconds, sampling, osu_rank=osu_rank)
    senders = list(range(run.pairs)) if test.multi_pair else [0]
    both_ways = 2 if test.name == "bibw" else 1
    messages = run.window * len(senders) * both_ways
    return bandwidth_point(size, seconds, sampling, bytes_per_op=float(size) * messages, senders=senders,
                           messages_per_op=float(messages) if test.name == "mbw_mr" else 0.0)


def _nbc_size(comm, run: _Run, size: int, plan: SamplePlan) -> tuple[MicroPoint | None, dict]:
    """IMB-NBC's three measurements: t_pure (the non-blocking call and its
    wait), then t_ovrl with a computation as long as t_pure between them,
    and t_CPU, that computation alone. Each gets a third of the budget."""
    share = 1 / 3
    planned = _plan(comm, run, size, plan, mode=_core.MODE_PURE, budget_share=share)
    (pure_ticks,), pure_plan = _sampled(comm, run, size, planned, _budget(plan, share), mode=_core.MODE_PURE)
    compute = int(comm.allreduce(float(np.nanmedian(pure_ticks)), op=_max()))
    (ovrl_ticks, cpu_part), ovrl_plan = _sampled(comm, run, size, planned, _budget(plan, share),
                                                 mode=_core.MODE_OVERLAP, compute_ticks=compute)
    (cpu_ticks,), cpu_plan = _sampled(comm, run, size, planned, _budget(plan, share), mode=_core.MODE_CPU,
                                      compute_ticks=compute)
    pure, cpu = _gathered(comm, pure_ticks, pure_plan, False), _gathered(comm, cpu_ticks, cpu_plan, False)
    ovrl, part = _gathered(comm, ovrl_ticks, ovrl_plan, False), _gathered(comm, cpu_part, ovrl_plan, False)
    if pure is None or ovrl is None or part is None or cpu is None:
        return None, {"samples": None}
    point = nbc_point(size, ovrl, pure, cpu, ovrl_plan)
    return point, {"samples": _ns(ovrl), "pure_samples": _ns(pure), "cpu_samples": _ns(cpu),
                   "overlap_cpu_samples": _ns(part)}


def _ns(seconds: np.ndarray) -> list:
    """Seconds -> ns rounded to 0.1 ns, rows of the ranks that took part."""
    rows = seconds[np.all(np.isfinite(seconds), axis=1)]
    return np.round(rows * 1e9, 1).tolist()


def _max() -> MPI.Op:
    from mpi4py import MPI
    return MPI.MAX
