"""hpcbench's, OSU's and IMB's statistics of one size of one test, from the
same samples (pure functions: no MPI, no hardware).

`seconds` is a (ranks x samples) array of seconds per operation, NaN on the
ranks that took no part; the statistics are those _records.py defines."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._records import MicroPoint


@dataclass(frozen=True)
class Sampling:
    """How one size was sampled: samples, operations per sample, warm-up."""

    samples: int
    inner: int
    warmup: int


def _taking_part(seconds: np.ndarray) -> np.ndarray:
    """The rows of the ranks that took part (finite samples)."""
    rows = np.asarray(seconds, dtype=float)
    return rows[np.all(np.isfinite(rows), axis=1)]


def _spread(values: np.ndarray) -> tuple[float, float, float]:
    p10, median, p90 = np.percentile(values, [10, 50, 90])
    return float(median), float(p10), float(p90)


def rse_of_median(values: np.ndarray) -> float | None:
    """The median's relative standard error (hpcbench._adaptive's rule)."""
    from .._adaptive import relative_standard_error
    rse = relative_standard_error(values)
    return rse if np.isfinite(rse) else None


def latency_point(size: int, seconds: np.ndarray, sampling: Sampling, osu_rank: int | None = None) -> MicroPoint:
    """A latency test's point. hpcbench's: per sample the slowest taking
    part rank; OSU's: each rank's mean over its loop, averaged over the
    ranks (osu_rank: only that row's mean, as osu_latency reports the
    initiator's loop); IMB's: min, max and mean over ranks of those means."""
    rows = _taking_part(seconds)
    slowest = rows.max(axis=0)
    median, p10, p90 = _spread(slowest)
    per_rank = rows.mean(axis=1)
    osu = float(np.asarray(seconds, dtype=float)[osu_rank].mean()) if osu_rank is not None else float(per_rank.mean())
    return MicroPoint(size=size, samples=sampling.samples, inner=sampling.inner, warmup=sampling.warmup,
                      median=median, p10=p10, p90=p90, osu=osu, rse=rse_of_median(slowest),
                      t_min=float(per_rank.min()), t_max=float(per_rank.max()), t_avg=float(per_rank.mean()),
                      rank_mean=float(np.median(rows.mean(axis=0))))


def bandwidth_point(size: int, seconds: np.ndarray, sampling: Sampling, bytes_per_op: float,
                    senders: list[int], messages_per_op: float = 0.0) -> MicroPoint:
    """A bandwidth test's point (seconds: per operation, e.g. one window
    and its ack). hpcbench's: per sample, the bytes every sender moved over
    the slowest taking part rank's time; OSU's: each sender's bytes over
    its whole loop's time, summed over the senders (osu_bw, osu_mbw_mr);
    with messages_per_op, OSU's message rate the same way.
    bytes_per_op: the bytes one operation moves over all senders."""
    rows = _taking_part(seconds)
    slowest = rows.max(axis=0)
    rates = bytes_per_op / slowest
    median, p10, p90 = _spread(rates)
    loops = np.asarray(seconds, dtype=float)[senders].mean(axis=1)
    share = bytes_per_op / len(senders)
    osu = float(np.sum(share / loops))
    rate = float(np.sum(messages_per_op / len(senders) / loops)) if messages_per_op else None
    return MicroPoint(size=size, samples=sampling.samples, inner=sampling.inner, warmup=sampling.warmup,
                      median=median, p10=p10, p90=p90, osu=osu, rse=rse_of_median(slowest), message_rate=rate)


def overlap_percent(t_pure: float, t_cpu: float, t_ovrl: float) -> float:
    """IMB-NBC's overlap: 100 max(0, min(1, (t_pure + t_CPU - t_ovrl) /
    min(t_pure, t_CPU))): the share of the shorter of communication and
    computation that the overlapped run hid."""
    shorter = min(t_pure, t_cpu)
    if not shorter > 0:
        return 0.0
    return 100.0 * max(0.0, min(1.0, (t_pure + t_cpu - t_ovrl) / shorter))


def nbc_point(size: int, overlapped: np.ndarray, pure: np.ndarray, cpu: np.ndarray, sampling: Sampling) -> MicroPoint:
    """An nbc test's point: the overlapped time as the point's statistics
    (t_ovrl), t_pure and t_CPU as the medians of their slowest ranks, and
    the overlap from those three medians."""
    point = latency_point(size, overlapped, sampling)
    point.t_pure = float(np.median(_taking_part(pure).max(axis=0)))
    point.t_cpu = float(np.median(_taking_part(cpu).max(axis=0)))
    point.overlap_percent = overlap_percent(point.t_pure, point.t_cpu, point.median)
    return point
