"""STREAM's rates from the kernels' start and end times: pure analysis.

A team's rate in one repetition is what all members moved (STREAM's byte
count, _counting.stream_bytes, times the members) over the span from the
first member's start to the last member's end of that kernel, as STREAM's
OpenMP loop is timed from before the parallel loop to after its closing
barrier. STREAM reports the best repetition; the median and the worst say
how much the others spread.
"""
from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._counting import FORMULAS, KERNELS, stream_bytes, write_allocate_bytes
from ._records import KernelRate, TeamRates


def spans_ns(start_ns: npt.ArrayLike, end_ns: npt.ArrayLike) -> np.ndarray:
    """Each repetition's span per kernel, (repetitions, kernels) in ns, from
    arrays (members, repetitions, kernels): last end - first start."""
    start, end = np.asarray(start_ns, dtype=float), np.asarray(end_ns, dtype=float)
    return end.max(axis=0) - start.min(axis=0)


def kernel_rate(kernel: str, members: int, array_bytes: int, stores: str, spans: npt.ArrayLike) -> KernelRate:
    """One kernel's rates (bytes/s of the team) from its spans (ns per repetition)."""
    ns = np.asarray(spans, dtype=float)
    counted, extra = stream_bytes(kernel, array_bytes), write_allocate_bytes(kernel, array_bytes, stores)
    rates = members * counted / (ns * 1e-9)
    best = float(rates.max())
    return KernelRate(kernel=kernel, formula=FORMULAS[kernel], bytes=counted, write_allocate_bytes=extra,
                      best=best, median=float(np.median(rates)), worst=float(rates.min()),
                      best_with_write_allocate=best * (counted + extra) / counted,
                      min_ns=float(ns.min()), median_ns=float(np.median(ns)), max_ns=float(ns.max()))


def team_rates(group: str, pus: list, array_bytes: int, stores: str, start_ns: npt.ArrayLike,
               end_ns: npt.ArrayLike) -> TeamRates:
    """The four kernels' rates of one team's run."""
    spans = spans_ns(start_ns, end_ns)
    return TeamRates(group=group, pus=list(pus),
                     kernels=[kernel_rate(k, len(pus), array_bytes, stores, spans[:, i])
                              for i, k in enumerate(KERNELS)])


def node_triad(teams: list[TeamRates]) -> float | None:
    """The node's headline: Triad's best rate on the last (largest) team."""
    if not teams:
        return None
    triad = teams[-1].rate("triad")
    return None if triad is None else triad.best
