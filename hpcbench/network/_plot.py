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


def _ratio_bars(ax: Any, ratios: dict, name: str, xlabel: str, threshold: float | None = None) -> None:
    """One bar per step with its ratio on top; bars above `threshold` in red, the threshold dashed."""
    keys = sorted(ratios)
    values = [ratios[k] for k in keys]
    over = [threshold is not None and v > threshold for v in values]
    bars = ax.bar(keys, values, color=["tab:red" if o else "tab:gray" for o in over], width=0.6)
    ax.bar_label(bars, [f"{v:.2f}" for v in values], fontsize=8, padding=2)
    ax.axhline(1.0, color="k", lw=0.8)
    if threshold is not None:
        ax.axhline(threshold, color="tab:red", ls="--", lw=1)
        ax.text(0.01, threshold, f" threshold {threshold}", color="tab:red", va="bottom", ha="left", fontsize=8,
                transform=ax.get_yaxis_transform())      # x in axes fraction: always inside
    ax.set_xticks(keys)
    ax.set_ylim(0, max(values + [threshold or 0, 1.0]) * 1.18)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{name} (reference / bandwidth)")


def plot_rat_dist(record: DistanceRecord, ax: Any) -> None:
    """ratDist as bars: how many times slower a message to a node d away is than next door."""
    _ratio_bars(ax, record.derived.ratios(), "ratDist", "distance between nodes")
    ax.set_title("ratDist", fontsize=9)


def plot_rat_nc(record: AccessRecord, ax: Any) -> None:
    """ratNC as bars, red where it exceeds the mapping threshold (dashed)."""
    _ratio_bars(ax, record.derived.ratios(), "ratNC", "processes per node using the network",
                threshold=record.derived.mapping_rule.threshold)
    ax.set_title("ratNC (red: above the mapping threshold)", fontsize=9)


def distance_figure(record: DistanceRecord) -> Figure:
    """Servet 3.0's Figure 3: bandwidth against distance, with ratDist, and ratDist as bars."""
    fig, axes = new_figure(1, 2, (10, 4))
    plot_distance(record, axes[0, 0])
    plot_rat_dist(record, axes[0, 1])
    return fig


def access_figure(record: AccessRecord) -> Figure:
    """Servet 3.0's Figure 4: bandwidth against processes per node, with ratNC, and ratNC as bars."""
    fig, axes = new_figure(1, 2, (10, 4))
    plot_access(record, axes[0, 0])
    plot_rat_nc(record, axes[0, 1])
    return fig
