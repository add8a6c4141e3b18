"""Adaptive repetitions: run a kernel in batches until its samples are
precise enough or a time cap is reached.

A probe of a few iterations estimates the time per iteration; from it, every
rank derives the same plan: warm-up of max(10, 10%) of the iterations the cap
allows, then batches. After each batch the deciding rank computes the
relative standard error of the samples so far (for collectives, of the
per-iteration maximum over ranks) and broadcasts whether to go on. All of
this happens between batches, never inside a timed loop.

The statistic reported is the median, so the precision judged is the
median's: its standard error is estimated from the distribution-free 95%
confidence interval of the median (order statistics n/2 -+ 0.98 sqrt(n)),
divided by 2 x 1.96. Latency samples have heavy right tails (interrupts,
other tenants), which make the mean's standard error shrink slowly and
misleadingly; the median's does not care.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ._collective import collectively
from ._timer import ticks_per_second

if TYPE_CHECKING:
    from mpi4py import MPI

#: A timed kernel: (warm-up, iterations[, inner]) -> ticks per sample.
KernelCall = Callable[..., np.ndarray]

#: Point-to-point samples group enough iterations to last about this long,
#: so that the timer reads (tens of ns) stay under 1% of a sample.
SAMPLE_TARGET_S = 5e-6
MAX_INNER = 1000
DEFAULT_RSE = 0.01
DEFAULT_CAP_S = 0.2
MIN_ITERATIONS = 20
MAX_ITERATIONS = 10_000
PROBE_ITERATIONS = 5

@dataclass(frozen=True)
class StopRule:
    """When run_adaptive stops repeating: once the median's relative
    standard error is below `rse`, after `cap_s` seconds, or at
    `max_iterations` samples, whichever comes first; the iterations the cap
    allows are run in about `batches` batches (more, smaller batches stop
    sooner once precise, and a batch slowed by other processes overshoots
    the cap less)."""

    rse: float = DEFAULT_RSE
    cap_s: float = DEFAULT_CAP_S
    max_iterations: int = MAX_ITERATIONS
    batches: int = 4


@dataclass
class Plan:
    warmup: int
    batch: int
    max_iterations: int
    inner: int = 1          #: iterations per timed sample


def relative_standard_error(samples: npt.ArrayLike) -> float:
    """Standard error of the median over the median (see the module doc)."""
    x = np.sort(np.asarray(samples, dtype=float))
    n = x.size
    if n < 10:
        return math.inf
    median = float(np.median(x))
    if median <= 0:
        return math.inf
    half = 0.98 * math.sqrt(n)
    lo = x[max(int(math.floor(n / 2 - half)), 0)]
    hi = x[min(int(math.ceil(n / 2 + half)), n - 1)]
    return float((hi - lo) / (2 * 1.96) / median)


def plan_from_probe(seconds_per_iteration: float, cap_s: float, max_iterations: int = MAX_ITERATIONS,
                    batches: int = 4) -> Plan:
    """Warm-up and batch size from a probe's time per iteration: the
    iterations the cap allows, in `batches` batches."""
    affordable = int(cap_s / max(seconds_per_iteration, 1e-9))
    expected = min(max(affordable, MIN_ITERATIONS), max_iterations)
    warmup = max(10, math.ceil(0.1 * expected))
    batch = max(MIN_ITERATIONS, expected // batches)
    return Plan(warmup, batch, expected)


def run_adaptive(comm: MPI.Comm, call: KernelCall, decider: int = 0, combine: str = "decider",
                 stop: StopRule = StopRule(), grouped: bool = False) -> tuple[np.ndarray, Plan, float]:
    """Run `call(warmup, iterations) -> ticks` on every rank until precise.

    combine: "decider" (the deciding rank's samples judge precision, as for
    echo) or "max" (per-iteration maximum over ranks, for collectives).
    stop: when to stop (StopRule: precision, time cap, iterations, batches).
    grouped: `call(warmup, samples, inner)` times `inner` iterations per
    sample; inner is chosen so a sample lasts about SAMPLE_TARGET_S, and the
    samples returned are per iteration (sample time / inner).
    Returns (seconds on this rank, shape (samples,), the Plan, rse reached
    as seen by the decider)."""
    call, plan = _probe(comm, call, stop, grouped)
    rate = ticks_per_second()
    chunks, started, first = [], time.monotonic(), True
    reached = math.inf
    while True:
        ticks = collectively(comm, call, plan.warmup if first else 0, plan.batch)
        first = False
        chunks.append(ticks / rate / plan.inner)
        mine = np.concatenate(chunks)
        judged = _judged(comm, mine, decider, combine)
        go_on = None
        if comm.Get_rank() == decider and judged is not None:     # judged is None off the decider
            reached = relative_standard_error(judged)
            elapsed = time.monotonic() - started
            go_on = reached > stop.rse and elapsed < stop.cap_s and mine.size + plan.batch <= plan.max_iterations
        if not comm.bcast(go_on, root=decider):
            break
    reached = comm.bcast(reached, root=decider)
    return np.concatenate(chunks), plan, reached


def _probe(comm: MPI.Comm, call: KernelCall, stop: StopRule, grouped: bool) -> tuple[KernelCall, Plan]:
    """A probe of a few iterations (the slowest rank's time per iteration)
    and the plan every rank derives from it; with `grouped`, the call that
    times `inner` iterations per sample."""
    probe_call = _grouped(call, 1) if grouped else call
    probe = collectively(comm, probe_call, 2, PROBE_ITERATIONS) / ticks_per_second()
    local = float(np.nanmedian(probe)) if np.any(np.isfinite(probe)) else 0.0
    per_iteration = comm.allreduce(local, op=_max_op())
    inner = 1
    if grouped:
        inner = int(min(max(math.ceil(SAMPLE_TARGET_S / max(per_iteration, 1e-9)), 1), MAX_INNER))
        call = _grouped(call, inner)
    plan = plan_from_probe(per_iteration * inner, stop.cap_s, stop.max_iterations, stop.batches)
    plan.inner = inner
    return call, plan


def _judged(comm: MPI.Comm, mine: np.ndarray, decider: int, combine: str) -> np.ndarray | None:
    """The samples whose precision is judged: the decider's own, or (for
    "max") the per-iteration maximum over ranks, on the decider only."""
    if combine != "max":
        return mine
    gathered = comm.gather(mine, root=decider)       # None except on the decider
    return np.nanmax(np.vstack(gathered), axis=0) if gathered is not None else None


def _grouped(call: KernelCall, inner: int) -> KernelCall:
    return lambda warmup, samples: call(warmup, samples, inner)


def _max_op() -> MPI.Op:
    from mpi4py import MPI
    return MPI.MAX
