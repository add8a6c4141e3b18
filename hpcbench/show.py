"""Readable summaries of results files (`python -m hpcbench show`)."""
from __future__ import annotations

from ._validate import format_size


def _fmt_diff(rec):
    if rec.get("relative_difference") is None:
        return "-"
    return f"{100 * rec['relative_difference']:+.1f}%"


def cache_summary(record: dict) -> list:
    lines = []
    params = record.get("parameters", {})
    lines.append(f"cache levels on {record.get('node', '?')} (PU {params.get('pu')}, {params.get('order')} order, "
                 f"{params.get('pages')} pages, stride {format_size(params.get('stride', 0))})")
    lines.append(f"  {'level':<6}{'measured':>12}{'method':>15}{'misses from':>13}{'hwloc':>12}{'diff':>9}  flag")
    for lv in record.get("derived", {}).get("levels", []):
        hw = format_size(lv["hwloc_size"]) if lv.get("hwloc_size") else "-"
        flag = "" if lv.get("agrees") is not False else "DISAGREES"
        onset = format_size(lv["onset"]) if lv.get("onset") else "-"
        lines.append(f"  L{lv['level']:<5}{format_size(lv['size']):>12}{lv['method']:>15}{onset:>13}{hw:>12}"
                     f"{_fmt_diff(lv):>9}  {flag}")
    derived = record.get("derived", {})
    found = len(derived.get("levels", []))
    expected = len(derived.get("hwloc_levels", []))
    if found != expected:
        lines.append(f"  note: {found} levels measured, hwloc reports {expected}")
    return lines


SUMMARIES = {"cache": cache_summary}


def summary(results) -> str:
    ctx = results.context
    lines = [f"hpcbench {ctx.get('hpcbench', '?')} results of {ctx.get('date', '?')}",
             f"  hosts: {', '.join(ctx.get('hosts', []))}; CPU: {ctx.get('cpu_model', '?')}; "
             f"MPI ranks: {ctx.get('mpi', {}).get('ranks', '?')}",
             f"  timer: {ctx.get('timer', {}).get('source', '?')} at "
             f"{ctx.get('timer', {}).get('ticks_per_ns', 0):.3f} ticks/ns, overhead "
             f"{ctx.get('timer', {}).get('overhead_ns', 0):.0f} ns; transparent huge pages: "
             f"{ctx.get('transparent_huge_pages', '?')}", ""]
    if not results.benchmarks:
        lines.append("no benchmark finished")
    for rec in results.benchmarks:
        if rec.get("status") != "ok":
            lines.append(f"{rec.get('name')} on {rec.get('node', '?')}: FAILED: {rec.get('error', 'unknown error')}")
        elif rec.get("name") in SUMMARIES:
            lines.extend(SUMMARIES[rec["name"]](rec))
        else:
            lines.append(f"{rec.get('name')}: (no summary for this benchmark in this hpcbench version)")
        for w in rec.get("warnings", []):
            lines.append(f"  warning: {w}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
