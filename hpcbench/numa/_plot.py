"""Figures of the numa record (the notebooks and the report draw these):
heat maps of the bandwidth and latency matrices, ratios written in the cells."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._plot import as_float, heatmap, new_figure
from ._records import Matrix, NumaRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Cells written with their ratio up to this many per side (more would overlap).
MOST_LABELLED = 8


def _labels(ax: Any, image: Any, ratios: Matrix) -> None:
    """Each cell's value and ratio, dark on the bright end of the colour map and light on the dark end."""
    factors, shown = as_float(ratios), np.ma.filled(image.get_array(), np.nan)
    if max(factors.shape) > MOST_LABELLED:
        return
    for (r, c), v in np.ndenumerate(factors):
        if np.isfinite(v) and np.isfinite(shown[r, c]):
            bright = float(image.norm(shown[r, c])) > 0.6
            ax.text(c, r, f"{shown[r, c]:.1f}\n{v:.2f}x", ha="center", va="center", fontsize=8,
                    color="black" if bright else "white")


def plot_numa_matrices(record: NumaRecord, bandwidth_ax: Any, latency_ax: Any) -> None:
    """Read bandwidth (GB/s) and load latency (ns) per (cores of node, memory
    of node), each cell labelled with its value and its ratio to the row's local cell."""
    d = record.derived
    cols, rows = [f"mem {j}" for j in d.cols], [f"cores {i}" for i in d.rows]
    image = heatmap(bandwidth_ax, as_float(d.bandwidth) / 1e9, "read bandwidth (ratio to local)", cols, rows,
                    colorbar="GB/s")
    _labels(bandwidth_ax, image, d.bandwidth_ratio)
    image = heatmap(latency_ax, as_float(d.latency_ns), "load latency (ratio to local)", cols, rows, cmap="magma",
                    colorbar="ns")
    _labels(latency_ax, image, d.latency_ratio)


def numa_figure(record: NumaRecord) -> Figure:
    """The numa figure: both matrices side by side."""
    fig, axes = new_figure(1, 2, (10, 4.5))
    plot_numa_matrices(record, axes[0, 0], axes[0, 1])
    return fig
