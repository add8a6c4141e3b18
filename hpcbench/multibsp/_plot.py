"""Figures of the multibsp record (the paper's Figure 7, and the
inner-product validation); the notebooks and the report draw these."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._format import format_size
from .._plot import new_figure
from ._records import MultiBSPRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def plot_hcomm(record: MultiBSPRecord, ax: Any) -> None:
    """Superstep cost (flops) against h for every component, with the g/L
    fits over all h (solid) and over h >= p (dashed)."""
    for i, lv in enumerate(record.derived.levels):
        for k, comp in enumerate(lv.components):
            # one colour per level; a level of many components is one legend entry
            many = len(lv.components) > 4
            label = (f"level {lv.level} ({len(lv.components)} components)" if k == 0 else None) if many else \
                f"level {lv.level} PUs {comp.pus}"
            colour = f"C{i}" if many else None
            flops = np.asarray(comp.flops, dtype=float)
            h = np.arange(flops.size)
            line = ax.plot(h, flops, ".", ms=3, label=label, color=colour)[0]
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
    by_level = [(v.n, v.predicted_level_rate_s) for v in ip if v.predicted_level_rate_s is not None]
    if by_level:     # files before issue 27 have no r per memory level
        ax.loglog([x for x, _ in by_level], [t * 1e6 for _, t in by_level], "-.", lw=2,
                  label="MultiBSP, r per memory level")
    ax.set_xlabel("vector length (doubles)")
    ax.set_ylabel("time (us)")
    ax.set_title("inner product over the whole tree: measured against the MultiBSP prediction", fontsize=9)
    ax.legend(fontsize=8)


#: Above this many PUs the leaves are drawn without their numbers.
_LABELLED_PUS = 32
#: A component's box carries its p and m when it is at least this wide (inches).
_TEXT_WIDTH_IN = 0.8


def _level_text(lv, tree_level) -> str:
    """A level's shape and its g and L (mean over its components; the spread where they differ)."""
    shapes = sorted({(c.p, c.m, c.memories[0][0] if c.memories and c.memories[0] else "")
                     for c in (tree_level.components if tree_level else [])})
    shape = "; ".join(f"p={p}, m={format_size(m)}" + (f" ({kind})" if kind else "") for p, m, kind in shapes[:2])
    count = f"{len(tree_level.components)} x " if tree_level and len(tree_level.components) > 1 else ""
    spread = f" (g spread {100 * lv.g_spread:.0f}%)" if lv.g_spread else ""
    return (f"level {lv.level}: {count}{shape}{'; ...' if len(shapes) > 2 else ''}\n"
            f"g = {lv.g:.1f} flops/word, L = {lv.L:.0f} flops{spread}")


def plot_tree(record: MultiBSPRecord, ax: Any) -> None:
    """The MultiBSP tree (the paper's Figure 7): PUs at the bottom, each
    component a box over the PUs it holds (with its p, m and the memory that
    gives m where the box is wide enough), each level's shape, g and L
    beside it."""
    d = record.derived
    pus = sorted({pu for lv in d.tree for c in lv.components for pu in c.pus})
    x = {pu: i for i, pu in enumerate(pus)}
    right = len(pus) - 0.5 + max(0.6 * len(pus), 4.0)          # room for the levels' text
    inches_per_pu = 0.8 * ax.figure.get_figwidth() / (right + 0.8)
    centre = {}                                                 # a component's PUs -> its x
    for lv in d.tree:
        for c in lv.components:
            xs = [x[pu] for pu in c.pus if pu in x]
            if not xs:
                continue
            mid = (min(xs) + max(xs)) / 2
            centre[tuple(c.pus)] = mid
            for child in c.children:                            # a PU index, or a child component's PUs
                cx, cy = ((x.get(child), 0) if isinstance(child, int) else
                          (centre.get(tuple(child)), lv.level - 1))
                if cx is not None:
                    ax.plot([mid, cx], [lv.level - 0.2, cy + (0.2 if cy else 0.05)], color="0.6", lw=0.7)
            half = (max(xs) - min(xs)) / 2 + 0.35
            ax.add_patch(_box(mid - half, lv.level - 0.2, 2 * half, 0.4))
            if 2 * half * inches_per_pu >= _TEXT_WIDTH_IN:
                kind = c.memories[0][0] if c.memories and c.memories[0] else ""
                ax.text(mid, lv.level, f"p={c.p}, m={format_size(c.m)}" + (f"\n{kind}" if kind else ""),
                        ha="center", va="center", fontsize=7, linespacing=1.1)
    ax.plot(range(len(pus)), [0] * len(pus), "o", ms=4 if len(pus) <= _LABELLED_PUS else 2, color="tab:blue")
    if len(pus) <= _LABELLED_PUS:
        for pu, i in x.items():
            ax.text(i, -0.12, str(pu), ha="center", va="top", fontsize=7)
    by_level = {lv.level: lv for lv in d.tree}
    for lv in d.levels:
        ax.text(len(pus) + 0.2, lv.level, _level_text(lv, by_level.get(lv.level)), ha="left", va="center",
                fontsize=8, color="tab:red", linespacing=1.3)
    top = max((lv.level for lv in d.tree), default=0)
    ax.set_xlim(-0.8, right)
    ax.set_ylim(-0.5, top + 0.5)
    ax.set_yticks(range(top + 1), ["PUs"] + [f"level {i}" for i in range(1, top + 1)], fontsize=8)
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_title("MultiBSP tree: components of p children sharing m bytes; g (flops per word) and L (flops) "
                 "per level", fontsize=9)


def _box(x0: float, y0: float, width: float, height: float) -> Any:
    from matplotlib.patches import FancyBboxPatch
    return FancyBboxPatch((x0, y0), width, height, boxstyle="round,pad=0.02", facecolor="#e8f0fb",
                          edgecolor="tab:blue", lw=0.8)


def multibsp_figure(record: MultiBSPRecord) -> Figure:
    """The multibsp figure: the tree with g and L, h-communication costs
    with their fits, and the inner-product validation."""
    levels = max((lv.level for lv in record.derived.tree), default=0)
    tree_height = 1.0 + 0.8 * levels
    fig, axes = new_figure(3, 1, (8, 9 + tree_height), height_ratios=[tree_height, 4.5, 4.5])
    plot_tree(record, axes[0, 0])
    plot_hcomm(record, axes[1, 0])
    plot_inner_product(record, axes[2, 0])
    return fig
