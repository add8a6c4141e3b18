"""Servet's Fig. 10b-d from a comm record: each communication layer's
scalability (the one-way time of a message while k disjoint pairs of the
layer send at once, Fig. 10b) and each layer's bandwidth against the
message size (its representative pair's echo, Fig. 10c and 10d: one panel
per machine in the paper, one per results file here).

Both panels read what every comm record keeps (`derived.layers[]`:
`scalability` and `summary`; the probe size of `parameters`), and draw what
a record has: a layer without two disjoint pairs, or without a measured
size above 0 bytes, is named in the panel as missing instead of drawn
(`layer_panel_gaps`, which the report says in words too)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._format import format_size, microseconds
from .._plot import as_float
from ._models import Linear, predict
from ._records import CommRecord, LayerRecord


def layer_label(index: int, layer: LayerRecord) -> str:
    """'layer 2: other node (14.23 us)': two layers may carry one relation's
    name (its pairs split by their latencies), so the number and latency tell
    them apart."""
    return f"layer {index + 1}: {layer.name} ({microseconds(layer.latency)})"


def layer_bandwidth(layer: LayerRecord) -> tuple[np.ndarray, np.ndarray]:
    """(sizes in bytes, bytes/s) of the layer's representative pair: the
    measured sizes above 0 bytes whose bandwidth is a positive number."""
    s = layer.summary
    sizes = np.asarray(s.sizes, dtype=float)
    bandwidth = as_float(s.bandwidth) if len(s.bandwidth) == len(s.sizes) else np.full(sizes.shape, np.nan)
    keep = (sizes > 0) & np.isfinite(bandwidth) & (bandwidth > 0)
    return sizes[keep], bandwidth[keep]


def layer_model_bandwidth(layer: LayerRecord, sizes: np.ndarray) -> np.ndarray:
    """The layer's regional model as bandwidth (bytes/s) at `sizes`; NaN
    where the model's time is not positive (a region's negative intercept
    below its first size) or the layer has no regions."""
    if not layer.regions or not sizes.size:
        return np.full(sizes.shape, np.nan)
    regions = [Linear(r.latency, r.seconds_per_byte, r.first, r.last, r.rms_relative_residual) for r in layer.regions]
    seconds = predict(regions, sizes)
    return np.where(seconds > 0, sizes / np.where(seconds > 0, seconds, 1.0), np.nan)


def layer_scalability(layer: LayerRecord) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(concurrent pairs, mean one-way seconds, slowdown against one pair
    alone) in order of pairs, the points whose latency is a positive number."""
    points = sorted((x.pairs, x.latency, x.slowdown) for x in layer.scalability
                    if math.isfinite(x.latency) and x.latency > 0)
    table = np.array(points, dtype=float).reshape(-1, 3)
    return table[:, 0], table[:, 1], table[:, 2]


def bandwidth_gaps(record: CommRecord) -> list[str]:
    """The layers Fig. 10c/d cannot draw, and why."""
    if not record.derived.layers:
        return ["no communication layers in this record"]
    return [f"{layer_label(i, layer)} (no message size above 0 B measured)"
            for i, layer in enumerate(record.derived.layers) if not layer_bandwidth(layer)[0].size]


def scalability_gaps(record: CommRecord) -> list[str]:
    """The layers Fig. 10b cannot draw, and why: no point, or one pair
    alone (a layer of fewer than two disjoint pairs has no concurrency)."""
    if not record.derived.layers:
        return ["no communication layers in this record"]
    gaps = []
    for i, layer in enumerate(record.derived.layers):
        points = layer_scalability(layer)[0].size
        if points < 2:
            gaps.append(f"{layer_label(i, layer)} ({'no two disjoint pairs' if points else 'not measured'})")
    return gaps


def layer_panel_gaps(record: CommRecord) -> list[str]:
    """What Fig. 10b-d cannot show for this record, one phrase per panel
    with gaps (empty when every layer has both curves)."""
    out = []
    for panel, gaps in (("Fig. 10b (layer scalability)", scalability_gaps(record)),
                        ("Fig. 10c/d (bandwidth per layer)", bandwidth_gaps(record))):
        if gaps:
            out.append(f"{panel} lacks {'; '.join(gaps)}")
    return out


def _say_missing(ax: Any, panel: str, gaps: list[str], drawn: bool) -> None:
    """The panel's gaps in words: across the empty axes (with the panel's
    name), or in small type under the curves."""
    if not drawn:
        ax.text(0.5, 0.5, "\n".join([f"{panel}: nothing to draw", *gaps]), ha="center", va="center", fontsize=8,
                wrap=True, transform=ax.transAxes)
        ax.set_axis_off()
    elif gaps:
        ax.text(0.01, 0.01, "not drawn: " + "; ".join(gaps), ha="left", va="bottom", fontsize=6, color="0.35",
                wrap=True, transform=ax.transAxes)


def plot_layer_bandwidth(record: CommRecord, ax: Any) -> None:
    """Servet's Fig. 10c/d: the bandwidth of each layer's representative
    pair against the message size (dots, measured medians), with the
    layer's regional model as a line. Both axes logarithmic: layers of one
    machine differ by orders of magnitude (shared memory and a network)."""
    drawn = False
    for i, layer in enumerate(record.derived.layers):
        sizes, bandwidth = layer_bandwidth(layer)
        if not sizes.size:
            continue
        a, b = layer.representative
        line = ax.loglog(sizes, bandwidth / 1e9, "o", ms=3, label=f"{layer_label(i, layer)}, ranks {a}-{b}")[0]
        model = layer_model_bandwidth(layer, sizes)
        if np.isfinite(model).any():
            ax.loglog(sizes, model / 1e9, "-", lw=1, color=line.get_color())
        drawn = True
    _say_missing(ax, "Servet Fig. 10c/d (bandwidth per layer)", bandwidth_gaps(record), drawn)
    if drawn:
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("bandwidth (GB/s)")
        ax.set_title("Servet Fig. 10c/d: bandwidth per layer\n(dots: its representative pair; lines: regional model)",
                     fontsize=9)
        ax.legend(fontsize=7)


def plot_layer_scalability(record: CommRecord, ax: Any) -> None:
    """Servet's Fig. 10b: the mean one-way time of a probe-size message
    while 1, 2, 4 ... disjoint pairs of each layer send at once, with the
    slowdown against one pair alone at the most pairs; dotted, what a fully
    scalable layer would give (every message as fast as one alone)."""
    probe = format_size(record.parameters.probe_size)
    drawn, counts = False, set[int]()
    for i, layer in enumerate(record.derived.layers):
        pairs, seconds, slowdown = layer_scalability(layer)
        if pairs.size < 2:
            continue
        line = ax.plot(pairs, seconds * 1e6, "o-", ms=4, label=layer_label(i, layer))[0]
        ax.axhline(seconds[0] * 1e6, color=line.get_color(), ls=":", lw=1)
        ax.annotate(f"x{slowdown[-1]:.2f}", (pairs[-1], seconds[-1] * 1e6), textcoords="offset points",
                    xytext=(4, 0), fontsize=7, color=line.get_color(), va="center")
        drawn = True
        counts.update(int(k) for k in pairs)
    _say_missing(ax, "Servet Fig. 10b (layer scalability)", scalability_gaps(record), drawn)
    if drawn:
        if max(counts) >= 4:
            ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(counts), [str(k) for k in sorted(counts)])
        ax.margins(x=0.12)      # room for the slowdown written after the last point
        ax.set_xlabel("disjoint pairs of the layer sending at once")
        ax.set_ylabel(f"one-way time of a {probe} message (us)")
        ax.set_title(f"Servet Fig. 10b: layer scalability at {probe} (dotted: one pair alone)", fontsize=9)
        ax.legend(fontsize=7)
