"""The report of one results file: the page, its header of machine context,
an overview of the benchmarks, and one section per record (in file order).
The page is one self-contained file: styles inline, figures embedded, no
script, and a Content-Security-Policy that forbids any request."""
from __future__ import annotations

import datetime
from collections.abc import Iterable

from .._record import Record
from .._results import Results
from .._version import __version__
from ._across import across_html, choose_figures, groups
from ._answer import answer_html
from ._figures import matplotlib_missing
from ._html import Row, esc, rows, slug, tag
from ._machine import context_rows
from ._section import badge, findings_counts, section_html
from ._style import CSS
from ._view import RecordView, draw_figure, record_view

#: Marks a file as an hpcbench report: an existing file without it is never overwritten.
GENERATOR = "hpcbench report"
#: Nothing outside the page may load: images are data: URIs, the style is inline.
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def page(title: str, heading: str, subtitle: str, body: str) -> str:
    """The whole HTML document."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta name="generator" content="{GENERATOR}">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        tag("title", esc(title)),
        tag("style", CSS),
        "</head>",
        "<body>",
        tag("header", tag("h1", esc(heading)) + tag("p", subtitle), class_="page"),
        tag("main", body),
        tag("footer", f"Written by hpcbench {esc(__version__)} on {now}. This page is self-contained: it loads "
                      "nothing from anywhere, so it can be mailed or attached as it is."),
        "</body>",
        "</html>",
    ]) + "\n"


#: Records a page shows at most (the first ones of the file): a section per
#: record costs the page kilobytes and the command milliseconds, and a page of a
#: million sections is neither made in seconds nor read. The rest are counted
#: (docs/report.md, "Large files"); `hpcbench show` prints every record.
MAX_RECORDS = 1000


class Views(list[RecordView]):
    """The RecordViews of the records a page shows (a list), and per status
    how many more records the file holds beyond MAX_RECORDS (`not_shown`:
    ok, failed, skipped, warnings), so that the command's counts cover every
    record without a view of each."""

    def __init__(self, shown: Iterable[RecordView] = (), not_shown: dict[str, int] | None = None):
        super().__init__(shown)
        self.not_shown = dict(not_shown or {})

    # list's __add__ also takes lists of other items; a page only adds views to views.
    def __add__(self, other: list[RecordView]) -> Views:  # type: ignore[override]
        extra = getattr(other, "not_shown", {})
        merged = {k: self.not_shown.get(k, 0) + extra.get(k, 0) for k in {*self.not_shown, *extra}}
        return Views(list(self) + list(other), merged)


def _not_shown(records: list[Record]) -> dict[str, int]:
    """What counts() needs of the records beyond MAX_RECORDS: their statuses and warnings."""
    out = {"ok": 0, "failed": 0, "skipped": 0, "warnings": 0, "records": len(records)}
    for r in records:
        out[r.status if r.status in ("ok", "skipped") else "failed"] += 1
        out["warnings"] += len(r.warnings) if isinstance(r.warnings, list) else 0
    return out


def views(results: Results, figures: bool = True, prefix: str = "") -> tuple[Views, str | None]:
    """(one RecordView per record shown, why figures are missing or None):
    the first MAX_RECORDS records (a Views, which counts the others)."""
    note = matplotlib_missing() if figures else "figures were not drawn for this report"
    shown = results.benchmarks[:MAX_RECORDS]
    seen = {"answer", "machine", "overview"} | {f"across-{slug(r.name)}" for r in shown}   # the page's own ids
    last: dict[str, int] = {}                  # base -> the last suffix tried: repeats stay linear, not quadratic
    out = Views(not_shown=_not_shown(results.benchmarks[MAX_RECORDS:]))
    for record in shown:
        base = anchor = f"{prefix}{slug(record.name)}-{slug(record.node or 'node')}"
        n = last.get(base, 1)
        if n > 1:
            anchor = f"{base}-{n}"
        while anchor in seen:                               # the same benchmark twice on one node
            n += 1
            anchor = f"{base}-{n}"
        seen.add(anchor)
        last[base] = n
        out.append(record_view(record, anchor))
    if note is None:
        left_out = choose_figures(out)
        for view in out:
            if id(view) in left_out:
                view.figure_note = left_out[id(view)]
            else:
                draw_figure(view)
    return out, note


def not_shown_html(all_views: list[RecordView], label: str = "This results file") -> str:
    """The note that the page shows only the first MAX_RECORDS records, with what the others are ("" if none)."""
    rest = getattr(all_views, "not_shown", {})
    if not rest.get("records"):
        return ""
    states = ", ".join(f"{rest[k]} {k}" for k in ("ok", "failed", "skipped") if rest.get(k))
    return tag("p", f"{esc(label)} holds {len(all_views) + rest['records']} benchmark records; the page shows "
                    f"the first {len(all_views)} (a report shows at most {MAX_RECORDS}). The {rest['records']} "
                    f"others ({states}) are counted, not shown: hpcbench show prints every record.", class_="note")


def measured_rows(all_views: list[RecordView]) -> list[tuple[str, str]]:
    """(label, text) of the figures the benchmarks give about the machine
    itself (STREAM Triad, peak FLOP/s), with the node where several nodes
    measured them, in the order the benchmarks ran."""
    nodes = {v.node for v in all_views if v.machine_figures}
    out = []
    for v in all_views:
        for h in v.machine_figures:
            where = f" ({v.node})" if len(nodes) > 1 else ""
            out.append((f"{h.label}{where}", f"{h.text()} (measured)"))
    return out


def context_table(results: Results, all_views: list[RecordView] | None = None) -> str:
    """The machine context as a two-column table (or a line saying the file
    has none), followed by the machine figures the run measured."""
    facts = context_rows(results.context) + measured_rows(all_views or [])
    if not facts:
        return tag("p", "This results file records no machine context.", class_="note")
    return rows([[esc(k), esc(v)] for k, v in facts], class_="context")


def hosts_text(results: Results) -> str:
    """The hosts for a heading: up to four by name, else three and how many more."""
    hosts = [str(h) for h in results.context.hosts or []]
    if not hosts:
        return "?"
    return ", ".join(hosts) if len(hosts) <= 4 else f"{', '.join(hosts[:3])} and {len(hosts) - 3} more"


def _overview(all_views: list[RecordView]) -> str:
    cells: list[Row] = []
    for v in all_views:
        time = f"{v.record.elapsed_s:.1f} s" if v.record.elapsed_s is not None else "-"
        cells.append([tag("a", esc(v.name), href=f"#{v.anchor}"), esc(v.node), badge(v.status),
                      tag("span", time), findings_counts(v) or tag("span", "none", class_="note")])
    header = ["benchmark", "node", "status", "took", "findings"]
    return tag("section", tag("h2", "Benchmarks") + not_shown_html(all_views) + rows(cells, header, class_="grid"),
               id="overview")


def single_page(results: Results, figures: bool = True) -> tuple[str, Views]:
    """(the page's HTML, its RecordViews): see report_html."""
    all_views, note = views(results, figures)
    source = esc(results.path) if results.path else "a run"
    subtitle = f"Results of {esc(results.context.date or '?')} from {source}"
    body = [answer_html(results, all_views)] if all_views else []
    body.append(tag("section", tag("h2", "Machine") + context_table(results, all_views), id="machine"))
    if all_views:
        body.append(_overview(all_views))
        many = {name: group for name, group in groups(all_views).items() if len(group) > 1}
        for v in all_views:
            if v.name in many and v is many[v.name][0]:        # before the first of them
                body.append(across_html(v.name, many[v.name], f"across-{slug(v.name)}"))
            body.append(section_html(v, note))
    else:
        body.append(tag("section", tag("h2", "No benchmark finished") +
                        tag("p", "The results file holds the machine context only: no benchmark finished "
                                 "before the run ended.")))
    heading = f"hpcbench report: {hosts_text(results)}"
    return page(heading, heading, subtitle, "".join(body)), all_views


def report_html(results: Results, figures: bool = True) -> str:
    """The HTML report of a results file: machine context, an overview, and
    one section per record with its figure (unless `figures` is False or
    matplotlib is missing: the page then says so), what it means, its
    findings and the table `show` prints."""
    return single_page(results, figures)[0]


def counts(all_views: list[RecordView]) -> dict[str, int]:
    """How many records ended in each status, and the findings in all: for
    the command's one line. Records beyond the page's MAX_RECORDS (a Views'
    `not_shown`) count by status and warnings; `not_shown` says how many."""
    out = {"ok": 0, "failed": 0, "skipped": 0, "disagreements": 0, "failed_fits": 0, "warnings": 0, "problems": 0,
           "not_shown": 0}
    for v in all_views:
        out[v.status if v.status in ("ok", "skipped") else "failed"] += 1
        out["disagreements"] += len(v.disagreements)
        out["failed_fits"] += len(v.failed_fits)
        out["warnings"] += len(v.warnings)
        out["problems"] += len(v.problems)
    rest = getattr(all_views, "not_shown", {})
    for key in ("ok", "failed", "skipped", "warnings"):
        out[key] += rest.get(key, 0)
    out["not_shown"] = rest.get("records", 0)
    return out
