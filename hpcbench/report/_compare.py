"""Two results files side by side (two machines, or one machine on two
dates): the machine contexts in one table, then for every benchmark the
ratio B / A of each headline number the benchmark declares, with the
verdict `hpcbench check` gives it (hpcbench.check.judge: one rule, one
family for the Holm correction per page), and both records' figures,
findings and tables in two columns.

Records are paired by benchmark name, on the same node where both files
have it, else in file order; a record only one file has is shown alone."""
from __future__ import annotations

import os
from collections import defaultdict, deque

from .._headline import Headline, ratio, unique_labels
from .._results import Results
from ..check._verdict import Pair, Verdict, judge
from ._html import Row, esc, rows, tag
from ._machine import context_rows
from ._page import Views, hosts_text, not_shown_html, page, views
from ._section import badge, body_html, findings_counts, meta_line
from ._view import RecordView


def pair_views(a: list[RecordView], b: list[RecordView]) -> list[tuple[RecordView | None, RecordView | None]]:
    """[(view of A or None, view of B or None)] in A's order: first every
    record with its namesake on the same node, then the rest with the next
    unpaired record of the same name, then what is left of B. Linear: B is
    indexed by (name, node) and by name once, each index consumed in B's order."""
    by_key: dict[tuple[str, str], deque[int]] = defaultdict(deque)
    by_name: dict[str, deque[int]] = defaultdict(deque)
    for j, vb in enumerate(b):
        by_key[vb.name, vb.node].append(j)
        by_name[vb.name].append(j)
    used = [False] * len(b)
    match: dict[int, int] = {}
    for i, va in enumerate(a):
        queue = by_key.get((va.name, va.node))
        if queue:
            match[i] = j = queue.popleft()
            used[j] = True
    for i, va in enumerate(a):
        if i in match:
            continue
        queue = by_name.get(va.name)
        while queue and used[queue[0]]:
            queue.popleft()
        if queue:
            match[i] = j = queue.popleft()
            used[j] = True
    pairs: list[tuple[RecordView | None, RecordView | None]] = [
        (va, b[match[i]] if i in match else None) for i, va in enumerate(a)]
    return pairs + [(None, vb) for j, vb in enumerate(b) if not used[j]]


def verdict(a: Headline | None, b: Headline | None, judged: Verdict | None = None) -> tuple[str, str, bool]:
    """(ratio text, verdict HTML, notable) of B against A; the verdict is
    check's (`judged`, else judged alone), its reason in the title."""
    r = ratio(a, b)
    if r is None:      # a figure one side lacks, or a reference of 0 (check's table says which)
        return "-", "", False
    judged = judged or judge([Pair(a, b)])[0]
    text = f"x{r:.3g}" if r < 100 else f"x{r:.0f}"
    how = "test" if judged.test == "Mann-Whitney U" else "tolerance"
    if judged.word not in ("better", "worse", "different"):
        return text, tag("span", f"about the same ({how})", class_="note", title=judged.why), False
    change = f"{100 * abs(r - 1):.0f}%" if r < 2 else f"{r:.1f}x"
    if judged.word in ("better", "worse"):
        return text, tag("span", f"B {change} {judged.word} ({how})", class_=judged.word, title=judged.why), True
    return text, tag("span", f"B {'larger' if r > 1 else 'smaller'} by {change}", title=judged.why), True


def headline_pairs(va: RecordView | None, vb: RecordView | None) -> list[tuple[str, Headline | None, Headline | None]]:
    """(label, A's headline, B's headline) of every headline number either record has, A's order first."""
    ha, hb = unique_labels(va.headlines if va else []), unique_labels(vb.headlines if vb else [])
    return [(label, ha.get(label), hb.get(label)) for label in list(ha) + [k for k in hb if k not in ha]]


def page_verdicts(pairs: list[tuple[RecordView | None, RecordView | None]]) -> list[list[Verdict]]:
    """check's verdict on every headline number of every pair of records,
    judged together (one family for the Holm correction, as `check` does)."""
    flat = [(i, Pair(a, b)) for i, (va, vb) in enumerate(pairs) for _, a, b in headline_pairs(va, vb)]
    judged = judge([p for _, p in flat])
    out: list[list[Verdict]] = [[] for _ in pairs]
    for (i, _), v in zip(flat, judged):
        out[i].append(v)
    return out


def headline_table(va: RecordView | None, vb: RecordView | None,
                   judged: list[Verdict] | None = None) -> tuple[str, int]:
    """(the table of every headline number of A and B with B / A and check's
    verdict, number of notable changes); `judged`: page_verdicts' for this pair."""
    cells: list[Row] = []
    notable = 0
    for i, (label, a, b) in enumerate(headline_pairs(va, vb)):
        text, word, changed = verdict(a, b, judged[i] if judged else None)
        notable += changed
        cells.append(([esc(label), esc(a.text() if a else "-"), esc(b.text() if b else "-"), esc(text), word],
                      "differs" if changed else None))
    if not cells:
        return tag("p", "This benchmark declares no headline numbers to compare.", class_="note"), 0
    header = ["number", "A", "B", "B / A", ""]
    return rows(cells, header, class_="grid headlines"), notable


def _side(view: RecordView | None, label: str, other: str, note: str | None) -> str:
    if view is None:
        return tag("div", tag("h4", esc(label)) + tag("p", f"Not in {esc(other)}.", class_="note"))
    return tag("div", tag("h4", f"{esc(label)} {badge(view.status)}") + meta_line(view) + body_html(view, note))


def _labels(a: Results, b: Results) -> tuple[str, str]:
    """Short names of the two files (their base names, or paths where those are equal)."""
    pa, pb = a.path or "A", b.path or "B"
    if os.path.basename(pa) != os.path.basename(pb):
        pa, pb = os.path.basename(pa), os.path.basename(pb)
    return f"A: {pa}", f"B: {pb}"


def context_comparison(a: Results, b: Results) -> str:
    """Machine context of both files, rows that differ marked."""
    ca, cb = dict(context_rows(a.context)), dict(context_rows(b.context))
    keys = list(ca) + [k for k in cb if k not in ca]
    cells: list[Row] = [([esc(k), esc(ca.get(k, "-")), esc(cb.get(k, "-"))],
                          "differs" if ca.get(k) != cb.get(k) else None)
             for k in keys]
    return rows(cells, ["", "A", "B"], class_="grid context")


def comparison_page(a: Results, b: Results, figures: bool = True) -> tuple[str, Views]:
    """(the side-by-side page's HTML, the RecordViews of A and B)."""
    views_a, note = views(a, figures, prefix="a-")
    views_b, _ = views(b, figures, prefix="b-")
    label_a, label_b = _labels(a, b)
    sections: list[str] = []
    overview: list[Row] = []
    paired = pair_views(views_a, views_b)
    for i, ((va, vb), judged) in enumerate(zip(paired, page_verdicts(paired))):
        view = va or vb
        assert view is not None, "pair_views pairs at least one view"
        anchor = f"pair-{i}"
        table, notable = headline_table(va, vb, judged)
        title = " " + tag("span", esc(view.title), class_="title") if view.title else ""
        sides = tag("div", _side(va, label_a, "B", note) + _side(vb, label_b, "A", note),
                    class_="pair")
        sections.append(tag("section", tag("h2", esc(view.name) + title) + tag("h3", "Headline numbers") + table +
                            sides, id=anchor))
        overview.append([tag("a", esc(view.name), href=f"#{anchor}"),
                         _cell(va), _cell(vb), esc(str(notable)) if (va and vb) else "-"])
    body = [tag("section", tag("h2", "Machines") + context_comparison(a, b), id="machine")]
    if overview:
        body.append(tag("section", tag("h2", "Benchmarks") + not_shown_html(views_a, label_a) +
                        not_shown_html(views_b, label_b) +
                        rows(overview, ["benchmark", esc(label_a), esc(label_b),
                                        "numbers that changed (hpcbench check's verdict)"],
                             class_="grid"), id="overview"))
    body.extend(sections)
    subtitle = (f"{esc(label_a)} ({esc(hosts_text(a))}, {esc(a.context.date or '?')}) against "
                f"{esc(label_b)} ({esc(hosts_text(b))}, {esc(b.context.date or '?')}); ratios are B / A")
    heading = f"hpcbench comparison: {hosts_text(a)} and {hosts_text(b)}"
    return page(heading, heading, subtitle, "".join(body)), views_a + views_b


def _cell(view: RecordView | None) -> str:
    if view is None:
        return tag("span", "absent", class_="badge absent")
    counts = findings_counts(view)
    return f"{esc(view.node)} {badge(view.status)}" + (f" {counts}" if counts else "")


def comparison_html(a: Results, b: Results, figures: bool = True) -> str:
    """The side-by-side report of two results files (same benchmark on two
    machines or two dates): both machine contexts, and per benchmark the
    ratio B / A of every headline number, with both records' figures,
    findings and tables in columns."""
    return comparison_page(a, b, figures)[0]
