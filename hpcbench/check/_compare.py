"""A results file against its reference (an earlier results file, or a
reference file of figures with tolerances): the headline figures matched
by benchmark, node and label, and one verdict each (_verdict.judge, one
family for the Holm correction)."""
from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

from .._headline import Headline
from .._results import Results
from ._figures import RecordFigures, results_figures
from ._machines import machine_differences, same_kind
from ._reference import CheckError, ReferenceFigure
from ._verdict import DEFAULTS, Pair, Settings, Verdict, judge

#: Labels named in a "no such figure" message before "...".
_LABELS_SHOWN = 12


@dataclass(frozen=True)
class Row:
    """One compared figure: where it is, both values (in `unit`), the verdict, and the reference file's line."""
    benchmark: str
    node: str
    label: str
    unit: str
    better: str | None
    reference: Headline | None
    current: Headline | None
    verdict: Verdict
    line: int | None = None


@dataclass
class Comparison:
    """Every compared figure; how the machines differ (empty: the same
    machine); what was not compared and why; records whose figures could
    not be listed."""
    settings: Settings
    rows: list[Row] = field(default_factory=list)
    machine: list[str] = field(default_factory=list)
    same_kind: bool = True           #: same CPU and cores (the machine lines name other hosts only)
    not_compared: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def failing(self) -> list[Row]:
        return [r for r in self.rows if r.verdict.failing]

    @property
    def exit_status(self) -> int:
        """0: every figure within; 1: a regression (a figure worse, or missing)."""
        return 1 if self.failing else 0


def _pair_records(ref: list[RecordFigures], cur: list[RecordFigures],
                  by_order: bool) -> list[tuple[RecordFigures | None, RecordFigures | None]]:
    """Records paired by benchmark and node; with `by_order` (the same kind
    of machine on other hosts) the rest by benchmark in file order."""
    unused: dict[tuple[str, str], deque[int]] = defaultdict(deque)
    for j, c in enumerate(cur):
        unused[c.benchmark, c.node].append(j)
    used: set[int] = set()
    pairs: list[tuple[RecordFigures | None, RecordFigures | None]] = []
    left: list[RecordFigures] = []
    for r in ref:
        queue = unused.get((r.benchmark, r.node))
        if queue:
            j = queue.popleft()
            used.add(j)
            pairs.append((r, cur[j]))
        else:
            left.append(r)
    for r in left:
        j = next((j for j, c in enumerate(cur) if j not in used and c.benchmark == r.benchmark), None) \
            if by_order else None
        if j is not None:
            used.add(j)
        pairs.append((r, cur[j] if j is not None else None))
    return pairs + [(None, c) for j, c in enumerate(cur) if j not in used]


def compare_results(current: Results, reference: Results, settings: Settings = DEFAULTS) -> Comparison:
    """This run's headline figures against an earlier run's. On the same
    machine a figure only the reference has is missing (a regression) and
    one only this run has is new; on different machines (say so) only the
    figures both have are compared."""
    out = Comparison(settings, machine=machine_differences(reference.context, current.context))
    ref_figures, cur_figures = results_figures(reference), results_figures(current)
    out.problems = [f"this run: {f.problem}" for f in cur_figures if f.problem]
    out.same_kind = same_kind(reference.context, current.context)
    pairs = _pair_records(ref_figures, cur_figures, out.same_kind)
    places: list[tuple[str, str, str]] = []
    judged: list[Pair] = []
    skipped = 0
    for r, c in pairs:
        labels = list(r.figures if r else {}) + [k for k in (c.figures if c else {}) if not r or k not in r.figures]
        for label in labels:
            a, b = (r.figures.get(label) if r else None), (c.figures.get(label) if c else None)
            if out.machine and (a is None or b is None):
                skipped += 1
                continue
            places.append(((r or c).benchmark, (c or r).node, label))  # type: ignore[union-attr]
            judged.append(Pair(a, b, _own_tolerance(a, b)))
    if skipped:
        out.not_compared.append(f"{skipped} figure(s) only one of the two machines has")
    _fill(out, places, judged, [None] * len(judged))
    return out


def _own_tolerance(a: Headline | None, b: Headline | None) -> float | None:
    """The figure's own run-to-run tolerance as its benchmark declares it (the larger of the two runs')."""
    declared = [h.tolerance for h in (a, b) if h is not None and h.tolerance is not None]
    return max(declared) if declared else None


def _fill(out: Comparison, places: list[tuple[str, str, str]], pairs: list[Pair], lines: list[int | None]) -> None:
    for (benchmark, node, label), pair, verdict, line in zip(places, pairs, judge(pairs, out.settings), lines):
        some = pair.reference or pair.current
        assert some is not None, "a pair has a side"
        out.rows.append(Row(benchmark, node, label, some.unit, some.better, pair.reference, pair.current, verdict,
                            line))


def compare_reference(current: Results, figures: list[ReferenceFigure], default_tolerance: float | None,
                      path: str, settings: Settings = DEFAULTS) -> Comparison:
    """This run's headline figures against a reference file's. A figure the
    reference names that this run's records of that benchmark do not have,
    or in another unit: CheckError naming its line; a benchmark this run
    did not finish: its figures are missing."""
    out = Comparison(settings)
    records = results_figures(current)
    out.problems = [f"this run: {f.problem}" for f in records if f.problem]
    places: list[tuple[str, str, str]] = []
    pairs: list[Pair] = []
    lines: list[int | None] = []
    for figure in figures:
        tolerance = figure.tolerance if figure.tolerance is not None else default_tolerance
        for node, headline in _matches(figure, records, path):
            unit = headline.unit if headline is not None else (figure.unit or "")
            better = headline.better if headline is not None else None
            places.append((figure.benchmark, node, figure.label))
            pairs.append(Pair(Headline(figure.label, figure.value, unit, better), headline, tolerance))
            lines.append(figure.line)
    _fill(out, places, pairs, lines)
    return out


def _matches(figure: ReferenceFigure, records: list[RecordFigures], path: str) -> list[tuple[str, Headline | None]]:
    """(node, this run's headline or None) of every record the figure names."""
    mine = [r for r in records if r.benchmark == figure.benchmark and figure.node in (None, r.node)]
    listed = [r for r in mine if r.figures]
    if not listed:
        return [(r.node, None) for r in mine] or [(figure.node or "-", None)]
    found = [(r.node, r.figures.get(figure.label)) for r in listed if figure.label in r.figures]
    if not found:
        known = sorted({label for r in listed for label in r.figures})
        more = ", ..." if len(known) > _LABELS_SHOWN else ""
        raise CheckError(f"{path}, line {figure.line}: {figure.benchmark} has no headline figure {figure.label!r} "
                         f"(its figures: {', '.join(known[:_LABELS_SHOWN])}{more})")
    for _, headline in found:
        if headline is not None and figure.unit is not None and figure.unit != headline.unit:
            raise CheckError(f"{path}, line {figure.line}: {figure.label!r} of {figure.benchmark} is in "
                             f"{headline.unit}; the reference gives {figure.unit}")
    return found
