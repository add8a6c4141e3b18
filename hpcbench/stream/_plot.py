"""Figures of the stream record (the notebooks and the report draw these)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._plot import new_figure
from ._counting import KERNELS
from ._records import StreamRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def plot_rates(record: StreamRecord, ax: Any) -> None:
    """Best rate of each kernel per team (bars), the median as a dot."""
    teams = record.derived.teams
    x = np.arange(len(teams))
    width = 0.8 / len(KERNELS)
    for i, kernel in enumerate(KERNELS):
        rates = [t.rate(kernel) for t in teams]
        best = [r.best / 1e9 if r else np.nan for r in rates]
        median = [r.median / 1e9 if r else np.nan for r in rates]
        at = x + (i - (len(KERNELS) - 1) / 2) * width
        ax.bar(at, best, width, label=kernel.capitalize())
        ax.plot(at, median, "k.", ms=4)
    ax.set_xticks(x, [f"{t.group}\n({len(t.pus)} cores)" for t in teams])
    ax.set_ylabel("GB/s (STREAM's count; dot: median)")
    ax.legend(fontsize=8)


def plot_triad_scaling(record: StreamRecord, ax: Any) -> None:
    """Triad's best rate against the number of cores, with and without the
    write-allocate reads."""
    teams = record.derived.teams
    cores = [len(t.pus) for t in teams]
    triads = [t.rate("triad") for t in teams]
    ax.plot(cores, [r.best / 1e9 if r else np.nan for r in triads], "o-", label="Triad (STREAM's count)")
    if record.parameters.stores == "ordinary":
        ax.plot(cores, [r.best_with_write_allocate / 1e9 if r else np.nan for r in triads], "s--",
                label="with write-allocate reads")
    ax.set_xticks(cores)
    ax.set_xlabel("cores")
    ax.set_ylabel("GB/s, all cores of the team")
    ax.legend(fontsize=8)


def stream_figure(record: StreamRecord) -> Figure:
    """The stream figure: the four kernels per team, and Triad's scaling."""
    fig, axes = new_figure(1, 2, (11, 4.5))
    plot_rates(record, axes[0, 0])
    plot_triad_scaling(record, axes[0, 1])
    return fig
