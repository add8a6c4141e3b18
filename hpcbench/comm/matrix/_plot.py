"""The matrix benchmark's figures (CoMet's figures 5.13-5.16): time per
application against the matrix dimension, each kernel with its fitted
growth, drawn by the notebook and by Benchmark.plot."""
from __future__ import annotations

from typing import Any

import numpy as np

from ._records import KernelResult, MatrixRecord

#: The thesis' two families: linear in n, quadratic in n.
PANELS = (("update guard and broadcasts (thesis: linear in n)", ("update_guard", "row_broadcast", "col_broadcast")),
          ("shift and transpose (thesis: quadratic in n)", ("shift_north", "shift_east", "transpose")))


def plot_kernel(ax: Any, result: KernelResult, color: Any = None) -> None:
    """One kernel's medians (points, p90 as error bar) and its fit (line)."""
    n = np.asarray(result.dims, dtype=float)
    median = np.asarray(result.median, dtype=float) * 1e6
    p90 = np.asarray(result.p90, dtype=float) * 1e6
    g = result.growth
    regimes = ", 2 regimes" if g.regime_at is not None else ""
    label = result.kernel + (f" (n^{g.exponent:.2f}{regimes})" if g.exponent is not None else "")
    points = ax.errorbar(n, median, yerr=[np.zeros_like(median), np.maximum(p90 - median, 0)], fmt="o", ms=4,
                         capsize=2, color=color, label=label)
    if g.exponent is not None and g.t0 is not None and g.coefficient is not None:
        color = points[0].get_color()
        pieces = [(n.min(), n.max(), g.t0, g.coefficient)]
        if g.regime_at is not None and g.t0_after is not None and g.coefficient_after is not None:
            below = n[n < g.regime_at]
            pieces = [(n.min(), below.max() if below.size else n.min(), g.t0, g.coefficient),
                      (g.regime_at, n.max(), g.t0_after, g.coefficient_after)]
        for lo, hi, t0, c in pieces:
            grid = np.geomspace(lo, hi, 100)
            ax.plot(grid, (t0 + c * grid ** g.exponent) * 1e6, "-", lw=1, color=color)


def plot_matrix(record: MatrixRecord, axes: Any = None) -> Any:
    """Both panels (linear and quadratic kernels) on two axes (made if None)."""
    if axes is None:
        from matplotlib.figure import Figure
        axes = Figure(figsize=(11, 4.2)).subplots(1, 2)
    by_name = {k.kernel: k for k in record.derived.kernels}
    for ax, (title, names) in zip(axes, PANELS):
        for name in names:
            if name in by_name:
                plot_kernel(ax, by_name[name])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("matrix dimension n")
        ax.set_ylabel("time per application (us)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    return axes


def matrix_figure(record: MatrixRecord) -> Any:
    """The matrix record's figure: time against dimension per kernel, with fits."""
    from matplotlib.figure import Figure
    p = record.parameters
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    plot_matrix(record, fig.subplots(1, 2))
    fig.suptitle(f"CoMet's matrix kernels on a {p.rows} x {p.cols} mesh of {p.ranks} ranks", fontsize=11)
    return fig
