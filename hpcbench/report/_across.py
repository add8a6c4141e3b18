"""One benchmark on many nodes: a node benchmark of a 64-node run leaves 64
records. The report sets their headline numbers side by side in one table
(each against the median over the nodes) and names every node out of line
by the robust rule of hpcbench._robust (median and scaled MAD: far out for
the population's spread and by a share of the median that matters), each
with its evidence. It draws the figures of the first record and of the
most unusual ones only, so that the page of a large run stays quick to
make and small enough to mail; every record keeps its section, meaning,
findings and table.

Only the worse side of a headline counts (its `better`: a faster node is no
fault). A headline with no better side (a cache size, a count) is judged on
both sides: the nodes of one cluster should be alike, and a node whose
effective cache is larger than its peers' is as odd as one whose is
smaller (another CPU model, another BIOS setting)."""
from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass

from .._headline import format_value
from .._robust import FLOOR, Deviation, K, out_of_line
from ._html import Row, esc, items, rows, tag
from ._view import RecordView, benchmark_of

#: Figures drawn per benchmark at most: the first record's and the most unusual ones'.
MAX_FIGURES = 4
#: The worse side(s) of a headline by its `better`: None (neither is better) is judged on both.
_WORSE = {"higher": ("lower",), "lower": ("higher",), None: ("lower", "higher")}


@dataclass(frozen=True)
class OutOfLine:
    """One node's headline out of line with the other nodes': the record's
    view, the headline's label and unit, and the rule's Deviation."""
    view: RecordView
    label: str
    unit: str
    deviation: Deviation

    def evidence(self) -> str:
        """'memory copy 21.0 GB/s against a median of 30.0 GB/s (...), 30 % worse, 12 spreads out'."""
        return f"{self.label} {self.deviation.evidence(lambda v: format_value(v, self.unit))}"


def groups(views: list[RecordView]) -> dict[str, list[RecordView]]:
    """Benchmark name -> its ok records' views (of benchmarks this version knows), in file order."""
    out: dict[str, list[RecordView]] = defaultdict(list)
    for v in views:
        if benchmark_of(v.record) is not None:
            out[v.name].append(v)
    return out


def _values(view: RecordView) -> dict[str, float]:
    """label -> value of the view's finite headline numbers (the first of a repeated label)."""
    out: dict[str, float] = {}
    for h in view.headlines:
        value = getattr(h, "value", None)
        if value is not None and h.label not in out:
            out[h.label] = value
    return out


def medians(group: list[RecordView]) -> dict[str, float]:
    """label -> median over the group's records that have it."""
    columns: dict[str, list[float]] = defaultdict(list)
    for v in group:
        for label, value in _values(v).items():
            columns[label].append(value)
    return {label: statistics.median(values) for label, values in columns.items()}


def deviation(value: float, median: float) -> float:
    """|value / median - 1|, 0 where the median is 0 and the value too (inf where only the median is)."""
    if median == 0:
        return 0.0 if value == 0 else float("inf")
    return abs(value / median - 1)


def unusual(view: RecordView, middle: dict[str, float]) -> float:
    """How far the record's most outlying headline is from the median (relative)."""
    return max((deviation(value, middle[label]) for label, value in _values(view).items()), default=0.0)


def choose_figures(views: list[RecordView]) -> dict[int, str]:
    """id(view) -> why its figure is not drawn, for the records left out:
    beyond MAX_FIGURES records of one benchmark, the first record, those
    with disagreements, those out of line, then the most unusual ones are drawn."""
    left_out = {}
    for name, group in groups(views).items():
        if len(group) <= MAX_FIGURES:
            continue
        middle = medians(group)
        out = {id(f.view) for f in out_of_line_nodes(group)}
        score = {id(v): (bool(v.disagreements), id(v) in out, unusual(v, middle)) for v in group}
        ranked = sorted(group[1:], key=lambda v: score[id(v)], reverse=True)
        drawn = {id(group[0])} | {id(v) for v in ranked[:MAX_FIGURES - 1]}
        for v in group:
            if id(v) not in drawn:
                left_out[id(v)] = (f"Figure not drawn: this file holds {len(group)} {name} records, and the page "
                                   f"draws {MAX_FIGURES} (the first, those that disagree, then the most unusual); "
                                   f"this one's headline numbers are within {100 * unusual(v, middle):.0f}% of "
                                   f"the median over the nodes (the table of {name} across nodes).")
    return left_out


def out_of_line_nodes(group: list[RecordView]) -> list[OutOfLine]:
    """Every headline of every record of `group` (one benchmark on many
    nodes) that lies out of line with the others' by hpcbench._robust's
    rule, on its worse side(s); worst first within each label."""
    found = []
    by_key: dict[Hashable, RecordView] = dict(enumerate(group))      # a node name may repeat: key by position
    figures = {key: _values(v) for key, v in by_key.items()}
    for label, (unit, better) in _kinds(group).items():
        values = {key: numbers[label] for key, numbers in figures.items() if label in numbers}
        for worse in _WORSE.get(better, ("lower", "higher")):
            found += [OutOfLine(by_key[d.key], label, unit, d) for d in out_of_line(values, worse)]
    return found


def _kinds(group: list[RecordView]) -> dict[str, tuple[str, str | None]]:
    """label -> (unit, better) of the group's headlines, the first record to declare it deciding."""
    out: dict[str, tuple[str, str | None]] = {}
    for v in group:
        for h in v.headlines:
            out.setdefault(h.label, (h.unit, h.better))
    return out


def across_html(name: str, group: list[RecordView], anchor: str) -> str:
    """The section comparing one benchmark's records across nodes: a row per
    record with its headline numbers, the median row first, the figures out
    of line in red, and each named with its evidence."""
    middle = medians(group)
    units = {label: unit for label, (unit, _) in _kinds(group).items()}
    labels = [label for label in middle if sum(label in _values(v) for v in group) * 2 >= len(group)]
    header = ["node", *(esc(label) for label in labels), "findings"]
    median_row = [tag("strong", "median"), *(esc(format_value(middle[k], units[k])) for k in labels), ""]
    cells: list[Row] = [(median_row, None)]
    found = out_of_line_nodes(group)
    far = {(id(f.view), f.label) for f in found}
    for v in group:
        values = _values(v)
        row = [tag("a", esc(v.node), href=f"#{v.anchor}")]
        for k in labels:
            text = esc(format_value(values[k], units[k])) if k in values else "-"
            row.append(tag("span", text, class_="worse") if (id(v), k) in far else text)
        row.append(f"{len(v.disagreements)} disagreement(s)" if v.disagreements else "")
        cells.append((row, "differs" if any(i == id(v) for i, _ in far) else None))
    rule = (f"the rule: beyond {K:g} scaled MADs of the median and by more than {100 * FLOOR:.0f} % of it, on the "
            "worse side (both sides for figures where neither is better); at least 3 nodes")
    note = (tag("p", f"{len(found)} figure(s) out of line with the other nodes ({rule}), in red:", class_="meta") +
            items([f"{f.view.node}: {f.evidence()}" for f in found])) if found else \
        tag("p", f"No node out of line with the others ({rule}).", class_="meta")
    heading = tag("h2", f"{esc(name)} across nodes ({len(group)} records)")
    return tag("section", heading + note + tag("div", rows(cells, header, class_="grid across"), class_="wide"),
               id=anchor)
