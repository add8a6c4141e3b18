"""What `check` prints: a terminal table (figure, reference, this run,
change, verdict, test) with the lines that say what the verdicts rest on,
or a JSON document of a stable schema (FORMAT, FORMAT_VERSION;
docs/check.md)."""
from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any

from .._headline import format_value
from .._robust import K
from ._compare import Comparison, Row

FORMAT = "hpcbench-check"
FORMAT_VERSION = 1
#: The order of the verdict counts.
_WORDS = ("worse", "missing", "better", "same", "different", "new", "no value")


def _change(row: Row) -> str:
    c = row.verdict.change
    return "-" if c is None else f"{100 * c:+.1f}%"


def _test(row: Row) -> str:
    v = row.verdict
    if v.test == "Mann-Whitney U":
        return f"Mann-Whitney p={v.p_adjusted:.2g}"
    if v.test == "tolerance":
        return f"tolerance {100 * (v.tolerance or 0):g}%"
    if v.test == "history":
        return f"history, floor {100 * (v.tolerance or 0):g}%" if v.tolerance is not None else "history"
    return "-"


def _cells(row: Row) -> list[str]:
    where = f"{row.benchmark} {row.node}: {row.label}"
    ref = format_value(row.reference.value if row.reference else None, row.unit)
    cur = format_value(row.current.value if row.current else None, row.unit)
    word = row.verdict.word.upper() if row.verdict.failing else row.verdict.word
    return [where, ref, cur, _change(row), word, _test(row)]


def counts(comparison: Comparison) -> dict[str, int]:
    """How many figures got each verdict, every verdict listed."""
    seen = Counter(r.verdict.word for r in comparison.rows)
    return {word: seen.get(word, 0) for word in _WORDS}


#: Said before a regression found against one earlier run (docs/check.md: on a shared machine every pair of
#: unchanged runs differs, for hpcbench's test and the peers' alike).
SINGLE_RUN_NOTE = ("note: one earlier run cannot show how far this machine's figures move between unchanged runs; "
                   "where they move, judge against a history of runs (--against DIR) or give the figures "
                   "tolerances (docs/check.md)")


def verdict_line(comparison: Comparison) -> str:
    """The last line: the answer, then the counts."""
    n = counts(comparison)
    said = ", ".join(f"{v} {k}" for k, v in n.items() if v)
    if comparison.failing:
        return f"REGRESSION: {len(comparison.failing)} figure(s) worse or missing ({said})"
    return f"OK: every figure within ({said or 'no figures compared'})"


def rule_line(comparison: Comparison, results: str, reference: str, kind: str) -> str:
    """The first line: what is judged against what, by which rule."""
    s = comparison.settings
    if kind == "history":
        return (f"{results} against the earlier runs of this machine in {reference}: out of line with their "
                f"median and spread (beyond {K:g} scaled MADs and {100 * s.min_change:g}% or the figure's own "
                "tolerance)")
    return (f"{results} against {reference}: Mann-Whitney U at {s.alpha:g} (Holm over the figures with "
            f"samples) and a change of at least {100 * s.min_change:g}%; without samples, the tolerance")


def table_text(comparison: Comparison, results: str, reference: str, kind: str = "results") -> str:
    """The table for a terminal, with its header lines and the verdict line."""
    lines = [rule_line(comparison, results, reference, kind)]
    if comparison.machine:
        what = ("the same kind of machine on other hosts" if comparison.same_kind else "different machines")
        lines.append(f"{what} ({'; '.join(comparison.machine)}): only the figures both have are compared")
    lines += [f"not compared: {n}" for n in comparison.not_compared]
    lines += [f"no figures from {p}" for p in comparison.problems]
    header = ["figure", "reference", "this run", "change", "verdict", "test"]
    body = [_cells(r) for r in comparison.rows]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    for row in [header, *body]:
        lines.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) if i < 4 else cell.ljust(w)
                               for i, (cell, w) in enumerate(zip(row, widths))).rstrip())
    if kind == "results" and comparison.failing:
        lines.append(SINGLE_RUN_NOTE)
    lines.append(verdict_line(comparison))
    return "\n".join(lines) + "\n"


def _number(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _row_json(row: Row) -> dict[str, Any]:
    v = row.verdict
    return {"benchmark": row.benchmark, "node": row.node, "label": row.label, "unit": row.unit,
            "better": row.better,
            "reference": _number(row.reference.value) if row.reference else None,
            "value": _number(row.current.value) if row.current else None,
            "change": _number(v.change), "verdict": v.word, "regression": v.failing, "test": v.test,
            "p_value": v.p_value, "p_adjusted": v.p_adjusted, "tolerance": v.tolerance,
            "samples": [len(h.samples) if h is not None and h.samples is not None else None
                        for h in (row.reference, row.current)],
            "line": row.line, "why": v.why}


def comparison_json(comparison: Comparison, results: str, reference: str, kind: str) -> dict[str, Any]:
    """The JSON document (docs/check.md, "JSON output")."""
    s = comparison.settings
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "results": results, "reference": reference,
            "reference_kind": kind, "alpha": s.alpha, "min_change": s.min_change, "correction": "holm",
            "same_machine": not comparison.machine, "same_kind": comparison.same_kind,
            "machine_differences": comparison.machine,
            "not_compared": comparison.not_compared, "problems": comparison.problems,
            "figures": [_row_json(r) for r in comparison.rows], "counts": counts(comparison),
            "regression": bool(comparison.failing), "exit_status": comparison.exit_status}


def json_text(comparison: Comparison, results: str, reference: str, kind: str) -> str:
    return json.dumps(comparison_json(comparison, results, reference, kind), indent=1, allow_nan=False) + "\n"
