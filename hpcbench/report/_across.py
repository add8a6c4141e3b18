"""One benchmark on many nodes: a node benchmark of a 64-node run leaves 64
records. The report sets their headline numbers side by side in one table
(each against the median over the nodes, the outliers marked) and draws the
figures of the first record and of the most unusual ones only, so that the
page of a large run stays quick to make and small enough to mail; every
record keeps its section, meaning, findings and table."""
from __future__ import annotations

import statistics
from collections import defaultdict

from .._headline import format_value
from ._html import Row, esc, rows, tag
from ._view import RecordView, benchmark_of

#: Figures drawn per benchmark at most: the first record's and the most unusual ones'.
MAX_FIGURES = 4
#: A headline this far from the median over the nodes (relative) is an outlier.
SPREAD = 0.10


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
    with disagreements, then the most unusual ones are drawn."""
    left_out = {}
    for name, group in groups(views).items():
        if len(group) <= MAX_FIGURES:
            continue
        middle = medians(group)
        score = {id(v): (bool(v.disagreements), unusual(v, middle)) for v in group}
        ranked = sorted(group[1:], key=lambda v: score[id(v)], reverse=True)
        drawn = {id(group[0])} | {id(v) for v in ranked[:MAX_FIGURES - 1]}
        for v in group:
            if id(v) not in drawn:
                left_out[id(v)] = (f"Figure not drawn: this file holds {len(group)} {name} records, and the page "
                                   f"draws {MAX_FIGURES} (the first, those that disagree, then the most unusual); "
                                   f"this one's headline numbers are within {100 * unusual(v, middle):.0f}% of "
                                   f"the median over the nodes (the table of {name} across nodes).")
    return left_out


def across_html(name: str, group: list[RecordView], anchor: str) -> str:
    """The section comparing one benchmark's records across nodes: a row per
    record with its headline numbers, the median row first, outliers marked."""
    middle = medians(group)
    units: dict[str, str] = {}
    for v in group:
        for h in v.headlines:
            units.setdefault(h.label, h.unit)
    labels = [label for label in middle if sum(label in _values(v) for v in group) * 2 >= len(group)]
    header = ["node", *(esc(label) for label in labels), "findings"]
    median_row = [tag("strong", "median"), *(esc(format_value(middle[k], units[k])) for k in labels), ""]
    cells: list[Row] = [(median_row, None)]
    outliers = 0
    for v in group:
        values = _values(v)
        far = {k for k in labels if k in values and deviation(values[k], middle[k]) > SPREAD}
        outliers += len(far)
        row = [tag("a", esc(v.node), href=f"#{v.anchor}")]
        for k in labels:
            text = esc(format_value(values[k], units[k])) if k in values else "-"
            row.append(tag("span", text, class_="worse") if k in far else text)
        row.append(f"{len(v.disagreements)} disagreement(s)" if v.disagreements else "")
        cells.append((row, "differs" if far else None))
    note = (f"{outliers} number(s) more than {100 * SPREAD:.0f}% from the median over the nodes, in red."
            if outliers else f"Every number within {100 * SPREAD:.0f}% of the median over the nodes.")
    heading = tag("h2", f"{esc(name)} across nodes ({len(group)} records)")
    return tag("section", heading + tag("p", note, class_="meta") +
               tag("div", rows(cells, header, class_="grid across"), class_="wide"), id=anchor)
