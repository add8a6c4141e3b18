"""Readable summaries of results files (`python -m hpcbench show`): the
context, then each record's lines from its benchmark's `summary`."""
from __future__ import annotations

from . import _registry
from ._results import Results


def header(results: Results) -> list:
    ctx = results.context
    mpi, timer = ctx.mpi, ctx.timer
    return [f"hpcbench {ctx.hpcbench or '?'} results of {ctx.date or '?'}",
            f"  hosts: {', '.join(ctx.hosts or [])}; CPU: {ctx.cpu_model or '?'}; "
            f"MPI ranks: {mpi.ranks if mpi and mpi.ranks is not None else '?'}",
            f"  timer: {(timer.source if timer else None) or '?'} at "
            f"{(timer.ticks_per_ns if timer else None) or 0:.3f} ticks/ns, overhead "
            f"{(timer.overhead_ns if timer else None) or 0:.0f} ns; transparent huge pages: "
            f"{ctx.transparent_huge_pages or '?'}", ""]


def record_lines(record) -> list:
    """What `show` prints for one record: its summary (or why there is
    none), then its warnings."""
    if record.status == "skipped":
        lines = [f"{record.name} on {record.node or '?'}: skipped: {record.reason or ''}"]
    elif record.status != "ok":
        lines = [f"{record.name} on {record.node or '?'}: FAILED: {record.error or 'unknown error'}"]
    elif record.name in _registry.names():
        lines = _registry.get(record.name).summary(record)
    else:
        lines = [f"{record.name}: (no summary for this benchmark in this hpcbench version)"]
    return lines + [f"  warning: {w}" for w in record.warnings or []]


def summary(results: Results) -> str:
    lines = header(results)
    if not results.benchmarks:
        lines.append("no benchmark finished")
    for rec in results.benchmarks:
        lines.extend(record_lines(rec))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
