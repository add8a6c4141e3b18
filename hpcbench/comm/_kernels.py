"""CoMet's communication kernels, callable from scripts on any communicator.

Every function here is collective: all ranks of `comm` call it with the same
arguments, and all get the same result object back (it is broadcast from the
rank that measured). Point-to-point kernels run their pair on a
sub-communicator while the other ranks sleep (hpcbench/_subset.py). Timed loops run in C (hpcbench._core) with the GIL
released; repetitions are adaptive (adaptive.py); payloads are checked after
every timed loop. Times are seconds, sizes bytes.

    from mpi4py import MPI
    from hpcbench.comm import pingpong
    result = pingpong(MPI.COMM_WORLD, [0, 8, 1 << 20])
    if MPI.COMM_WORLD.rank == 0:
        print(result.median)   # one-way seconds per size
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .. import _core
from .._adaptive import DEFAULT_RSE, StopRule, run_adaptive
from .._collective import check_comm, check_rank, collectively, require_ranks
from .._subset import on_ranks
from .._timer import ticks_per_second
from ._records import OverheadRecord
from ._sweep import BATCHES, CAP_S, SizeSweep, check_sizes, message_sizes

if TYPE_CHECKING:
    from mpi4py import MPI

_NONE = -1   # "this rank sits out" for the C kernels


def _pair(comm, test_rank, peer):
    check_comm(comm)
    require_ranks(comm, 2, "a point-to-point kernel")
    check_rank(comm, "test_rank", test_rank)
    check_rank(comm, "peer", peer)
    if peer == test_rank:
        raise ValueError(f"peer and test_rank must differ, both are {peer}")


@dataclass(frozen=True)
class _PairKernel:
    """A point-to-point kernel as _p2p_sweep runs it: its name in the
    record, the C function, what a sample is (the record's statistic), and
    whether a sample is halved (a round trip timed, one way reported)."""

    name: str
    fn: Callable[..., np.ndarray]
    statistic: str
    halve: bool


def _p2p_sweep(comm, kernel: _PairKernel, sizes, test_rank: int, peer: int, stop: StopRule) -> SizeSweep:
    sizes = check_sizes(message_sizes() if sizes is None else sizes)
    if comm.Get_size() > 2:
        # The pair on a communicator of its own; the other ranks sleep instead
        # of spinning in MPI while it measures (hpcbench/_subset.py).
        return on_ranks(comm, [test_rank, peer], lambda sub: _p2p_sweep(sub, kernel, sizes, 0, 1, stop),
                        root=test_rank)
    rank = comm.Get_rank()
    partner = peer if rank == test_rank else test_rank if rank == peer else _NONE
    samples, warmups, rses, inners, per_rank = [], [], [], [], []
    for size in sizes:
        def call(warmup, iterations, inner, size=int(size)):
            return kernel.fn(comm, partner, rank == test_rank, size, warmup, iterations, inner)
        seconds, plan, reached = run_adaptive(comm, call, decider=test_rank, stop=stop, grouped=True)
        samples.append(seconds / 2 if kernel.halve else seconds)
        warmups.append(plan.warmup)
        rses.append(reached)
        inners.append(plan.inner)
        # The peer's own samples too (per_rank rows: test rank, peer).
        peer_seconds = comm.bcast(seconds if rank == peer else None, root=peer)
        if rank == test_rank:
            both = np.vstack([seconds, peer_seconds])
            per_rank.append(both / 2 if kernel.halve else both)
    result = SizeSweep(kernel.name, sizes, samples, kernel.statistic + "; each sample is the mean of `inner` "
                       "iterations; per_rank rows are the test rank's and the peer's own timings",
                       per_rank=per_rank, warmup=warmups, rse=rses, inner=inners) if rank == test_rank else None
    return comm.bcast(result, root=test_rank)


def pingpong(comm: MPI.Intracomm, sizes: npt.ArrayLike | None = None, peer: int = 1, test_rank: int = 0,
             rse: float = DEFAULT_RSE, cap_s: float = CAP_S) -> SizeSweep:
    """CoMet's echo between test_rank and peer: one-way time (round trip / 2)
    per message size (default 0 B and 1 B .. 4 MiB in powers of two)."""
    _pair(comm, test_rank, peer)
    echo = _PairKernel("echo", _core.echo, f"one-way time (round trip / 2) measured on rank {test_rank}, "
                       f"peer {peer}", halve=True)
    return _p2p_sweep(comm, echo, sizes, test_rank, peer, StopRule(rse=rse, cap_s=cap_s, batches=BATCHES))


def exchange(comm: MPI.Intracomm, sizes: npt.ArrayLike | None = None, peer: int = 1, test_rank: int = 0,
             rse: float = DEFAULT_RSE, cap_s: float = CAP_S) -> SizeSweep:
    """CoMet's pairwise exchange: both ranks send at once; time of one
    exchange on test_rank."""
    _pair(comm, test_rank, peer)
    kernel = _PairKernel("exchange", _core.exchange, f"exchange time measured on rank {test_rank}, peer {peer}",
                         halve=False)
    return _p2p_sweep(comm, kernel, sizes, test_rank, peer, StopRule(rse=rse, cap_s=cap_s, batches=BATCHES))


@dataclass(frozen=True)
class Overheads:
    """LogP's overheads and gap of one pair per message size (seconds,
    medians): `send` the sender's MPI_Send, `recv` the receiver's MPI_Recv
    once the message has arrived, `gap` the time per message of a stream
    of them (the C kernel's doc, p2p.h). Where the overheads are far below
    the one-way time, the transport moves the data while the CPUs do
    something else (docs/predict.md)."""

    sizes: np.ndarray
    send: np.ndarray
    recv: np.ndarray
    gap: np.ndarray

    def to_record(self) -> OverheadRecord:
        return OverheadRecord(sizes=[int(s) for s in self.sizes], send=[float(v) for v in self.send],
                              recv=[float(v) for v in self.recv], gap=[float(v) for v in self.gap])


#: Seconds of samples per size and side (at least OVERHEAD_MIN_ITERATIONS).
OVERHEAD_BUDGET_S = 0.05
OVERHEAD_MIN_ITERATIONS, OVERHEAD_MAX_ITERATIONS = 5, 41
#: The gap's two windows (messages): their difference cancels the ack.
GAP_WINDOWS = (4, 12)


def overheads(comm: MPI.Intracomm, sizes: npt.ArrayLike, one_way: npt.ArrayLike, peer: int = 1,
              test_rank: int = 0) -> Overheads:
    """The send and receive overheads and the gap of test_rank sending to
    peer, per size; `one_way` (seconds per size, the echo's) sets how long
    the receiver waits for a message to arrive (twice it, plus 20 us) and
    how many samples fit OVERHEAD_BUDGET_S. Collective; the same result on
    every rank."""
    _pair(comm, test_rank, peer)
    sizes = check_sizes(sizes)
    one_way = np.asarray(one_way, dtype=float)
    if one_way.shape != sizes.shape or not np.all(np.isfinite(one_way)) or np.any(one_way < 0):
        raise ValueError("one_way needs one finite time >= 0 (seconds) per size")
    if comm.Get_size() > 2:
        return on_ranks(comm, [test_rank, peer], lambda sub: overheads(sub, sizes, one_way, 1, 0), root=test_rank)
    rank = comm.Get_rank()
    partner = peer if rank == test_rank else test_rank
    per_tick = 1.0 / ticks_per_second()
    send, recv, gap = [], [], []

    def median_seconds(size, side, timed, n, delay=0.0, window=1):
        ticks = collectively(comm, lambda: _core.overhead(comm, partner, timed, side, int(size), int(delay / per_tick),
                                                          2, n, window))
        return comm.bcast(float(np.median(ticks)) * per_tick if timed else None,
                          root=test_rank if side != _core.OVERHEAD_RECV else peer)

    for size, t1 in zip(sizes, one_way):
        delay = 2.0 * t1 + 20e-6
        n = int(np.clip(OVERHEAD_BUDGET_S / (delay + 2.0 * t1), OVERHEAD_MIN_ITERATIONS, OVERHEAD_MAX_ITERATIONS))
        # The sender is test_rank throughout: timed on the send and gap
        # sides, the partner of the timed receiver on the receive side.
        send.append(median_seconds(size, _core.OVERHEAD_SEND, rank == test_rank, n))
        recv.append(median_seconds(size, _core.OVERHEAD_RECV, rank == peer, n, delay=delay))
        short, long = GAP_WINDOWS
        n = int(np.clip(OVERHEAD_BUDGET_S / (long * max(t1, 1e-6)), OVERHEAD_MIN_ITERATIONS, OVERHEAD_MAX_ITERATIONS))
        windows = [median_seconds(size, _core.OVERHEAD_GAP, rank == test_rank, n, window=w) for w in GAP_WINDOWS]
        gap.append(max((windows[1] - windows[0]) / (long - short), 0.0))
    return Overheads(sizes, np.array(send), np.array(recv), np.array(gap))


def _collective_sweep(comm, kernel, call_for, sizes, rse, cap_s, statistic):
    samples, per_rank, warmups, rses = [], [], [], []
    for size in sizes:
        seconds, plan, reached = run_adaptive(comm, call_for(int(size)), decider=0, combine="max",
                                              stop=StopRule(rse=rse, cap_s=cap_s, batches=BATCHES))
        everyone = comm.gather(seconds, root=0)
        if comm.Get_rank() == 0:
            table = np.vstack(everyone)
            per_rank.append(table)
            samples.append(table.max(axis=0))
        warmups.append(plan.warmup)
        rses.append(reached)
    result = SizeSweep(kernel, np.asarray(sizes, dtype=np.int64), samples, statistic, per_rank, warmups, rses) \
        if comm.Get_rank() == 0 else None
    return comm.bcast(result, root=0)


COLLECTIVE_NOTE = "an untimed MPI_Barrier precedes every iteration"


def bcast(comm: MPI.Intracomm, sizes: npt.ArrayLike | None = None, root: int = 0, rse: float = DEFAULT_RSE,
          cap_s: float = CAP_S) -> SizeSweep:
    """CoMet's broadcast from `root`: per iteration, the slowest rank's time."""
    check_comm(comm)
    check_rank(comm, "root", root)
    sizes = check_sizes(message_sizes() if sizes is None else sizes)
    return _collective_sweep(comm, "broadcast", lambda size: lambda w, n: _core.bcast_times(comm, root, size, w, n),
                             sizes, rse, cap_s,
                             f"per iteration, the maximum over ranks of MPI_Bcast from rank {root}; "
                             + COLLECTIVE_NOTE)


def allreduce(comm: MPI.Intracomm, lengths: npt.ArrayLike | None = None, rse: float = DEFAULT_RSE,
              cap_s: float = CAP_S) -> SizeSweep:
    """CoMet's global sum of a vector of `length` doubles on every rank; sizes
    in the result are bytes (8 x length)."""
    check_comm(comm)
    if lengths is None:
        lengths = np.concatenate([[0], 2 ** np.arange(0, 20)])
    lengths = check_sizes(lengths, "vector lengths", limit=1 << 27)
    sweep = _collective_sweep(comm, "global sum",
                              lambda size: lambda w, n: _core.allreduce_times(comm, size // 8, w, n),
                              lengths * 8, rse, cap_s,
                              "per iteration, the maximum over ranks of MPI_Allreduce(MPI_SUM) on doubles; "
                              + COLLECTIVE_NOTE)
    return sweep


@dataclass
class BarrierTimes:
    samples: np.ndarray          #: seconds, per iteration the slowest rank
    per_rank: np.ndarray         #: seconds, (ranks, iterations)

    @property
    def minimum(self) -> float:
        return float(self.samples.min())

    @property
    def typical(self) -> float:
        return float(np.median(self.samples))


def barrier(comm: MPI.Intracomm, iterations: int = 1000, warmup: int = 100) -> BarrierTimes:
    """CoMet's global synchronisation: minimum and typical barrier time."""
    check_comm(comm)
    ns = collectively(comm, _core.barrier_times, comm, warmup, iterations)
    everyone = comm.gather(ns * 1e-9, root=0)       # None except on rank 0
    result = None
    if everyone is not None:
        table = np.vstack(everyone)
        result = BarrierTimes(table.max(axis=0), table)
    return comm.bcast(result, root=0)


@dataclass
class DaxpyRate:
    lengths: np.ndarray          #: doubles per vector
    samples: list                #: seconds per DAXPY, per length

    @property
    def median(self) -> np.ndarray:
        return np.array([np.median(s) for s in self.samples])

    @property
    def flops(self) -> np.ndarray:
        """2 flops per element per DAXPY, per second."""
        return 2.0 * self.lengths / self.median


def daxpy(lengths: npt.ArrayLike | None = None, rse: float = DEFAULT_RSE, cap_s: float = 0.02) -> DaxpyRate:
    """DAXPY (y += a*x) time per vector length on the calling thread (no MPI)."""
    if lengths is None:
        lengths = 2 ** np.arange(4, 21)
    lengths = check_sizes(lengths, "vector lengths", limit=1 << 28)
    from mpi4py import MPI
    samples = []
    for n in lengths:
        seconds, _, _ = run_adaptive(MPI.COMM_SELF, lambda w, k, n=int(n): _core.daxpy_times(n, w, k),
                                     stop=StopRule(rse=rse, cap_s=cap_s, batches=BATCHES))
        samples.append(seconds)
    return DaxpyRate(lengths, samples)


@dataclass
class Contention:
    sizes: np.ndarray
    load_size: int
    echo: SizeSweep              #: one-way times with the load running
    load_bandwidth: float        #: bytes/s the load pair moved while the echo ran


def contention(comm: MPI.Intracomm, sizes: npt.ArrayLike, load_size: int, echo_pair: tuple[int, int] = (1, 2),
               load_pair: tuple[int, int] = (0, 3), iterations: int | Sequence[int] = 200) -> Contention:
    """CoMet's echo with contention: echo_pair runs echo (first rank
    initiates) while load_pair streams messages of load_size bytes.
    iterations: timed echoes per size (one count, or one per size). The
    four ranks run on a sub-communicator of their own; the others sleep."""
    check_comm(comm)
    require_ranks(comm, 4, "echo with contention")
    ranks = [*echo_pair, *load_pair]
    if len(echo_pair) != 2 or len(load_pair) != 2:
        raise ValueError(f"the echo pair and the load pair are two ranks each, got {echo_pair} and {load_pair}")
    for r in ranks:
        check_rank(comm, "a contention rank", r)
    if len(set(ranks)) != 4:
        raise ValueError(f"the echo pair and the load pair need four different ranks, got {echo_pair} and {load_pair}")
    sizes = check_sizes(sizes)
    load_size = int(check_sizes([load_size], "load message size")[0])
    counts = [iterations] * sizes.size if isinstance(iterations, (int, np.integer)) else list(iterations)
    if len(counts) != sizes.size or any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1
                                        for k in counts):
        raise ValueError(f"iterations must be a positive count, or one per size ({sizes.size}), got {iterations!r}")

    def measure(sub: MPI.Intracomm) -> Contention | None:
        # Sub-ranks: 0 echo initiator, 1 responder, 2 load sender, 3 load receiver.
        me = sub.Get_rank()
        role = (_core.ROLE_ECHO_INITIATOR, _core.ROLE_ECHO_RESPONDER, _core.ROLE_LOAD_SENDER,
                _core.ROLE_LOAD_RECEIVER)[me]
        partner = (1, 0, 3, 2)[me]
        rate = ticks_per_second()
        samples, moved, spent = [], 0, 0.0
        for size, k in zip(sizes, counts):
            ticks, messages, load_ticks = collectively(sub, _core.echo_contention, sub, role, partner, 2, int(size),
                                                       load_size, max(10, int(k) // 10), int(k))
            samples.append(ticks / rate / 2)
            moved += messages * load_size
            spent += load_ticks / rate
        load_bw = sub.bcast(moved / spent if me == 3 and spent > 0 else None, root=3)
        sweep = SizeSweep("echo with contention", sizes, samples,
                          f"one-way time on rank {echo_pair[0]} while ranks {load_pair[0]}->{load_pair[1]} stream "
                          f"{load_size}-byte messages")
        return Contention(sizes, load_size, sweep, load_bw or 0.0) if me == 0 else None

    return on_ranks(comm, ranks, measure, root=echo_pair[0])
