"""The micro-benchmark figures, drawn by the report and by Benchmark.plot:
per kind of figure one axes against message size (log-log: latency in us,
bandwidth in MB/s; nbc's overlap % on its own, linear axes), and the
collectives against the number of processes where the record has them.

Each series is hpcbench's median with its p10-p90 band and OSU's statistic
as a dashed line of the same colour: where the two part, the samples are
skewed (a slow tail lifts OSU's mean, never the median), which is what a
user comparing with an osu_* run needs to see."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._plot import new_figure
from ._records import MicroRecord, MicroSeries
from ._summary import scaling_groups, series_family

#: Per kind, the factor from the record's unit to the plotted one and the axis label.
SCALE = {"latency": (1e6, "latency (us per operation)"), "bandwidth": (1e-6, "bandwidth (MB/s)")}


def _values(series: MicroSeries, field: str) -> np.ndarray:
    """One statistic of every point as floats (NaN where absent)."""
    return np.array([np.nan if getattr(p, field) is None else getattr(p, field) for p in series.points], dtype=float)


def plot_series(series: MicroSeries, ax: Any = None) -> Any:
    """One series on `ax` (made if None): median against size with the
    p10-p90 band, OSU's statistic dashed; returns the axes."""
    if ax is None:
        _, axes = new_figure(1, 1, size=(6.0, 4.2))
        ax = axes[0, 0]
    scale, ylabel = SCALE[series.kind]
    sizes = np.array([p.size for p in series.points], dtype=float)
    (line,) = ax.plot(sizes, _values(series, "median") * scale, "o-", ms=3, lw=1.2, label=series.label)
    color = line.get_color()
    ax.fill_between(sizes, _values(series, "p10") * scale, _values(series, "p90") * scale, color=color, alpha=0.2,
                    lw=0)
    # No legend entry of its own: the panel's title says dashed is OSU's, and thirteen collectives would
    # otherwise fill the axes with legend.
    ax.plot(sizes, _values(series, "osu") * scale, "--", lw=1, color=color, label="_osu")
    _log_log(ax, "message size (bytes)", ylabel)
    return ax


def _log_log(ax: Any, xlabel: str, ylabel: str) -> None:
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)


def plot_overlap(series: MicroSeries, ax: Any) -> None:
    """nbc: IMB-NBC's overlap % against size (linear, 0 to 100)."""
    sizes = np.array([p.size for p in series.points], dtype=float)
    ax.plot(sizes, _values(series, "overlap_percent"), "o-", ms=3, lw=1.2, label=series.label)
    ax.set_xscale("log", base=2)
    ax.set_ylim(-5, 105)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("overlap (%, IMB-NBC)")
    ax.grid(True, which="both", alpha=0.3)


def plot_scaling(record: MicroRecord, ax: Any) -> None:
    """Median against the number of processes, one line per test and size
    (the full run's point included)."""
    for group in scaling_groups(record).values():
        scale, ylabel = SCALE[group[0].kind]
        sizes = sorted({p.size for s in group for p in s.points})
        for size in sizes:
            at = [(s.procs, p.median) for s in group for p in s.points if p.size == size]
            procs, values = zip(*at)
            ax.plot(procs, np.array(values, dtype=float) * scale, "o-", ms=3, lw=1.2,
                    label=f"{group[0].label} {size} B")
        _log_log(ax, "processes", ylabel)


def panels(record: MicroRecord) -> list[str]:
    """The axes the figure holds, in order: "latency", "bandwidth" (each
    where a series is of that kind), "overlap" (nbc), "scaling"."""
    series = record.derived.series if record.derived else []
    out = [kind for kind in SCALE if any(s.kind == kind for s in series)]
    if any(series_family(s) == "nbc" for s in series):
        out.append("overlap")
    if record.derived and record.derived.scaling:
        out.append("scaling")
    return out


def _title(ax: Any, text: str) -> None:
    ax.set_title(text, fontsize=10)
    handles = ax.get_legend_handles_labels()[0]
    if handles:
        ax.legend(fontsize=6 if len(handles) > 8 else 7, ncol=2 if len(handles) > 4 else 1)


def micro_figure(record: MicroRecord) -> Any:
    """The record's figure: one axes per panel (see `panels`)."""
    names = panels(record) or ["latency"]
    fig, axes = new_figure(1, len(names), size=(5.5 * len(names), 4.4))
    by_name = dict(zip(names, axes[0]))
    series = record.derived.series if record.derived else []
    if len(series) > 10:        # thirteen collectives: the default cycle's ten colours would repeat
        from matplotlib import colormaps
        for ax in by_name.values():
            ax.set_prop_cycle(color=[colormaps["tab20"](i) for i in range(20)])
    for s in series:
        plot_series(s, by_name[s.kind])
        if series_family(s) == "nbc":
            plot_overlap(s, by_name["overlap"])
    titles = {"latency": "latency against size (dashed: OSU's statistic)",
              "bandwidth": "bandwidth against size (dashed: OSU's statistic)",
              "overlap": "overlap of the non-blocking collectives", "scaling": "against the number of processes"}
    if "scaling" in by_name:
        plot_scaling(record, by_name["scaling"])
    for name, ax in by_name.items():
        _title(ax, titles[name])
    p = record.parameters
    fig.suptitle(f"{record.name}: OSU/IMB micro-benchmarks" + (f" over {p.ranks} ranks" if p else ""), fontsize=11)
    return fig
