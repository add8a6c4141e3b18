"""The lines `hpcbench show` prints for a micro-benchmark record (p2p,
collectives, nbc, rma): one OSU-style table per series, then the
collectives against the number of processes.

The tables print what OSU and IMB print, in their units (latency in us,
bandwidth in MB/s of 1e6 bytes, message rate in messages/s, sizes in plain
bytes), beside hpcbench's own median and spread from the same samples, so
a user can set hpcbench's output next to an osu_* or IMB run line by line.
Collectives print both views the issue asks to keep apart: the slowest
rank per iteration (when the operation is over for everyone: hpcbench's)
and the mean over the ranks (what OSU's and IMB's averages are).
"""
from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from ._records import MicroParameters, MicroPoint, MicroRecord, MicroSeries
from ._tests import TESTS

#: Lines stay under this width (a terminal, a pasted acceptance report).
WIDTH = 119
#: Width of the size column (1 GiB, the largest size a list may hold, is 10 digits).
SIZE_WIDTH = 11
#: Width of every value column.
COLUMN_WIDTH = 11

#: What p2p's latency header says: the issue found hpcbench's echo and
#: OSU's ping-pong differ by up to 1.47x at 64 KiB, and both are right.
PING_PONG_NOTE = ("OSU's ping-pong: each side answers from its own unchanged send buffer, which stays cached; "
                  "comm's echo is CoMet's: it sends back what it received, so every round trip moves freshly "
                  "written data; the two measure different things")

#: Said once per record above its first collective table, so the two views cannot be mistaken for each other.
COLLECTIVE_LEGEND = ("slowest rank: per iteration, the time of the rank that finished last (the collective is "
                     "over only then; hpcbench's figure); mean over ranks: per iteration, the mean of the ranks' "
                     "times (the view of OSU's and IMB's averages); OSU avg, IMB t_min/t_max/t_avg: from each "
                     "rank's mean over its timed loop")
#: Said once per record above its first nbc table: IMB-NBC's definitions.
NBC_LEGEND = ("t_ovrl: the non-blocking call, computation and the wait; t_pure: the call and the wait alone; "
              "t_CPU: the computation alone; overlap: 100 * (t_pure + t_CPU - t_ovrl) / min(t_pure, t_CPU), "
              "clamped to 0..100 (IMB-NBC)")


def _us(seconds: float | None) -> str:
    """Seconds as OSU prints latencies: microseconds, two decimals."""
    return "-" if seconds is None else f"{seconds * 1e6:.2f}"


def _mbs(rate: float | None) -> str:
    """Bytes per second as OSU prints bandwidths: MB/s of 1e6 bytes, two decimals."""
    return "-" if rate is None else f"{rate / 1e6:.2f}"


def _plain(value: float | None) -> str:
    """Messages per second and percentages: two decimals, as OSU and IMB print them."""
    return "-" if value is None else f"{value:.2f}"


@dataclass(frozen=True)
class Column:
    """One column of a table: the group it sits under (one header line
    above the titles), its title, and how a point's cell reads."""

    group: str
    title: str
    cell: Callable[[MicroPoint], str]


def _latency_columns() -> list[Column]:
    ours = "hpcbench, us per operation"
    return [Column(ours, "median", lambda p: _us(p.median)), Column(ours, "p10", lambda p: _us(p.p10)),
            Column(ours, "p90", lambda p: _us(p.p90)), Column("OSU, us", "avg", lambda p: _us(p.osu))]


def _collective_columns() -> list[Column]:
    slowest, mean, imb = "slowest rank per iteration, us", "mean over ranks", "IMB, us"
    return [Column(slowest, "median", lambda p: _us(p.median)), Column(slowest, "p10", lambda p: _us(p.p10)),
            Column(slowest, "p90", lambda p: _us(p.p90)), Column(mean, "median", lambda p: _us(p.rank_mean)),
            Column("OSU, us", "avg", lambda p: _us(p.osu)), Column(imb, "t_min", lambda p: _us(p.t_min)),
            Column(imb, "t_max", lambda p: _us(p.t_max)), Column(imb, "t_avg", lambda p: _us(p.t_avg))]


def _bandwidth_columns(message_rate: bool) -> list[Column]:
    ours = "hpcbench, MB/s"
    columns = [Column(ours, "median", lambda p: _mbs(p.median)), Column(ours, "p10", lambda p: _mbs(p.p10)),
               Column(ours, "p90", lambda p: _mbs(p.p90)), Column("OSU", "MB/s", lambda p: _mbs(p.osu))]
    if message_rate:
        columns.append(Column("OSU", "messages/s", lambda p: _plain(p.message_rate)))
    return columns


def _nbc_columns() -> list[Column]:
    ovrl, imb = "t_ovrl, us", "IMB-NBC, us and %"
    return [Column(ovrl, "median", lambda p: _us(p.median)), Column(ovrl, "OSU avg", lambda p: _us(p.osu)),
            Column(imb, "t_pure", lambda p: _us(p.t_pure)), Column(imb, "t_CPU", lambda p: _us(p.t_cpu)),
            Column(imb, "overlap[%]", lambda p: _plain(p.overlap_percent))]


def series_family(series: MicroSeries) -> str:
    """The family of a series' test ("" for a test this version does not know)."""
    test = TESTS.get(series.test)
    return test.family if test else ""


def columns_for(series: MicroSeries) -> list[Column]:
    """The value columns of a series' table, by its family and kind."""
    family = series_family(series)
    if family == "nbc":
        return _nbc_columns()
    if series.kind == "bandwidth":
        return _bandwidth_columns(any(p.message_rate is not None for p in series.points))
    return _collective_columns() if family == "collectives" else _latency_columns()


def _runs(columns: list[Column]) -> list[tuple[int, int]]:
    """(first, last) index of each run of consecutive columns of one group."""
    runs: list[tuple[int, int]] = []
    for i, column in enumerate(columns):
        if runs and columns[runs[-1][0]].group == column.group:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


def column_widths(columns: list[Column]) -> list[int]:
    """Each column's width: COLUMN_WIDTH, more for a longer title, and the
    first column of a group widened until the group's name fits over it
    with two spaces to spare (so no two labels ever touch)."""
    widths = [max(COLUMN_WIDTH, len(c.title) + 2) for c in columns]
    for first, last in _runs(columns):
        short = len(columns[first].group) + 2 - sum(widths[first:last + 1])
        widths[first] += max(0, short)
    return widths


def table_lines(series: MicroSeries, indent: str = "    ") -> list[str]:
    """The group line, the column titles and one row per size (plain bytes,
    as OSU prints them)."""
    columns = columns_for(series)
    widths = column_widths(columns)
    groups = "".join(f"{columns[first].group:>{sum(widths[first:last + 1])}}" for first, last in _runs(columns))
    lines = [indent + " " * SIZE_WIDTH + groups,
             indent + f"{'Size':>{SIZE_WIDTH}}" + "".join(f"{c.title:>{w}}" for c, w in zip(columns, widths))]
    for point in series.points:
        lines.append(indent + f"{point.size:>{SIZE_WIDTH}}" + "".join(f"{c.cell(point):>{w}}"
                                                                       for c, w in zip(columns, widths)))
    return lines


def _wrapped(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "    ")


def series_header(series: MicroSeries) -> list[str]:
    """'allreduce: DEFINITION; peer osu_allreduce, IMB-MPI1 Allreduce; 4 processes', wrapped."""
    test = TESTS.get(series.test)
    parts = [f"{series.label}: {series.definition}"]
    if test is not None:
        parts.append(f"peer {test.peer}")
    parts.append(f"{series.procs} processes")
    if series.sync:
        parts.append(f"synchronisation {series.sync}")
    if series.pairs:
        parts.append(f"{series.pairs} pair{'s' if series.pairs > 1 else ''}")
    if series.window:
        parts.append(f"window {series.window} messages")
    if test is not None and test.family == "p2p" and test.name == "latency" and "CoMet" not in series.definition:
        parts.append(PING_PONG_NOTE)        # said once: the measurement's own definition may say it already
    return _wrapped("; ".join(parts), "  ")


def _samples_text(p: MicroParameters) -> str:
    if p.iterations is not None:
        warmup = "" if p.warmup is None else f" after {p.warmup} warm-up"
        return f"{p.iterations} timed operations per test and size{warmup} (OSU's -i and -x)"
    return f"samples from a {p.budget_s:g} s budget per test and size"


def record_header(record: MicroRecord) -> list[str]:
    """What ran: the family, the ranks and nodes, the suite, the samples, the buffers."""
    p = record.parameters
    if p is None:
        return [f"{record.name}: OSU/IMB micro-benchmarks"]
    nodes = f"{p.nodes} node{'s' if p.nodes > 1 else ''}"
    return _wrapped(f"{p.family}: OSU/IMB micro-benchmarks over {p.ranks} ranks on {nodes}; {p.suite} suite; "
                    f"{_samples_text(p)}; buffers: {p.buffers}; every payload verified after its timing", "")


def scaling_groups(record: MicroRecord) -> dict[tuple[str, str | None], list[MicroSeries]]:
    """(test, sync) -> its series at every number of processes, fewest
    first: the scaling series, then the full run's series cut to the sizes
    they measured (so every curve against processes is complete)."""
    if record.derived is None:
        return {}
    groups: dict[tuple[str, str | None], list[MicroSeries]] = {}
    for s in record.derived.scaling:
        groups.setdefault((s.test, s.sync), []).append(s)
    for s in record.derived.series:
        group = groups.get((s.test, s.sync))
        if group is not None and all(other.procs != s.procs for other in group):
            sizes = {p.size for other in group for p in other.points}
            group.append(dataclasses.replace(s, points=[p for p in s.points if p.size in sizes]))
    return {key: sorted(group, key=lambda s: s.procs) for key, group in groups.items()}


def scaling_lines(record: MicroRecord) -> list[str]:
    """One table per test against the number of processes: a column per
    number, a row per size, the median of the slowest rank per iteration."""
    lines: list[str] = []
    for group in scaling_groups(record).values():
        cell = _mbs if group[0].kind == "bandwidth" else _us
        unit = "MB/s" if group[0].kind == "bandwidth" else "us per operation"
        what = "t_ovrl, " if series_family(group[0]) == "nbc" else ""
        lines.append(f"  {group[0].label} against the number of processes: {what}median {unit} "
                     "(slowest rank per iteration)")
        lines.append("    " + f"{'Size':>{SIZE_WIDTH}}" + "".join(f"{f'P={s.procs}':>{COLUMN_WIDTH}}" for s in group))
        at = [{p.size: p.median for p in s.points} for s in group]
        for size in sorted({size for by_size in at for size in by_size}):
            lines.append("    " + f"{size:>{SIZE_WIDTH}}" + "".join(f"{cell(by_size.get(size)):>{COLUMN_WIDTH}}"
                                                                      for by_size in at))
    return lines


def micro_summary(record: MicroRecord) -> list[str]:
    """The record's header, a table per series (with each legend once, above
    the first table that needs it), then the tables against processes."""
    lines = record_header(record)
    if record.derived is None:
        return lines
    said: set[str] = set()
    for series in record.derived.series:
        family = series_family(series)
        legend = {"collectives": COLLECTIVE_LEGEND, "nbc": NBC_LEGEND}.get(family)
        if family == "nbc" and "t_pure" in series.definition:
            legend = None           # the measurement's definition says IMB-NBC's words already
        if legend and family not in said:
            said.add(family)
            lines += _wrapped(legend, "  ")
        lines += series_header(series)
        lines += table_lines(series)
    return lines + scaling_lines(record)
