"""CoMet's collectives against the number of processes (3.3.3-3.3.5,
Figures 5.3, 5.6, 5.7: "number of processors versus time").

Broadcast, global sum and barrier run on sub-communicators of the first 2,
4, 8, ... ranks, up to all of them; the ranks outside sleep (hpcbench/_subset.py).
Per process count: the median time of a broadcast and of a global sum at
each of a few message sizes, and the barrier's minimum (CoMet's "least time
to synchronise") and median. `growth_fit` then says whether each curve
grows like log P (a tree, as CoMet found on the hypercube) or like P (a
root that sends to everyone in turn), from the data.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .._adaptive import DEFAULT_RSE
from .._subset import on_ranks
from ._kernels import BarrierTimes, allreduce, barrier, bcast
from ._records import GrowthFit, ScalingCurve, ScalingRecord
from ._sweep import CAP_S, SizeSweep, ns_samples

if TYPE_CHECKING:
    from mpi4py import MPI

#: Message sizes of the broadcast and the global sum against process count
#: (bytes): one double, as CoMet's global sum, and 64 KiB.
SCALING_SIZES = (8, 65536)
#: Below this relative growth from the fewest to the most processes, a curve is flat.
FLAT = 0.10
#: The better model must fit this much better (relative RMS) to be named alone.
CLEAR = 1.5


def process_counts(n: int) -> list[int]:
    """2, 4, 8, ... below n, then n itself (n >= 2)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"collectives need at least 2 processes, got {n!r}")
    counts, p = [], 2
    while p < n:
        counts.append(p)
        p *= 2
    return counts + [n]


@dataclass
class ScalingPoint:
    """The collectives on the first `processes` ranks."""
    processes: int
    broadcast: SizeSweep
    global_sum: SizeSweep
    barrier: BarrierTimes


@dataclass
class Scaling:
    """Every process count's point, fewest first."""
    sizes: list
    points: list = field(default_factory=list)


def _point(sub: MPI.Intracomm, sizes: Sequence[int], rse: float, cap_s: float) -> ScalingPoint:
    lengths = np.asarray(sizes, dtype=np.int64) // 8
    return ScalingPoint(sub.Get_size(), bcast(sub, sizes, rse=rse, cap_s=cap_s),
                        allreduce(sub, lengths, rse=rse, cap_s=cap_s), barrier(sub))


def measure_scaling(comm: MPI.Intracomm, counts: Sequence[int] | None = None, sizes: Sequence[int] = SCALING_SIZES,
                    rse: float = DEFAULT_RSE, cap_s: float = CAP_S, known: dict | None = None,
                    progress: Callable[[str], None] | None = None) -> Scaling:
    """Broadcast (from the first rank), global sum and barrier on the first
    P ranks for every P of `counts` (default process_counts(size)). `known`
    maps a process count to a ScalingPoint already measured (the full
    communicator's, from the main sweeps). Collective; the same result on
    every rank."""
    size = comm.Get_size()
    counts = process_counts(size) if counts is None else list(counts)
    if not counts or any(isinstance(p, bool) or not isinstance(p, int) or not 2 <= p <= size for p in counts):
        raise ValueError(f"process counts must be between 2 and {size} (the communicator's size), got {counts!r}")
    sizes = [int(s) for s in sizes]
    if not sizes or any(s < 8 or s % 8 for s in sizes):
        raise ValueError(f"collective sizes must be positive multiples of 8 bytes (whole doubles), got {sizes!r}")
    result = Scaling(sizes)
    for p in sorted(set(counts)):
        point = (known or {}).get(p)
        if point is None:
            point = on_ranks(comm, range(p), lambda sub: _point(sub, sizes, rse, cap_s), root=0)
        result.points.append(point)
        if progress:
            progress(f"comm: collectives on {p} of {size} ranks done")
    return result


def growth_fit(counts: Sequence[float], times: Sequence[float]) -> GrowthFit:
    """Which growth the times (seconds) support over the process counts:
    t = a + b log2 P or t = a + b P, each fitted by least squares on relative
    errors. `flat` where the time grows by less than FLAT from the fewest
    to the most processes (or falls); `undetermined` with fewer than three
    process counts (two points fit either line exactly); `log P or linear`
    where both lines fit within 1 %; otherwise the model with the smaller
    relative RMS residual, `clear` when it beats the other CLEAR times."""
    p = np.asarray(counts, dtype=float)
    t = np.asarray(times, dtype=float)
    ok = np.isfinite(t) & (t > 0) & np.isfinite(p) & (p >= 1)
    p, t = p[ok], t[ok]
    order = np.argsort(p)
    p, t = p[order], t[order]
    fit = GrowthFit(model="undetermined", counts=p.astype(int).tolist(), times=t.tolist())
    if np.unique(p).size < 2:
        return fit
    fit.growth = float(t[-1] / t[0] - 1)
    if fit.growth < FLAT:
        fit.model = "flat"
        return fit
    if np.unique(p).size < 3:
        return fit
    fit.log_intercept, fit.log_slope, log_rms = _relative_line(np.log2(p), t)
    fit.linear_intercept, fit.linear_slope, linear_rms = _relative_line(p, t)
    fit.log_rms, fit.linear_rms = log_rms, linear_rms
    best, other = sorted(((log_rms, "log P"), (linear_rms, "linear")))
    if other[0] <= 0.01:
        fit.model = "log P or linear"       # both lines within 1 %: the data cannot tell
    else:
        fit.model, fit.clear = best[1], bool(other[0] >= CLEAR * best[0])
    return fit


def _relative_line(x: np.ndarray, t: np.ndarray) -> tuple:
    """a, b of t = a + b x minimising the relative residuals, and their RMS."""
    w = 1.0 / t
    design = np.column_stack([np.ones_like(x), x]) * w[:, None]
    (a, b), *_ = np.linalg.lstsq(design, t * w, rcond=None)
    residual = (a + b * x - t) / t
    return float(a), float(b), float(math.sqrt(np.mean(residual ** 2)))


def scaling_curves(scaling: Scaling) -> list[ScalingCurve]:
    """Per kernel and size, the times against process count with their growth."""
    counts = [p.processes for p in scaling.points]
    curves = []
    for kernel, attr in (("broadcast", "broadcast"), ("global sum", "global_sum")):
        for j, size in enumerate(scaling.sizes):
            times = [float(getattr(p, attr).median[j]) for p in scaling.points]
            curves.append(ScalingCurve(kernel=kernel, size=size, statistic="median of the slowest rank",
                                       fit=growth_fit(counts, times)))
    curves.append(ScalingCurve(kernel="barrier", size=0, statistic="minimum of the slowest rank (CoMet)",
                               fit=growth_fit(counts, [p.barrier.minimum for p in scaling.points])))
    return curves


def scaling_record(scaling: Scaling) -> tuple[dict, ScalingRecord]:
    """(raw samples, record) of a Scaling for the results file."""
    raw = {"processes": [p.processes for p in scaling.points],
           "broadcast": [p.broadcast.to_samples() for p in scaling.points],
           "global_sum": [p.global_sum.to_samples() for p in scaling.points],
           "barrier": [ns_samples([p.barrier.samples])[0] for p in scaling.points]}
    return raw, ScalingRecord(processes=[p.processes for p in scaling.points], sizes=list(scaling.sizes),
                              curves=scaling_curves(scaling))
