"""Figures of the memory record (the notebooks and the report draw these)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._plot import new_figure, thinned_ticks
from ._records import MemoryRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def plot_pair_bandwidth(record: MemoryRecord, ax: Any) -> None:
    """Copy bandwidth of each tested pair: each core alone, and while the
    other core copies; the overhead levels as dotted lines."""
    pairs = record.derived.pairs
    x = np.arange(len(pairs))
    ax.bar(x - 0.2, [p.reference / 1e9 for p in pairs], 0.4, label="alone")
    ax.bar(x + 0.2, [p.bandwidth / 1e9 for p in pairs], 0.4, label="with the other core copying")
    ax.set_xticks(*thinned_ticks(len(pairs), [f"{p.pair[0]}-{p.pair[1]}" for p in pairs]))
    ax.set_xlabel("pair of cores")
    ax.set_ylabel("copy bandwidth per core (GB/s)")
    for i, lv in enumerate(record.derived.overhead.levels, 1):
        ax.axhline(lv.bandwidth / 1e9, ls=":", color="tab:red", lw=1)
        ax.text(0.99, lv.bandwidth / 1e9, f"level {i}: {lv.groups}", va="bottom", ha="right", fontsize=8,
                transform=ax.get_yaxis_transform())      # x in axes fraction: always inside
    ax.legend(fontsize=8)


def plot_scalability(record: MemoryRecord, per_core_ax: Any, total_ax: Any) -> None:
    """Per-core and aggregate bandwidth as more cores of each group copy at
    once (records from before the aggregate: the sum of per-core rates,
    marked so in the legend)."""
    for sc in record.derived.scalability:
        cores = [p.cores for p in sc.points]
        label = f"{sc.group} {sc.cores}"
        per_core_ax.plot(cores, [p.per_core / 1e9 for p in sc.points], "o-", label=label)
        summed = any(p.aggregate is None for p in sc.points)
        total_ax.plot(cores, [(p.total if summed else p.all_cores) / 1e9 for p in sc.points], "o-",
                      label=f"{label} (sum of per-core rates)" if summed else label)
        for ax in (per_core_ax, total_ax):
            ax.set_xticks(cores)
    per_core_ax.set_ylabel("GB/s per core")
    total_ax.set_ylabel("GB/s, all cores (aggregate)")
    for ax in (per_core_ax, total_ax):
        ax.set_xlabel("cores copying at once")
        ax.legend(fontsize=8)


def memory_figure(record: MemoryRecord) -> Figure:
    """The memory figure: bandwidth of every tested pair, and the scalability curves."""
    fig, axes = new_figure(2, 2, (10, 7))
    gs = axes[0, 0].get_gridspec()
    for ax in axes[0]:
        ax.remove()
    plot_pair_bandwidth(record, fig.add_subplot(gs[0, :]))
    plot_scalability(record, axes[1, 0], axes[1, 1])
    return fig
