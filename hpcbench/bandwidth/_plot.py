"""Figures of the bandwidth record (the notebooks and the report draw these)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._plot import new_figure
from ._analysis import table
from ._records import BandwidthRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _labels(columns: list) -> list[str]:
    return [label if cores == 1 else f"{label}\n{cores} cores" for label, cores in columns]


def plot_kernels(record: BandwidthRecord, ax: Any) -> None:
    """Every kernel of the widest ISA, one bar per working set."""
    isa = record.parameters.isas[0] if record.parameters.isas else None
    columns, rows = table([r for r in record.derived.results if r.isa == isa])
    x = np.arange(len(columns))
    width = 0.8 / max(len(rows), 1)
    for i, ((kernel, _), cells) in enumerate(rows.items()):
        ax.bar(x + (i - (len(rows) - 1) / 2) * width, [(cells.get(c) or np.nan) / 1e9 for c in columns], width,
               label=kernel)
    ax.set_xticks(x, _labels(columns))
    ax.set_ylabel(f"GB/s ({isa}; loads + stores)")
    ax.legend(fontsize=7, ncol=2)


def plot_isas(record: BandwidthRecord, ax: Any) -> None:
    """Load bandwidth of one core per working set, one line per ISA."""
    for isa in record.parameters.isas:
        rs = [r for r in record.derived.results if r.kernel == "load" and r.isa == isa and r.cores == 1]
        ax.plot([r.level for r in rs], [(r.bandwidth or np.nan) / 1e9 for r in rs], "o-", label=isa)
    ax.set_ylabel("load GB/s, one core")
    ax.set_xlabel("working set")
    ax.legend(fontsize=8)


def bandwidth_figure(record: BandwidthRecord) -> Figure:
    """The bandwidth figure: every kernel per level, and load per ISA."""
    fig, axes = new_figure(1, 2, (12, 4.5))
    plot_kernels(record, axes[0, 0])
    plot_isas(record, axes[0, 1])
    return fig
