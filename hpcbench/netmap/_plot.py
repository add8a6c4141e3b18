"""Figures of the network-map and bisection records: the heat maps and the
distribution of flows (the notebooks and the report draw these)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._plot import new_figure
from ._records import BisectionRecord, NetworkMapRecord
from ._report import _matrix

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _heat(ax: Any, labels: list[str], rows: list, scale: float, title: str, unit: str) -> None:
    m = _matrix(rows) / scale
    image = ax.imshow(np.ma.masked_invalid(m), cmap="viridis")
    ax.figure.colorbar(image, ax=ax, label=unit, shrink=0.8)
    ticks = range(len(labels))
    ax.set_xticks(list(ticks), labels, rotation=90, fontsize=7)
    ax.set_yticks(list(ticks), labels, fontsize=7)
    ax.set_xlabel("to")
    ax.set_ylabel("from")
    ax.set_title(title, fontsize=9)


def plot_map(record: NetworkMapRecord, bandwidth_ax: Any, latency_ax: Any) -> None:
    """Bandwidth under load and latency under load as heat maps into two axes; slow links circled."""
    d = record.derived
    labels = record.parameters.members
    _heat(bandwidth_ax, labels, d.bandwidth_loaded, 1e6, "bandwidth under load", "MB/s")
    _heat(latency_ax, labels, d.latency_loaded, 1e-6, "latency under load", "us")
    index = {x: i for i, x in enumerate(labels)}
    for s in d.slow_links:
        ax = bandwidth_ax if s.matrix.startswith("bandwidth") else latency_ax
        ax.scatter([index[s.destination]], [index[s.source]], s=160, facecolors="none", edgecolors="red")


def map_figure(record: NetworkMapRecord) -> Figure:
    """plot_map in a figure of its own."""
    fig, grid = new_figure(1, 2, size=(11, 4.8))
    plot_map(record, grid[0][0], grid[0][1])
    return fig


def plot_bisection(record: BisectionRecord, flows_ax: Any, totals_ax: Any) -> None:
    """Every flow's bandwidth as a histogram, and each bisection's total, into two axes."""
    d = record.derived
    flows = _matrix(d.pair_samples).ravel() / 1e6
    flows_ax.hist(flows[np.isfinite(flows)], bins=30, color="tab:blue")
    flows_ax.axvline(d.pair_bandwidth / 1e6, color="black", linestyle="--", label="median")
    flows_ax.set_xlabel("bandwidth of one flow (MB/s)")
    flows_ax.set_ylabel("flows")
    flows_ax.legend(fontsize=8)
    totals_ax.plot(np.array(d.totals) / 1e6, "o", color="tab:orange")
    totals_ax.set_xlabel("bisection")
    totals_ax.set_ylabel("total over its flows (MB/s)")


def bisection_figure(record: BisectionRecord) -> Figure:
    """plot_bisection in a figure of its own."""
    fig, grid = new_figure(1, 2, size=(10, 3.8))
    plot_bisection(record, grid[0][0], grid[0][1])
    return fig
