"""Figures of the multibsp record (the paper's Figure 7, and the
inner-product validation); the notebooks and the report draw these."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._plot import new_figure
from ._records import MultiBSPRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def plot_hcomm(record: MultiBSPRecord, ax: Any) -> None:
    """Superstep cost (flops) against h for every component, with the g/L
    fits over all h (solid) and over h >= p (dashed)."""
    for lv in record.derived.levels:
        for comp in lv.components:
            flops = np.asarray(comp.flops, dtype=float)
            h = np.arange(flops.size)
            line = ax.plot(h, flops, ".", ms=3, label=f"level {lv.level} PUs {comp.pus}")[0]
            ax.plot(h, comp.fits.all.g * h + comp.fits.all.L, "-", color=line.get_color(), lw=1)
            if comp.fits.h_ge_p:
                hp = h[h >= comp.p]
                ax.plot(hp, comp.fits.h_ge_p.g * hp + comp.fits.h_ge_p.L, "--", color=line.get_color(), lw=1)
    ax.set_xlabel("h (words written by every thread)")
    ax.set_ylabel("superstep (flops)")
    ax.set_title("h-communications: fits over all h (solid) and h >= p (dashed)", fontsize=9)
    ax.legend(fontsize=8)


def plot_inner_product(record: MultiBSPRecord, ax: Any) -> None:
    """Measured inner-product times against the MultiBSP predictions."""
    ip = record.derived.inner_product
    n = [v.n for v in ip]
    ax.loglog(n, [v.measured_s * 1e6 for v in ip], "o-", ms=3, label="measured")
    ax.loglog(n, [v.measured_with_startup_s * 1e6 for v in ip], "s:", ms=3, label="measured, with thread start-up")
    ax.loglog(n, [v.predicted_s * 1e6 for v in ip], "-", label="MultiBSP, r = DAXPY")
    ax.loglog(n, [v.predicted_kernel_rate_s * 1e6 for v in ip], "--", label="MultiBSP, r = the loop's own rate")
    ax.set_xlabel("vector length (doubles)")
    ax.set_ylabel("time (us)")
    ax.legend(fontsize=8)


def multibsp_figure(record: MultiBSPRecord) -> Figure:
    """The multibsp figure: h-communication costs with their fits, and the inner-product validation."""
    fig, axes = new_figure(2, 1, (8, 9))
    plot_hcomm(record, axes[0, 0])
    plot_inner_product(record, axes[1, 0])
    return fig
