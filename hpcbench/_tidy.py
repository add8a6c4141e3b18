"""The tidy export of a results file: one row per measured figure, for
spreadsheets and pandas (`hpcbench show --format csv|json`,
`Results.to_frame()`; docs/results-format.md, "Tidy export").

A row is one number: which benchmark and node measured it, what it is
(`quantity`), the swept parameter it belongs to and that parameter's value
(empty for a single figure), the value, its unit and the statistic it is
(median, min, fit, derived, ...). Each benchmark gives the rows of its own
records (`Benchmark.tidy`, in its package's `_tidy.py`), so adding a
benchmark adds its rows without touching this file.

Values that are missing or not finite give no row: JSON output never holds
NaN, and `value` is always a number. Context facts (host, CPU, timer) are
not rows.

This module imports only the standard library (and, for type checkers
alone, the Record and Headline types): the domains' `_tidy.py` files import
it, and `rows` is handed the registry's benchmarks instead of importing the
registry (which imports every domain).
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TextIO, TypeGuard

if TYPE_CHECKING:
    from ._headline import Headline
    from ._record import Record

__all__ = ["COLUMNS", "FORMATS", "STATISTICS", "UNITS", "Row", "RowBuilder", "headline_rows", "parse_csv", "rows",
           "write_csv", "write_json"]

#: The units a row's value may have. "ns" and "ticks" are per access (the
#: cache sweep keeps both); "ratio" is dimensionless (slowdowns, ratDist).
UNITS = ("bytes", "s", "ns", "ticks", "bytes/s", "s/byte", "flop/s", "flops", "flops/word", "doubles", "ratio",
         "count", "%")

#: The statistics a row may be: over samples (median, min, max, mean,
#: trimmed_mean, p10, p90, p99), a model's parameter (fit), or a result of the
#: analysis (derived: a cache size, a ratio, a level's bandwidth); the
#: OSU/IMB families (hpcbench/micro) add their peers' own, from the same
#: samples: osu (OSU's figure), imb_min, imb_max, imb_avg (IMB's t_min,
#: t_max, t_avg), imb (IMB-NBC's t_pure, t_CPU, overlap) and rank_mean (the
#: median over samples of the mean over ranks, beside the slowest rank's).
STATISTICS = ("median", "min", "max", "mean", "trimmed_mean", "p10", "p90", "p99", "fit", "derived", "osu", "imb_min",
              "imb_max", "imb_avg", "imb", "rank_mean")

#: The formats `show --format` writes (text is `show`'s summary).
FORMATS = ("text", "csv", "json")

Number = int | float


@dataclass(frozen=True)
class Row:
    """One measured figure. parameter_value is None where the figure belongs
    to no swept parameter (parameter is then "")."""

    benchmark: str                  #: the benchmark's name ("cache", "comm", ...)
    node: str                       #: the node that measured it ("" where the record names none)
    quantity: str                   #: what it is ("latency", "echo_time", "cache_size", ...)
    parameter: str                  #: the swept parameter ("size_bytes", "processes", "distance", ...) or ""
    parameter_value: Number | None  #: its value, or None
    value: Number                   #: the figure itself, in `unit`
    unit: str                       #: one of UNITS
    statistic: str                  #: one of STATISTICS

    def to_dict(self) -> dict[str, Any]:
        """The row as a dict in column order."""
        return dataclasses.asdict(self)


#: The columns of the export, in order.
COLUMNS = tuple(f.name for f in dataclasses.fields(Row))


def _finite(value: object) -> TypeGuard[Number]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class RowBuilder:
    """Collects the rows of one record: benchmark and node come from the
    record, each `add` gives one figure and each `curve` one figure per
    value of a swept parameter; missing and non-finite values are skipped."""

    def __init__(self, record: Record):
        self.benchmark: str = record.name
        self.node: str = record.node or ""
        self.rows: list[Row] = []

    def add(self, quantity: str, value: object, unit: str, statistic: str, parameter: str = "",
            parameter_value: object = None) -> None:
        """One figure (skipped if `value` is None or not finite, as is a
        parameter value given that is not a finite number)."""
        if not _finite(value) or parameter_value is not None and not _finite(parameter_value):
            return
        self.rows.append(Row(self.benchmark, self.node, quantity, parameter, parameter_value, value, unit, statistic))

    def curve(self, quantity: str, parameter: str, points: Iterable[object], values: Iterable[object], unit: str,
              statistic: str) -> None:
        """One figure per point of a sweep: `values[i]` at `parameter` = `points[i]`."""
        for point, value in zip(points, values):
            self.add(quantity, value, unit, statistic, parameter, point)

    def table(self, quantity: str, parameter: str, values: Mapping[str, object], unit: str, statistic: str) -> None:
        """One figure per entry of a results-file table keyed by a step ("1", "2", ...)."""
        for key, value in values.items():
            self.add(quantity, value, unit, statistic, parameter, int(key) if key.isdigit() else None)


def headline_rows(record: Record, headlines: Iterable[Headline]) -> list[Row]:
    """The generic rows of a benchmark without its own: one per headline
    (label as the quantity, statistic "derived"; units the rows do not
    know are left out)."""
    builder = RowBuilder(record)
    for h in headlines:
        if h.unit in UNITS:
            builder.add(h.label, h.value, h.unit, "derived")
    return builder.rows


class _Tidies(Protocol):
    """What `rows` needs of a benchmark (hpcbench._protocol.Benchmark, not
    imported here: the protocol imports this module)."""

    @property
    def name(self) -> str: ...

    def tidy(self, record: Any) -> list[Row]: ...


class _HasRecords(Protocol):
    """What `rows` needs of a results file (hpcbench._results.Results)."""

    @property
    def benchmarks(self) -> list[Record]: ...


def rows(results: _HasRecords, benchmarks: Iterable[_Tidies]) -> list[Row]:
    """Every row of a results file, record by record in file order.
    `benchmarks` are the Benchmark instances that know their records (the
    registry's BENCHMARKS); records that failed, were skipped or come from
    a benchmark this version does not know give no rows."""
    by_name = {b.name: b for b in benchmarks}
    out: list[Row] = []
    for record in results.benchmarks:
        bench = by_name.get(record.name)
        if bench is not None and record.ok:
            out.extend(bench.tidy(record))
    return out


def write_csv(table: Iterable[Row], stream: TextIO) -> None:
    """CSV with a header line; an empty parameter_value is an empty field.
    Numbers are written exactly (Python's shortest round-trip repr); text
    from the results file (a node name) has its control characters shown as
    escapes (hpcbench._terminal.shown), so that every row is one line."""
    from ._terminal import shown
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in table:
        writer.writerow(["" if v is None else shown(v) if isinstance(v, str) else v for v in dataclasses.astuple(row)])


def write_json(table: Iterable[Row], stream: TextIO) -> None:
    """A JSON list of objects, one per row (one per line), keys in column
    order; parameter_value is null where there is none."""
    stream.write("[" + ",".join("\n" + json.dumps(row.to_dict(), allow_nan=False) for row in table) + "\n]\n")


def parse_csv(text: str) -> list[Row]:
    """The rows of the CSV `write_csv` wrote (numbers read back as int or
    float as written): the export read back without pandas."""
    reader = csv.DictReader(io.StringIO(text))
    out = []
    for item in reader:
        value = _number(item["value"])
        pv = item["parameter_value"]
        out.append(Row(item["benchmark"], item["node"], item["quantity"], item["parameter"],
                       None if pv == "" else _number(pv), value, item["unit"], item["statistic"]))
    return out


def _number(text: str) -> Number:
    try:
        return int(text)
    except ValueError:
        return float(text)
