"""The lines `hpcbench show` prints for a matrix record."""
from __future__ import annotations

from ._records import GrowthRecord, MatrixRecord


def time_text(seconds: float | None) -> str:
    """Seconds in the unit that reads best: '12.3 us', '4.56 ms', '1.20 s'."""
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def growth_text(g: GrowthRecord) -> str:
    """'n^1.04 (0.91..1.18); thesis n^1: agrees'."""
    if g.exponent is None:
        return f"thesis n^{g.expected}: {g.verdict}"
    interval = f" ({g.low:.2f}..{g.high:.2f})" if g.low is not None and g.high is not None else ""
    note = {"undecided": " (the constant time hides the growth over these n)",
            "differs": " (measured growth outside the thesis')"}.get(g.verdict, "")
    return f"n^{g.exponent:.2f}{interval}; thesis n^{g.expected}: {g.verdict}{note}"


def matrix_summary(record: MatrixRecord) -> list:
    p, d = record.parameters, record.derived
    lines = [f"matrix kernels on a {p.rows} x {p.cols} mesh of {p.ranks} ranks ({p.layout} layout): n x n doubles "
             "in blocks with a guard wrapper; every element verified after every timed loop",
             "  time per application (median of the slowest rank's) against the dimension n; growth t0 + c n^p"]
    dims = sorted({n for k in d.kernels for n in k.dims})
    lines.append(f"    {'kernel':<14}" + "".join(f"{n:>10}" for n in dims) + "  growth")
    for k in d.kernels:
        by_n = dict(zip(k.dims, k.median))
        cells = "".join(f"{time_text(by_n.get(n)):>10}" for n in dims)
        lines.append(f"    {k.kernel:<14}{cells}  {growth_text(k.growth)}")
    return lines
