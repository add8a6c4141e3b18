"""The answer at the top of a report, before the machine's tables: what
this machine or cluster is like in a few lines, what is wrong (each problem
with its evidence) and what to do about it (one line per problem with a
clear action); where nothing is wrong, it says so.

Every word comes from the records: the machine context, the machine
figures and headlines the benchmarks declare, their disagreements, the fits
that failed (hpcbench._physical), the nodes out of line with the others
(_across, by hpcbench._robust's rule), and the slow links and slow nodes a
`network-map` record names (read with getattr: its `slow_links` and
`slow_nodes`, each with an `evidence` string)."""
from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass

from .._headline import format_value
from .._results import Results
from ._across import OutOfLine, groups, out_of_line_nodes
from ._html import esc, slug, tag
from ._machine import context_rows
from ._view import NETWORK_FINDINGS, RecordView, network_findings

#: The context facts the portrait quotes (the full table follows it).
_PORTRAIT_FACTS = ("Hosts", "CPU", "Topology", "Caches (hwloc)")
#: Findings of one kind quoted per record; the rest are counted (the section has them all).
_QUOTED = 3


@dataclass(frozen=True)
class Problem:
    """One thing wrong: `what` with its evidence, `action` what to do (None
    where there is no clear one), `anchor` the section that shows it."""
    what: str
    action: str | None = None
    anchor: str | None = None


def portrait_lines(results: Results, views: list[RecordView]) -> list[str]:
    """What the machine is like: its hosts, CPU, topology and caches, then
    every machine figure the benchmarks measured (the median over the nodes
    where several nodes measured one)."""
    facts = dict(context_rows(results.context))
    lines = [f"{name}: {facts[name]}" for name in _PORTRAIT_FACTS if name in facts]
    figures: dict[str, list[float]] = defaultdict(list)
    units: dict[str, str] = {}
    for v in views:
        for h in v.machine_figures:
            if h.value is not None:
                figures[h.label].append(h.value)
                units[h.label] = h.unit
    measured = [f"{label} {format_value(statistics.median(values), units[label])}" +
                (f" (median over {len(values)} nodes)" if len(values) > 1 else "")
                for label, values in figures.items()]
    if measured:
        lines.append(f"Measured: {'; '.join(measured)}.")
    return lines


def _quoted(lines: list[str], most: int = _QUOTED) -> str:
    """Up to `most` lines joined, and how many more the section holds."""
    more = len(lines) - most
    return "; ".join(lines[:most]) + (f"; and {more} more in its section" if more > 0 else "")


def _where(views: list[RecordView]) -> str:
    """'cache on n0' or 'cache on n0, n1 and 6 more nodes'."""
    nodes = [v.node for v in views]
    shown = ", ".join(nodes[:3]) + (f" and {len(nodes) - 3} more nodes" if len(nodes) > 3 else "")
    return f"{views[0].name} on {shown}"


def _said_by(views: list[RecordView], kind: str, said: list[str]) -> dict[tuple[str, ...], list[RecordView]]:
    """The records' lines of `kind` (disagreements, failed_fits) -> the
    records saying exactly them: one benchmark on 64 nodes that all say the
    same is one problem, not 64. Lines holding evidence already `said` are left out."""
    out: dict[tuple[str, ...], list[RecordView]] = defaultdict(list)
    for v in views:
        lines = tuple(line for line in getattr(v, kind) if not any(text in line for text in said))
        if lines:
            out[(v.name,) + lines].append(v)
    return out


def _rerun(said: list[RecordView]) -> str | None:
    """'rerun X on a quiet machine (it warned: ...)' where the records warned about their own run, else None."""
    warned = [w for v in said for w in v.warnings]
    if not warned:
        return None
    return f"rerun {said[0].name} on a quiet machine and see whether its findings stay (it warned: {warned[0]})"


def record_problems(views: list[RecordView], said: list[str] | None = None) -> list[Problem]:
    """Benchmarks that failed, disagreements with the machine or a model,
    and fits that failed, each once for all the records that say it (and
    none that repeats evidence already `said`)."""
    out = [Problem(f"{v.name} failed on {v.node}: {v.record.error or 'unknown error'}",
                   f"read {v.name}'s error below, fix its cause and rerun it", v.anchor)
           for v in views if v.status not in ("ok", "skipped")]
    for key, saying in _said_by(views, "disagreements", said or []).items():
        out.append(Problem(f"{_where(saying)} disagrees with the machine or its model: {_quoted(list(key[1:]))}",
                           _rerun(saying), saying[0].anchor))
    for key, saying in _said_by(views, "failed_fits", []).items():
        out.append(Problem(f"{_where(saying)}: {len(key) - 1} fit(s) failed, so their figures are not findings: "
                           f"{_quoted(list(key[1:]), 1)}", _rerun(saying), saying[0].anchor))
    return out


def node_problems(views: list[RecordView]) -> list[Problem]:
    """Per node-local benchmark run on several nodes, each node out of line
    with the others: one line per node, its first figure out with its
    evidence and the others counted (the table across nodes has them all)."""
    out = []
    for name, group in groups(views).items():
        if len(group) < 2:
            continue
        by_node: dict[int, list[OutOfLine]] = defaultdict(list)
        for found in out_of_line_nodes(group):
            by_node[id(found.view)].append(found)
        for found_list in by_node.values():
            view, more = found_list[0].view, len(found_list) - 1
            others = f" and {more} more figure(s)" if more else ""
            out.append(Problem(f"{view.node} is out of line with the other nodes in {name}: "
                               f"{found_list[0].evidence()}{others}",
                               f"check {view.node}'s hardware and configuration behind its {found_list[0].label}"
                               f"{others} (and whether something else ran there)", f"across-{slug(name)}"))
    return out


def _evidence(item: object) -> str:
    """An item's `evidence` (a string, or a method giving one), else the item in words."""
    evidence = getattr(item, "evidence", None)
    text = evidence() if callable(evidence) else evidence
    return str(text if text is not None else item)


def _who(item: object) -> str:
    """The node ('n4') or the link ('n2 -> n5') a network-map finding names, '' where it names neither."""
    node, source, destination = (getattr(item, key, None) for key in ("node", "source", "destination"))
    if node is not None:
        return str(node)
    return f"{source} -> {destination}" if source is not None and destination is not None else ""


#: What to check for each kind of network-map finding (NETWORK_FINDINGS' attributes).
_NETWORK_ACTIONS = {"slow_links": "check the cable, the switch ports and the network interfaces of the link {who}",
                    "slow_nodes": "check {who}'s network interface, its link to the switch, and whether something "
                                  "else ran there"}


def network_map_problems(views: list[RecordView]) -> list[Problem]:
    """The slow links and slow nodes each network-map record names, with its evidence."""
    out = []
    for v in views:
        for kind, name, _ in NETWORK_FINDINGS:
            for item in network_findings(v, kind):
                who = _who(item)
                out.append(Problem(f"{name}{' ' + who if who else ''}: {_evidence(item)}",
                                   _NETWORK_ACTIONS[kind].format(who=who or "it names"), v.anchor))
    return out


def problems(views: list[RecordView]) -> list[Problem]:
    """Everything wrong the records show, the cluster's layout first; a
    record's line that repeats a network-map finding's evidence (should the
    benchmark also list it as a disagreement) is not said again."""
    network = network_map_problems(views)
    return network + node_problems(views) + record_problems(views, [p.what.split(": ", 1)[-1] for p in network])


def _nothing_wrong(views: list[RecordView]) -> str:
    many = any(len(g) > 1 for g in groups(views).values())
    return ("Nothing is wrong: every benchmark finished, none disagrees with the machine or its model, and every "
            "fitted figure is physical" + (", and no node is out of line with the others." if many else "."))


def _warnings_line(views: list[RecordView]) -> str:
    n = sum(len(v.warnings) for v in views)
    if not n:
        return ""
    return tag("p", f"The runs carry {n} warning(s) about their own quality (a busy machine, outliers), in the "
                    "sections below: they say how far to trust a figure, not what is wrong with the machine.",
               class_="meta")


def _partial_line(views: list[RecordView]) -> str:
    """Where the page shows only the first records of a large file: the answer is theirs."""
    rest = getattr(views, "not_shown", {}).get("records", 0)
    return tag("p", f"This answer reads the {len(views)} records the page shows; the file holds {rest} more "
                    "(hpcbench show prints every record).", class_="meta") if rest else ""


def _link(problem: Problem) -> str:
    text = esc(problem.what)
    return text + (" " + tag("a", "(see)", href=f"#{problem.anchor}") if problem.anchor else "")


def answer_html(results: Results, views: list[RecordView]) -> str:
    """The answer block: what the machine is like, what is wrong, what to do."""
    found = problems(views)
    like = tag("h3", "What this machine is like") + tag("ul", "".join(tag("li", esc(line))
                                                                      for line in portrait_lines(results, views)))
    if found:
        wrong = tag("h3", "What is wrong") + tag("ul", "".join(tag("li", _link(p)) for p in found), class_="wrong")
        actions = list(dict.fromkeys(p.action for p in found if p.action))
        todo = (tag("h3", "What to do") + tag("ul", "".join(tag("li", esc(a)) for a in actions))) if actions else ""
    else:
        wrong, todo = tag("h3", "What is wrong") + tag("p", esc(_nothing_wrong(views)), class_="fine"), ""
    return tag("section", tag("h2", "The answer") + like + wrong + todo + _warnings_line(views) +
               _partial_line(views), id="answer")
