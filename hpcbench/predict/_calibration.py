"""Fitting the paper's calibration (_paper.CALIBRATION) on Tables 4 and 5
together, and the search over what the paper leaves open that shows how
far any single calibration gets (benchmarks/bench_hammond_calibration.py).

The measure of a calibration is its worst row: the largest |ours / paper
- 1| over Table 4's nine rows (analytical column) and Table 5's six
(dual-core column), each problem size of each table scaled by its own
iteration count (_paper._scaled). `scales="shared"` instead gives the
240^3 rows of both tables one count, the stricter reading (Table 5's 128
and 256 rows are Table 4's simulated ones, so the paper ran one count).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

from ._errors import PredictError
from ._paper import CALIBRATION, Calibration, Row, table4, table5
from ._profile import NetworkProfile

__all__ = ["both_tables", "fit_wg", "worst_error"]

#: The W_g range searched (seconds per cell): 20 ns to 2 us.
WG_RANGE = (2e-8, 2e-6)


def both_tables(profile: NetworkProfile, calibration: Calibration = CALIBRATION,
                scales: str = "per-table") -> list[Row]:
    """Table 4's rows then Table 5's, scaled as `scales` says ("per-table"
    or "shared")."""
    rows = table4(profile, calibration) + table5(profile, calibration)
    if scales == "per-table":
        return rows
    if scales != "shared":
        raise PredictError(f"scales is per-table or shared, got {scales!r}")
    group = [r for r in rows if r.edge == 240]
    ratios = [r.iteration / r.paper for r in group]
    shared = 2.0 / (min(ratios) + max(ratios))
    return [replace(r, scale=shared) if r.edge == 240 else r for r in rows]


def worst_error(rows: Sequence[Row]) -> float:
    """The largest |error| of `rows`."""
    return max(abs(r.error) for r in rows)


def fit_wg(profile: NetworkProfile, base: Calibration = CALIBRATION, scales: str = "per-table",
           points: int = 41) -> tuple[float, float]:
    """(W_g, worst row) of the W_g in WG_RANGE whose worst row over both
    tables is smallest, the other fields of `base` kept: a grid of
    `points` on a log scale, then a golden-section search in the cell
    around the grid's best (the worst row is smooth and single-troughed
    there; the grid finds the trough)."""
    def worst(log_wg: float) -> float:
        return worst_error(both_tables(profile, base.with_(wg=math.exp(log_wg)), scales))

    lo, hi = (math.log(w) for w in WG_RANGE)
    grid = [lo + (hi - lo) * k / (points - 1) for k in range(points)]
    k = min(range(points), key=lambda i: worst(grid[i]))
    a, b = grid[max(k - 1, 0)], grid[min(k + 1, points - 1)]
    best = _golden(worst, a, b)
    return math.exp(best), worst(best)


def _golden(f: Callable[[float], float], a: float, b: float, steps: int = 40) -> float:
    """The x in [a, b] where f is least (f single-troughed there)."""
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(steps):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = f(d)
    return 0.5 * (a + b)
