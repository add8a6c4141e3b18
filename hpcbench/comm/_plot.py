"""Figures of the comm record (the notebooks and the report draw these)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._format import format_size
from .._plot import as_float, heatmap, new_figure
from ._layerplot import plot_layer_bandwidth, plot_layer_scalability
from ._models import Linear, predict
from ._records import CommRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def echo_medians(record: CommRecord) -> tuple:
    """(sizes in bytes, median one-way seconds) recomputed from the raw
    samples (stored in ns); the derived summary's where the raw part does
    not hold one set of samples per size (a trimmed or hand-edited file)."""
    raw = record.raw.echo
    if isinstance(raw.samples, list) and len(raw.samples) == len(raw.sizes) and all(
            isinstance(s, list) and s for s in raw.samples):
        return np.asarray(raw.sizes, dtype=float), np.array([np.median(as_float(s)) for s in raw.samples]) * 1e-9
    summary = record.derived.echo.summary
    return np.asarray(summary.sizes, dtype=float), np.asarray(summary.median, dtype=float)


def plot_echo(record: CommRecord, time_ax: Any, bandwidth_ax: Any) -> None:
    """Echo latency with the regional model, and bandwidth with n_1/2 and n_90."""
    sizes, median = echo_medians(record)
    shown = sizes > 0
    regions = [Linear(r.latency, r.seconds_per_byte, r.first, r.last, r.rms_relative_residual)
               for r in record.derived.echo.regions]
    time_ax.loglog(sizes[shown], median[shown] * 1e6, "o", ms=3, label="measured (median)")
    time_ax.loglog(sizes[shown], predict(regions, sizes[shown]) * 1e6, "-", label="regional model")
    for r in regions[1:]:
        time_ax.axvline(r.first, color="gray", ls=":", lw=1)
    time_ax.set_xlabel("message size (bytes)")
    time_ax.set_ylabel("one-way time (us)")
    time_ax.set_title("echo between ranks 0 and 1 (dotted: where the model's regions change)", fontsize=9)
    time_ax.legend(fontsize=8)
    bandwidth = sizes[shown] / median[shown] / 1e9
    bandwidth_ax.semilogx(sizes[shown], bandwidth, "o-", ms=3)
    for value, label in ((record.derived.echo.n_half, "n_1/2"), (record.derived.echo.n_90, "n_90")):
        if value:
            bandwidth_ax.axvline(value, color="tab:red", ls="--", lw=1)
            bandwidth_ax.text(value, bandwidth.max() * 0.05, f" {label}", color="tab:red", fontsize=8)
    bandwidth_ax.set_xlabel("message size (bytes)")
    bandwidth_ax.set_ylabel("bandwidth (GB/s)")
    bandwidth_ax.set_title("echo bandwidth (size / one-way time)", fontsize=9)


def plot_collectives(record: CommRecord, ax: Any) -> None:
    """Exchange, broadcast and global sum: median time against message size
    with each one's regional model."""
    d = record.derived
    for fit, label in ((d.echo, "echo (one way)"), (d.exchange, "exchange"), (d.broadcast, "broadcast"),
                       (d.global_sum, "global sum")):
        sizes = np.asarray(fit.summary.sizes, dtype=float)
        median = np.asarray(fit.summary.median, dtype=float)
        shown = sizes > 0
        if not shown.any():
            continue
        line = ax.loglog(sizes[shown], median[shown] * 1e6, "o", ms=2.5, label=label)[0]
        regions = [Linear(r.latency, r.seconds_per_byte, r.first, r.last, r.rms_relative_residual)
                   for r in fit.regions]
        if regions:
            ax.loglog(sizes[shown], predict(regions, sizes[shown]) * 1e6, "-", lw=1, color=line.get_color())
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("time (us)")
    ax.set_title(f"kernels over {record.parameters.ranks} ranks: median (dots) and regional model (lines)",
                 fontsize=9)
    ax.legend(fontsize=8)


def latency_matrix(record: CommRecord) -> np.ndarray:
    """Latency (us) of every pair of ranks at the probe size, symmetric:
    measured where measured, else (auto mode) its layer's latency."""
    ranks = record.parameters.ranks
    matrix = np.full((ranks, ranks), np.nan)
    for layer in record.derived.layers:
        for a, b in layer.pairs:
            matrix[a, b] = matrix[b, a] = layer.latency * 1e6
    for item in record.raw.layers.latencies:
        a, b = item.pair
        matrix[a, b] = matrix[b, a] = item.latency * 1e6
    return matrix


def plot_layers(record: CommRecord, ax: Any) -> None:
    """Servet's all-pairs latency as a heat map."""
    # Servet's Fig. 10a is the heat map's first row (rank 0 to every other rank).
    heatmap(ax, latency_matrix(record), f"Servet Fig. 10a: latency at {record.raw.layers.probe_size} bytes (us)",
            cmap="magma_r")


def plot_overlap(record: CommRecord, saved_ax: Any, percent_ax: Any) -> None:
    """CoMet's overlap: time saved and overlap percentage over vector length x message size."""
    ov = record.derived.overlap
    labels = [f"{s // 1024} KiB" for s in ov.sizes]
    for ax, values, title in ((saved_ax, as_float(ov.saved) * 1e6, "time saved (us)"),
                              (percent_ax, as_float(ov.overlap_percent), "overlap (% of what could be hidden)")):
        heatmap(ax, values, title, labels, ov.vector_lengths, cmap="coolwarm", origin="lower", aspect="auto")
        ax.set_xlabel("message size")
        ax.set_ylabel("DAXPY vector length")


def plot_scaling(record: CommRecord, ax: Any) -> None:
    """CoMet's "number of processors versus time": each collective's time
    against the number of processes (log 2 axis), with the growth fitted."""
    scaling = record.derived.scaling
    if scaling is None:
        ax.text(0.5, 0.5, "collectives against process count:\nneeds 4 ranks or more", ha="center", va="center")
        ax.set_axis_off()
        return
    for curve in scaling.curves:
        fit = curve.fit
        label = f"{curve.kernel}{f' {format_size(curve.size)}' if curve.size else ''}: {fit.model}"
        line, = ax.plot(fit.counts, np.array(fit.times) * 1e6, "o", ms=4, label=label)
        p = np.linspace(min(fit.counts), max(fit.counts), 50)
        if fit.model.startswith("log P") and fit.log_slope is not None and fit.log_intercept is not None:
            ax.plot(p, (fit.log_intercept + fit.log_slope * np.log2(p)) * 1e6, "-", color=line.get_color(), lw=1)
        elif fit.model == "linear" and fit.linear_slope is not None and fit.linear_intercept is not None:
            ax.plot(p, (fit.linear_intercept + fit.linear_slope * p) * 1e6, "--", color=line.get_color(), lw=1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("processes")
    ax.set_ylabel("time (us)")
    ax.legend(fontsize=7)


def comm_figure(record: CommRecord) -> Figure:
    """The comm figure: echo latency and bandwidth; Servet's layers (the
    pairs' latency heat map, each layer's scalability and bandwidth: Fig.
    10a-d); the collectives against message size and against process count;
    the overlap grid."""
    fig, axes = new_figure(5, 2, (11, 18))
    plot_echo(record, axes[0, 0], axes[0, 1])
    plot_layers(record, axes[1, 0])
    plot_layer_scalability(record, axes[1, 1])
    plot_layer_bandwidth(record, axes[2, 0])
    plot_collectives(record, axes[2, 1])
    plot_scaling(record, axes[3, 0])
    axes[3, 1].set_axis_off()
    plot_overlap(record, axes[4, 0], axes[4, 1])
    return fig
