"""What `hpcbench report` says about a matrix record: how long each kernel
takes at the largest dimension, and whether its growth with the dimension
is the thesis' (linear for the guard update and the broadcasts, quadratic
for shift and transpose)."""
from __future__ import annotations

from ..._format import microseconds
from ..._headline import Headline, finite
from ._records import KernelResult, MatrixRecord

#: The thesis' growth in words, by exponent.
GROWTH = {1: "linear", 2: "quadratic"}


def _largest(k: KernelResult) -> tuple[int, float | None]:
    """(dimension, median seconds) at the largest dimension measured."""
    return int(k.dims[-1]), finite(k.median[-1])


def matrix_meaning(record: MatrixRecord) -> list:
    """One sentence for the mesh, one per kernel."""
    p = record.parameters
    lines = [f"The {p.dims[-1]} x {p.dims[-1]} matrix was spread over a {p.rows} x {p.cols} mesh of {p.ranks} "
             "ranks; every element was checked after every kernel."]
    for k in record.derived.kernels:
        n, t = _largest(k)
        g = k.growth
        expected = GROWTH.get(int(g.expected), f"n^{g.expected}")
        if g.verdict == "agrees":
            how = f"grows as n^{g.exponent:.2f}, {expected} as the thesis says"
        elif g.verdict == "differs":
            how = (f"grows as n^{g.exponent:.2f} where the thesis says {expected}: the machine, not the algorithm, "
                   "sets its cost here (caches, shared cores, a protocol switch)")
        else:
            how = f"grows as the data cannot tell ({g.verdict}); the thesis says {expected}"
        lines.append(f"{k.kernel} takes {microseconds(t)} at n = {n} and {how}.")
    return lines


def matrix_disagreements(record: MatrixRecord) -> list:
    """Kernels whose fitted growth excludes the thesis' exponent."""
    out = []
    for k in record.derived.kernels:
        g = k.growth
        if g.verdict == "differs" and g.exponent is not None:
            span = "" if g.low is None or g.high is None else f" (95% interval {g.low:.2f}..{g.high:.2f})"
            out.append(f"{k.kernel}: time grows as n^{g.exponent:.2f}{span}, the thesis says n^{g.expected}")
    return out


def matrix_headlines(record: MatrixRecord) -> list:
    """Each kernel's median time at the largest dimension."""
    out = []
    for k in record.derived.kernels:
        n, t = _largest(k)
        out.append(Headline(f"{k.kernel} at n={n}", t, "s", "lower"))
    return out
