"""Figures of the distance and network-access records (Servet 3.0, Figures 3
and 4); the notebooks and the report draw these."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._plot import new_figure
from ._records import AccessRecord, DistanceRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _bars(ax: Any, keys: list, bandwidth: dict, ratios: dict, color: str) -> None:
    """Bandwidth per process (MB/s) against `keys`, each point labelled with its ratio."""
    values = [bandwidth[str(k)] / 1e6 for k in keys]
    ax.plot(keys, values, "o-", color=color)
    for k, v in zip(keys, values):
        ax.annotate(f"({ratios[k]:.2f})", (k, v), textcoords="offset points", xytext=(4, 6), fontsize=8)
    ax.set_xticks(keys)
    ax.set_ylabel("bandwidth per process (MB/s)")


def plot_distance(record: DistanceRecord, ax: Any) -> None:
    """Bandwidth against distance between nodes, with ratDist in brackets."""
    d = record.derived
    _bars(ax, d.distances, d.bandwidth, d.ratios(), "tab:blue")
    ax.set_xlabel("distance between nodes")
    ax.set_title(f"{d.nodes} nodes, {d.size >> 20} MiB messages, all sending", fontsize=9)


def plot_access(record: AccessRecord, ax: Any) -> None:
    """Bandwidth against processes per node using the network, with ratNC in brackets."""
    d = record.derived
    _bars(ax, d.per_node, d.bandwidth, d.ratios(), "tab:orange")
    ax.set_xlabel("processes per node using the network")
    ax.set_title(f"{d.total} processes in all, to the next node", fontsize=9)


def distance_figure(record: DistanceRecord) -> Figure:
    """Servet 3.0's Figure 3: bandwidth against distance, with ratDist."""
    fig, axes = new_figure(1, 1, (5.5, 4))
    plot_distance(record, axes[0, 0])
    return fig


def access_figure(record: AccessRecord) -> Figure:
    """Servet 3.0's Figure 4: bandwidth against processes per node, with ratNC."""
    fig, axes = new_figure(1, 1, (5.5, 4))
    plot_access(record, axes[0, 0])
    return fig
