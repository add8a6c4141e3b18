"""Everything the report shows of one record, gathered once from its
benchmark (found in the registry, never named here): the summary `show`
prints, the figure, what it means, the disagreements and warnings, and the
headline numbers.

A part the benchmark cannot produce for this record (a figure that raises
on an odd file) does not cost the rest of the page: it becomes a line in
`problems`, shown in the section."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import _registry
from .._headline import Headline
from .._record import Record
from ._figures import figure_html
from ._repeats import new_lines

#: A line of `show`'s summary with this word is a disagreement (the summaries' own convention).
DISAGREES = "DISAGREES"


@dataclass
class RecordView:
    """One record as the report shows it."""

    record: Record
    anchor: str                        #: the section's fragment id
    title: str = ""                    #: the benchmark's one-line title ("" for unknown benchmarks)
    meaning: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    failed_fits: list[str] = field(default_factory=list)   #: fits whose figures are not physical, with why
    warnings: list[str] = field(default_factory=list)      #: those not already said as a disagreement
    table: list[str] = field(default_factory=list)         #: the lines `show` prints (warnings aside)
    figure: str | None = None                          #: the <figure> HTML
    figure_note: str | None = None                     #: why the page shows no figure for this record
    headlines: list[Headline] = field(default_factory=list)
    machine_figures: list[Headline] = field(default_factory=list)   #: for the machine header (Triad, peak FLOP/s)
    problems: list[str] = field(default_factory=list)       #: parts the report could not make, in words

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def node(self) -> str:
        return self.record.node or "?"

    @property
    def status(self) -> str:
        return self.record.status


def _attempt(problems: list[str], what: str, make: Callable[[], Any], default: Any) -> Any:
    """make(), or `default` with a line in `problems` if the benchmark's code raised."""
    try:
        return make()
    except Exception as e:  # noqa: BLE001 - one part of one record must not cost the whole page
        problems.append(f"{what}: {type(e).__name__}: {e}")
        return default


def _lines(value: Any) -> list[str]:
    """A benchmark's list of lines as strings (anything else is no lines)."""
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else []


def record_view(record: Record, anchor: str) -> RecordView:
    """The view of one record, all but its figure (`draw_figure`)."""
    view = RecordView(record, anchor, warnings=_lines(record.warnings))
    bench = benchmark_of(record)
    view.title = bench.title if bench else ""
    if record.status == "skipped":
        view.meaning = [f"{record.name} did not run on {view.node}, for the reason above; the other "
                        "benchmarks' results do not depend on it."]
        return view
    if record.status != "ok":
        view.meaning = [f"{record.name} failed on {view.node}, so there are no results for it (the error is "
                        "above); the results of the other benchmarks are complete."]
        return view
    if bench is None:
        view.meaning = [f"This hpcbench version does not know the benchmark {record.name!r} (a newer version "
                        "wrote it): its data is in the results file, but the report cannot read it."]
        return view
    p = view.problems
    view.table = _lines(_attempt(p, "the summary", lambda: bench.summary(record), []))
    view.meaning = _lines(_attempt(p, "what this means", lambda: bench.meaning(record), []))
    disagreements = _lines(_attempt(p, "the disagreements", lambda: bench.disagreements(record), []))
    view.disagreements = new_lines(disagreements, [])
    view.failed_fits = _lines(_attempt(p, "the failed fits", lambda: bench.failed_fits(record), []))
    view.warnings = new_lines(view.warnings, view.disagreements + view.failed_fits)
    view.headlines = list(_attempt(p, "the headline numbers", lambda: bench.headlines(record), []) or [])
    view.machine_figures = list(_attempt(p, "the machine figures", lambda: bench.machine_figures(record), []) or [])
    return view


def benchmark_of(record: Record) -> Any:
    """The registry's benchmark of an ok record, or None (failed, skipped, or unknown to this version)."""
    if record.status != "ok" or record.name not in _registry.names():
        return None
    return _registry.get(record.name)


def draw_figure(view: RecordView) -> None:
    """Draw the record's figure into the view (a problem line if its benchmark's `plot` raises)."""
    bench = benchmark_of(view.record)
    if bench is not None:
        alt = f"{view.name} on {view.node}: {view.title}"
        view.figure = _attempt(view.problems, "the figure", lambda: figure_html(bench.plot(view.record), alt), None)


#: A network map's findings: the record's attribute, and what one and several are called.
NETWORK_FINDINGS = (("slow_links", "slow link", "slow links"), ("slow_nodes", "slow node", "slow nodes"))


def network_findings(view: RecordView, kind: str) -> list[Any]:
    """The slow links or slow nodes (`kind`: an attribute of NETWORK_FINDINGS)
    a finished network-map record names, on the record or its `derived`;
    empty for any other record."""
    if view.name != "network-map" or view.status != "ok":
        return []
    found = getattr(view.record, kind, None)
    if found is None:
        found = getattr(getattr(view.record, "derived", None), kind, None)
    return list(found or [])
