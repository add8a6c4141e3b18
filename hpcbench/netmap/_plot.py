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


def map_figure(record: NetworkMapRecord) -> Figure:
    """Bandwidth under load and latency under load as heat maps; slow links circled."""
    d = record.derived
    labels = record.parameters.members
    fig, grid = new_figure(1, 2, size=(11, 4.8))
    axes = grid[0]
    _heat(axes[0], labels, d.bandwidth_loaded, 1e6, "bandwidth under load", "MB/s")
    _heat(axes[1], labels, d.latency_loaded, 1e-6, "latency under load", "us")
    index = {x: i for i, x in enumerate(labels)}
    for s in d.slow_links:
        ax = axes[0] if s.matrix.startswith("bandwidth") else axes[1]
        ax.scatter([index[s.destination]], [index[s.source]], s=160, facecolors="none", edgecolors="red")
    return fig


def bisection_figure(record: BisectionRecord) -> Figure:
    """Every flow's bandwidth, and each bisection's total."""
    d = record.derived
    fig, grid = new_figure(1, 2, size=(10, 3.8))
    axes = grid[0]
    flows = _matrix(d.pair_samples).ravel() / 1e6
    axes[0].hist(flows[np.isfinite(flows)], bins=30, color="tab:blue")
    axes[0].axvline(d.pair_bandwidth / 1e6, color="black", linestyle="--", label="median")
    axes[0].set_xlabel("bandwidth of one flow (MB/s)")
    axes[0].set_ylabel("flows")
    axes[0].legend(fontsize=8)
    axes[1].plot(np.array(d.totals) / 1e6, "o", color="tab:orange")
    axes[1].set_xlabel("bisection")
    axes[1].set_ylabel("total over its flows (MB/s)")
    return fig
