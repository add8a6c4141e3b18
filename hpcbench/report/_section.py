"""The HTML of one record: its heading, what it means, its findings
(failure, disagreements, warnings), its figure and the table `show` prints.
The single report shows it as a section; the side-by-side report shows the
body of two of them in columns."""
from __future__ import annotations

from ._html import esc, items, tag
from ._view import DISAGREES, NETWORK_FINDINGS, RecordView, network_findings


def badge(status: str) -> str:
    return tag("span", esc(status), class_=f"badge {status}")


def _count(n: int, one: str, many: str, cls: str) -> str:
    return tag("span", f"{n} {one if n == 1 else many}", class_=cls) if n else ""


def findings_counts(view: RecordView) -> str:
    """'1 disagreement, 2 warnings' (a network map's slow links and nodes
    first) as HTML (empty when there are none)."""
    parts = [_count(len(network_findings(view, kind)), one, many, "count-bad") for kind, one, many in NETWORK_FINDINGS]
    parts += [_count(len(view.disagreements), "disagreement", "disagreements", "count-bad"),
             _count(len(view.warnings), "warning", "warnings", "count-warn"),
             _count(len(view.failed_fits), "failed fit", "failed fits", "count-warn"),
             _count(len(view.problems), "part not shown", "parts not shown", "count-warn")]
    return ", ".join(p for p in parts if p)


def meta_line(view: RecordView) -> str:
    """Where and when the record ran, and for how long."""
    r = view.record
    parts = [f"on {esc(view.node)}"]
    if r.started:
        parts.append(f"started {esc(r.started)}")
    if r.elapsed_s is not None:
        parts.append(f"took {r.elapsed_s:.1f} s")
    return tag("p", " &middot; ".join(parts), class_="meta")


def _box(kind: str, heading: str, lines: list[str]) -> str:
    return tag("div", tag("strong", esc(heading)) + items(lines), class_=f"findings {kind}")


def status_html(view: RecordView) -> str:
    """Why a record has no results: its failure (with the traceback folded) or why it was skipped."""
    r = view.record
    if r.status == "skipped":
        return _box("skipped", "Skipped", [r.reason or "no reason given"])
    if r.status == "ok":
        return ""
    out = _box("failed", "Failed", [r.error or "unknown error"])
    if r.traceback:
        out += tag("details", tag("summary", "traceback") + tag("pre", esc(r.traceback), class_="table"))
    return out


#: The heading of a record's fits whose figures are not physical: they are no finding (hpcbench._physical).
FAILED_FITS = "Fits that failed (their figures are not physical, so they are not findings)"


def findings_html(view: RecordView) -> str:
    """The disagreements (red), the warnings (amber), the fits that failed
    (grey: a figure that cannot be is no finding), and parts the report could not make."""
    out: list[str] = []
    if view.disagreements:
        out.append(_box("bad", "Disagrees with the machine or the model", view.disagreements))
    if view.failed_fits:
        out.append(_box("skipped", FAILED_FITS, view.failed_fits))
    if view.warnings:
        out.append(_box("warn", "Warnings", view.warnings))
    if view.problems:
        out.append(_box("warn", "Not shown (the report could not make these parts of this record)", view.problems))
    return "".join(out)


def table_html(lines: list[str]) -> str:
    """The summary as `show` prints it, lines with a disagreement marked."""
    body = "\n".join(tag("span", esc(line), class_="bad") if DISAGREES in line else esc(line) for line in lines)
    return tag("pre", body, class_="table")


def body_html(view: RecordView, figure_note: str | None) -> str:
    """Everything below the heading: meaning, findings, figure, table."""
    out = [status_html(view)]
    if view.meaning:
        out.append(tag("div", tag("h3", "What this means") + items(view.meaning), class_="meaning"))
    out.append(findings_html(view))
    if view.figure:
        out.append(view.figure)
    elif view.status == "ok" and (view.figure_note or figure_note):
        out.append(tag("p", esc(view.figure_note or figure_note), class_="note"))
    if view.table:
        out.append(tag("h3", "As hpcbench show prints it") + table_html(view.table))
    return "".join(out)


def heading_html(view: RecordView) -> str:
    title = " " + tag("span", esc(view.title), class_="title") if view.title else ""
    return tag("h2", esc(view.name) + title + badge(view.status))


def section_html(view: RecordView, figure_note: str | None) -> str:
    """The section of one record in the single report."""
    return tag("section", heading_html(view) + meta_line(view) + body_html(view, figure_note), id=view.anchor)
