"""The peakflops figure (the notebooks and the report draw it)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._plot import new_figure
from ._records import FlopsRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def flops_figure(record: FlopsRecord) -> Figure:
    """Gflop/s of each instruction set and precision: one core, and all the
    cores together."""
    fig, axes = new_figure(1, 1, (9, 4.5))
    ax = axes[0, 0]
    labels = sorted({(r.isa, r.precision) for r in record.derived.rates}, key=lambda k: (k[1], k[0]))
    x = np.arange(len(labels))
    for shift, team in ((-0.2, "one core"), (0.2, "all cores")):
        values = []
        for isa, precision in labels:
            mine = [r for r in record.derived.rates if (r.isa, r.precision) == (isa, precision)]
            pick = min(mine, key=lambda r: r.cores) if team == "one core" else max(mine, key=lambda r: r.cores)
            values.append((pick.per_core if team == "one core" else pick.together) / 1e9)
        ax.bar(x + shift, values, 0.4, label=team)
    ax.set_xticks(x, [f"{isa}\n{precision}" for isa, precision in labels])
    ax.set_ylabel("Gflop/s")
    ax.set_title("peak FLOP/s: FMA chains on registers")
    ax.legend(fontsize=8)
    return fig
