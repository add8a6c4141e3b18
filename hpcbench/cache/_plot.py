"""Figures of the cache and shared-caches records (the notebooks and the
report draw these)."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .._plot import as_float, heatmap, new_figure
from ._records import CacheRecord, SharedCachesRecord
from ._rises import monotone_fit

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _kib(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=float) / 1024


def plot_latency(record: CacheRecord, ax: Any) -> None:
    """Time per access against array size: the sweep, its refinement, the
    monotone fit, the measured levels (red dashed) and hwloc's (green dotted)."""
    sizes, refined = _kib(record.raw.sizes), np.asarray(record.raw.refined, dtype=bool)
    cycles = np.asarray(record.derived.cycles_per_access, dtype=float)
    ax.plot(sizes[~refined], cycles[~refined], "o", ms=3, label="sweep")
    ax.plot(sizes[refined], cycles[refined], ".", ms=3, label="refinement")
    ax.plot(sizes, monotone_fit(cycles), "-", lw=1, color="k", label="monotone fit")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    top = cycles.max()
    for lv in record.derived.levels:
        flagged = lv.status == "flagged"
        ax.axvline(lv.size / 1024, color="tab:orange" if flagged else "tab:red", ls="--", lw=1)
        ax.text(lv.size / 1024, top, " ?" if flagged else f" L{lv.level}",
                color="tab:orange" if flagged else "tab:red", va="top")
        if lv.latency_cycles is not None and lv.plateau:
            ax.hlines(lv.latency_cycles, lv.plateau[0] / 1024, lv.plateau[1] / 1024, color="tab:purple", lw=2)
    for hw in record.derived.hwloc_levels:
        ax.axvline(hw.size / 1024, color="tab:green", ls=":", lw=1)
    ax.set_xlabel("array size (KiB)")
    ax.set_ylabel("TSC ticks per access")
    ax.set_title("time per access (red dashed: levels; orange: flagged; green dotted: hwloc; "
                 "purple: plateau latency)", fontsize=9)
    ax.legend(fontsize=8)


def plot_bandwidth(record: CacheRecord, ax: Any) -> None:
    """Read bandwidth against size, with each level's figure at the size it
    was read (records of earlier versions have none: the axes say so)."""
    d = record.derived
    if not d.bandwidth_sizes:
        ax.text(0.5, 0.5, "no bandwidth in this record (written by an earlier hpcbench)", ha="center",
                va="center", transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])
        return
    ax.plot(_kib(d.bandwidth_sizes), np.asarray(as_float(d.bandwidth)) / 1e9, "o-", ms=3,
            label=f"read ({record.parameters.isa or '?'} loads)")
    for lv in d.levels:
        if lv.bandwidth is not None and lv.bandwidth_size:
            ax.plot(lv.bandwidth_size / 1024, lv.bandwidth / 1e9, "s", color="tab:red", ms=6)
            ax.text(lv.bandwidth_size / 1024, lv.bandwidth / 1e9, f" L{lv.level}", color="tab:red", va="bottom")
    for hw in d.hwloc_levels:
        ax.axvline(hw.size / 1024, color="tab:green", ls=":", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("array size (KiB)")
    ax.set_ylabel("GB/s")
    ax.set_title("read bandwidth (squares: each level's figure)", fontsize=9)
    ax.legend(fontsize=8)


def plot_gradient(record: CacheRecord, ax: Any) -> None:
    """C[k+1] / C[k] over the first sweep's sizes (the paper's Fig. 2b)."""
    refined = np.asarray(record.raw.refined, dtype=bool)
    sizes = _kib(record.raw.sizes)[~refined]
    cycles = np.asarray(record.derived.cycles_per_access, dtype=float)[~refined]
    ax.plot(sizes[:-1], cycles[1:] / cycles[:-1], "o-", ms=3)
    ax.axhline(1.0, color="gray", lw=0.8)
    for lv in record.derived.levels:
        ax.axvline(lv.size / 1024, color="tab:red", ls="--", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("array size (KiB)")
    ax.set_ylabel("C[k+1] / C[k]")
    ax.set_title("gradient of the first sweep", fontsize=9)


def pass_spread(record: CacheRecord) -> np.ndarray:
    """Per size, (max - min) / median of the per-pass minima: how much the
    passes (each a new page placement) disagree."""
    raw = np.array([as_float(row) for row in record.raw.cycles_per_access])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # passes a size did not have are NaN
        per_pass = np.nanmin(raw, axis=2)
        spread: np.ndarray = (np.nanmax(per_pass, axis=1) - np.nanmin(per_pass, axis=1)) / np.nanmedian(per_pass,
                                                                                                     axis=1)
        return spread


def plot_spread(record: CacheRecord, ax: Any) -> None:
    """Spread of each size's passes (%): how much to trust each point."""
    ax.semilogx(_kib(record.raw.sizes), 100 * pass_spread(record), ".", base=2)
    ax.set_xlabel("array size (KiB)")
    ax.set_ylabel("spread across passes (%)")


def cache_figure(record: CacheRecord) -> Figure:
    """The cache figure: time per access with the levels, read bandwidth,
    the gradient, and the pass-to-pass spread."""
    fig: Figure
    fig, axes = new_figure(4, 1, (9, 13))
    plot_latency(record, axes[0, 0])
    plot_bandwidth(record, axes[1, 0])
    plot_gradient(record, axes[2, 0])
    plot_spread(record, axes[3, 0])
    return fig


def sharing_matrix(record: SharedCachesRecord, index: int) -> np.ndarray:
    """Co-run ratio of every tested pair of one level, symmetric, NaN where untested."""
    pus = record.parameters.pus
    at = {c: i for i, c in enumerate(pus)}
    matrix = np.full((len(pus), len(pus)), np.nan)
    for r in record.derived.levels[index].ratios:
        a, b = r.pair
        matrix[at[a], at[b]] = matrix[at[b], at[a]] = r.ratio
    return matrix


def plot_sharing(record: SharedCachesRecord, axes: Any) -> None:
    """One heat map of co-run ratios per cache level, with both verdicts in
    the title (red where they disagree)."""
    pus = record.parameters.pus
    for i, (ax, lv) in enumerate(zip(axes, record.derived.levels)):
        matrix = sharing_matrix(record, i)
        verdict = lv.groups if lv.decidable else "undecidable"
        disagrees = lv.decidable and lv.groups != lv.hwloc_groups
        heatmap(ax, matrix, f"L{lv.level}: threshold {lv.threshold:.2f}\nmeasured {verdict}\nhwloc {lv.hwloc_groups}"
                + ("\nDISAGREES with hwloc" if disagrees else ""),
                pus, pus, vmin=1, vmax=max(2.5, float(np.nanmax(matrix, initial=1.0))), colorbar="co-run ratio")
        if disagrees:
            ax.title.set_color("tab:red")


def shared_figure(record: SharedCachesRecord) -> Figure:
    """The shared-caches figure: one co-run ratio heat map per cache level."""
    n = max(len(record.derived.levels), 1)
    fig: Figure
    fig, axes = new_figure(1, n, (4 * n, 3.8))
    plot_sharing(record, axes[0])
    return fig
