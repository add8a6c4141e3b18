"""A micro-benchmark record as rows of the tidy export (hpcbench._tidy;
docs/results-format.md, "Tidy export"): every statistic of every point,
OSU's and IMB's beside hpcbench's, so a spreadsheet compares like with like."""
from __future__ import annotations

import dataclasses

from .._tidy import Row, RowBuilder
from ._records import MicroRecord, MicroSeries
from ._summary import scaling_groups, series_family

#: Point field -> the statistic its rows carry (hpcbench._tidy.STATISTICS).
STATISTIC_OF = {"median": "median", "p10": "p10", "p90": "p90", "osu": "osu", "rank_mean": "rank_mean",
                "t_min": "imb_min", "t_max": "imb_max", "t_avg": "imb_avg"}
#: nbc's IMB-NBC figures: point field -> (quantity suffix, unit); statistic "imb".
NBC_FIGURES = {"t_pure": ("t_pure", "s"), "t_cpu": ("t_cpu", "s"), "overlap_percent": ("overlap", "%")}


def quantity(series: MicroSeries) -> str:
    """The test's name, then "_latency" or "_bandwidth" unless the name
    already ends so, then "_SYNC" for one-sided tests: "latency",
    "bw_bandwidth", "allreduce_latency", "put_latency_lock"."""
    word = "latency" if series.kind == "latency" else "bandwidth"
    name = series.test if series.test.endswith(word) else f"{series.test}_{word}"
    return f"{name}_{series.sync}" if series.sync else name


def _series_rows(out: RowBuilder, series: MicroSeries, parameter: str, at: list[int], suffix: str = "") -> None:
    """Every statistic of the series' points as curves over `at`; `suffix`
    names a second dimension (" size 8" for a curve over processes)."""
    name = quantity(series)
    for field, statistic in STATISTIC_OF.items():
        out.curve(name + suffix, parameter, at, [getattr(p, field) for p in series.points], series.unit, statistic)
    if series_family(series) == "nbc":
        base = name.removesuffix("_latency")
        for field, (figure, unit) in NBC_FIGURES.items():
            out.curve(f"{base}_{figure}{suffix}", parameter, at, [getattr(p, field) for p in series.points], unit,
                      "imb")


def micro_rows(record: MicroRecord) -> list[Row]:
    """Per series of the full run one curve per statistic over the message
    size (parameter "size_bytes"; seconds per operation or bytes per
    second); nbc adds TEST_t_pure, TEST_t_cpu (s) and TEST_overlap (%),
    statistic "imb". The tests run at several numbers of processes give
    "QUANTITY size N" over "processes" (the full run's point included).
    mbw_mr's message rate is no row: it is the bandwidth over the size."""
    out = RowBuilder(record)
    if record.derived is None:
        return out.rows
    for series in record.derived.series:
        _series_rows(out, series, "size_bytes", [p.size for p in series.points])
    for group in scaling_groups(record).values():
        for size in sorted({p.size for s in group for p in s.points}):
            for s in group:
                _series_rows(out, _at_size(s, size), "processes", [s.procs], f" size {size}")
    return out.rows


def _at_size(series: MicroSeries, size: int) -> MicroSeries:
    """The series cut to its point at `size` (no point where it has none)."""
    return dataclasses.replace(series, points=[p for p in series.points if p.size == size])
