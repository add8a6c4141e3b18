"""What `show` and `hpcbench report` say about the network-map and
bisection records: the heat map as text, the slow nodes and links with
their evidence, the headline figures."""
from __future__ import annotations

import math

import numpy as np

from .._format import format_size
from .._headline import Headline, finite, format_value
from .._robust import FLOOR
from ._analysis import spread_of
from ._records import BisectionRecord, NetworkMapRecord

#: Members up to this many print their whole matrix in `show`; beyond, per-member figures.
TEXT_MATRIX_UP_TO = 16
#: Maps of up to this many members give every pair's bandwidth as a headline figure.
PAIR_HEADLINES_UP_TO = 16


def _matrix(rows: list) -> np.ndarray:
    return np.array([[math.nan if v is None else v for v in row] for row in rows], dtype=float)


def _short(label: str, width: int) -> str:
    return label if len(label) <= width else "~" + label[-(width - 1):]


def _cell(value: float) -> str:
    """At most 6 characters: whole numbers from 100 on, 3 significant digits below."""
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def heat_lines(labels: list[str], rows: list, scale: float, unit: str, marked: set) -> list[str]:
    """A matrix as text: one row per source, one column per destination,
    values divided by `scale`, a cell out of line marked with '!'."""
    m = _matrix(rows)
    width = max(8, min(12, max(len(x) for x in labels)))
    corner = "from \\ to"
    head = f"  {corner:>{width}}" + "".join(f"{_short(x, width):>{width + 1}}" for x in labels)
    lines = [head + f"   ({unit})"]
    for i, label in enumerate(labels):
        cells = []
        for j in range(len(labels)):
            text = "-" if not math.isfinite(m[i, j]) else _cell(m[i, j] / scale) + ("!" if (i, j) in marked else "")
            cells.append(f"{text:>{width + 1}}")
        lines.append(f"  {_short(label, width):>{width}}" + "".join(cells))
    return lines


def _findings(record: NetworkMapRecord) -> list[str]:
    d = record.derived
    lines = [f"  slow node {n.node}: {n.evidence}" for n in d.slow_nodes]
    lines += [f"  slow link {s.source} -> {s.destination}: {s.evidence}" for s in d.slow_links]
    return lines or [f"  no node or link out of line ({d.rule})"]


def map_summary(record: NetworkMapRecord) -> list[str]:
    """The `show` lines: bandwidth under load as a heat map (or per member), latency, findings."""
    p, d = record.parameters, record.derived
    labels = p.members
    index = {x: i for i, x in enumerate(labels)}
    marked = {(index[s.source], index[s.destination]) for s in d.slow_links if s.matrix.startswith("bandwidth")}
    lines = [f"network map of {len(labels)} {p.unit}s: {format_size(p.size)} messages, every member sending at "
             f"once (mpiGraph's shift pattern){' and each pair alone' if p.alone else ''}; latency of 8 B"]
    for name, words in (("bandwidth_loaded", "bandwidth under load"), ("bandwidth_alone", "bandwidth alone")):
        rows = getattr(d, name)
        if rows is None:
            continue
        median, spread = spread_of(_matrix(rows))
        lines.append(f"  {words}: median {format_value(median, 'bytes/s')}, spread {format_value(spread, 'bytes/s')}")
        if len(labels) <= TEXT_MATRIX_UP_TO:
            lines += heat_lines(labels, rows, 1e6, "MB/s, ! out of line", marked)
    for name, words in (("latency_loaded", "latency under load"), ("latency_alone", "latency alone")):
        rows = getattr(d, name)
        if rows is not None:
            median, spread = spread_of(_matrix(rows))
            lines.append(f"  {words}: median {format_value(median, 's')}, spread {format_value(spread, 's')}")
    return lines + _findings(record)


def map_meaning(record: NetworkMapRecord) -> list[str]:
    d = record.derived
    if not d.slow_nodes and not d.slow_links:
        return [f"Every node and link of the {len(record.parameters.members)} measured performs like its peers "
                f"({d.rule})."]
    out = [f"Node {n.node} is slower than its peers ({n.evidence}): check its network card, cable and CPU load."
           for n in d.slow_nodes]
    out += [f"The link {s.source} -> {s.destination} is slower than the others ({s.evidence}): check the cable, "
            "port or route between them." for s in d.slow_links]
    return out


def _pair_headlines(record: NetworkMapRecord) -> list[Headline]:
    """Every ordered pair's bandwidth, under load and alone, for maps of at
    most PAIR_HEADLINES_UP_TO members: `check` names the link that moved.
    Their tolerance is the map's own floor: a pair moves that much between
    runs without anything being wrong (the median of a few messages)."""
    labels = record.parameters.members
    if len(labels) > PAIR_HEADLINES_UP_TO:
        return []
    out = []
    for name, words in (("bandwidth_loaded", "under load"), ("bandwidth_alone", "alone")):
        rows = getattr(record.derived, name)
        if rows is None:
            continue
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                if i != j:
                    out.append(Headline(f"bandwidth {words} {labels[i]} -> {labels[j]}", finite(value), "bytes/s",
                                        "higher", tolerance=FLOOR))
    return out


def map_headlines(record: NetworkMapRecord) -> list[Headline]:
    """The median bandwidth and latency of the map, the slowest pair, the
    number of findings, and (small maps) every pair's bandwidth."""
    out = []
    for name, words, unit, better in (("bandwidth_loaded", "map bandwidth under load", "bytes/s", "higher"),
                                      ("bandwidth_alone", "map bandwidth alone", "bytes/s", "higher"),
                                      ("latency_loaded", "map latency under load", "s", "lower"),
                                      ("latency_alone", "map latency alone", "s", "lower")):
        rows = getattr(record.derived, name)
        if rows is not None:
            m = _matrix(rows)
            out.append(Headline(f"{words} (median)", finite(spread_of(m)[0]), unit, better))
            worst = np.nanmin(m) if better == "higher" else np.nanmax(m)
            out.append(Headline(f"{words} (worst pair)", finite(float(worst)), unit, better, tolerance=FLOOR))
    out.append(Headline("slow nodes and links", float(len(record.derived.slow_nodes) + len(record.derived.slow_links)),
                        "count", "lower"))
    return out + _pair_headlines(record)


def bisection_summary(record: BisectionRecord) -> list[str]:
    p, d = record.parameters, record.derived
    q1, q3 = d.quartiles
    return [f"effective bisection bandwidth: {len(p.members)} {p.unit}s, {p.bisections} random bisections, every "
            f"pair exchanging {format_size(p.size)} both ways at once (Netgauge's method)",
            f"  per flow: median {format_value(d.pair_bandwidth, 'bytes/s')}, mean {format_value(d.mean, 'bytes/s')}"
            f" (Netgauge's figure), quartiles {format_value(q1, 'bytes/s')} .. {format_value(q3, 'bytes/s')}, "
            f"slowest {format_value(d.worst, 'bytes/s')}",
            f"  per bisection (all flows): median {format_value(d.total_median, 'bytes/s')}, worst "
            f"{format_value(d.total_worst, 'bytes/s')}"]


def bisection_meaning(record: BisectionRecord) -> list[str]:
    d = record.derived
    q1, q3 = d.quartiles
    uneven = q1 < 0.8 * q3
    return [f"Splitting the {len(record.parameters.members)} members in two at random, each pair gets "
            f"{format_value(d.pair_bandwidth, 'bytes/s')} each way while every pair exchanges" +
            (": the bisections differ a lot (a blocking network or a slow part)." if uneven else
             ", about the same whichever way the machine is cut.")]


def bisection_headlines(record: BisectionRecord) -> list[Headline]:
    d = record.derived
    return [Headline("bisection bandwidth per flow (median)", finite(d.pair_bandwidth), "bytes/s", "higher"),
            Headline("bisection bandwidth per flow (mean)", finite(d.mean), "bytes/s", "higher"),
            Headline("bisection bandwidth per flow (slowest)", finite(d.worst), "bytes/s", "higher"),
            Headline("bisection bandwidth (median total)", finite(d.total_median), "bytes/s", "higher")]
