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
    if g.regime_at is not None and None not in (g.t0, g.coefficient, g.t0_after, g.coefficient_after):
        jump = (g.t0_after + g.coefficient_after * g.regime_at ** g.exponent
                - g.t0 - g.coefficient * g.regime_at ** g.exponent)
        sign = "+" if jump >= 0 else "-"
        interval += f", a second regime from n = {g.regime_at} ({sign}{time_text(abs(jump))} there)"
    note = {"undecided": " (n^1 and n^2 both fit these times)",
            "differs": f" (n^{g.expected} lies outside the interval)"}.get(g.verdict, "")
    return f"n^{g.exponent:.2f}{interval}; thesis n^{g.expected}: {g.verdict}{note}"


def matrix_summary(record: MatrixRecord) -> list:
    p, d = record.parameters, record.derived
    lines = [f"matrix kernels on a {p.rows} x {p.cols} mesh of {p.ranks} ranks ({p.layout} layout): n x n doubles "
             "in blocks with a guard wrapper; every element verified after every timed loop",
             "  time per application (median of the slowest rank's) against the dimension n:"]
    dims = sorted({n for k in d.kernels for n in k.dims})
    width = max([14] + [len(k.kernel) + 2 for k in d.kernels])
    lines.append(f"    {'n':>6}" + "".join(f"{k.kernel:>{width}}" for k in d.kernels))
    medians = [dict(zip(k.dims, k.median)) for k in d.kernels]
    for n in dims:
        lines.append(f"    {n:>6}" + "".join(f"{time_text(m.get(n)):>{width}}" for m in medians))
    lines.append("  growth, t0 + c n^p fitted (95% interval of p; t0 and c anew where the protocol changes), against "
                 "the thesis:")
    for k in d.kernels:
        lines.append(f"    {k.kernel:<15}{growth_text(k.growth)}")
    return lines
