"""Readable summaries of results files (`python -m hpcbench show`): the
context, then each record's lines from its benchmark's `summary`."""
from __future__ import annotations

from . import _registry
from ._context import RunContext
from ._record import Record
from ._results import Results
from ._terminal import shown

#: Hosts the header names at most; beyond, it says how many more (a run of a
#: million nodes would otherwise make a line of megabytes).
MAX_HOSTS_SHOWN = 64


def hosts_text(hosts: list[str] | None) -> str:
    """The hosts for the header: all of them up to MAX_HOSTS_SHOWN, else the first ones and how many more."""
    hosts = hosts or []
    if len(hosts) <= MAX_HOSTS_SHOWN:
        return ", ".join(hosts)
    return f"{', '.join(hosts[:MAX_HOSTS_SHOWN - 1])} and {len(hosts) - MAX_HOSTS_SHOWN + 1} more"


def header(results: Results) -> list[str]:
    ctx = results.context
    mpi, timer = ctx.mpi, ctx.timer
    return [f"hpcbench {ctx.hpcbench or '?'} results of {ctx.date or '?'}",
            f"  hosts: {hosts_text(ctx.hosts)}; CPU: {ctx.cpu_model or '?'}; "
            f"MPI ranks: {mpi.ranks if mpi and mpi.ranks is not None else '?'}",
            f"  timer: {(timer.source if timer else None) or '?'} at "
            f"{(timer.ticks_per_ns if timer else None) or 0:.3f} ticks/ns, overhead "
            f"{(timer.overhead_ns if timer else None) or 0:.0f} ns; transparent huge pages: "
            f"{ctx.transparent_huge_pages or '?'}", *launch_lines(ctx), ""]


def launch_lines(ctx: RunContext) -> list[str]:
    """How the run was launched, in the words that matter for reading the
    figures: the launcher, where the ranks ran, the CPU frequency policy and
    the Slurm job. Nothing for files without these keys (before hpcbench
    recorded them), so old files show as they did."""
    from ._launch import binding_summary
    parts = []
    if ctx.launcher and ctx.launcher.name:
        parts.append(f"launcher: {ctx.launcher.name}" + (f" ({ctx.launcher.version})" if ctx.launcher.version else ""))
    if ctx.binding:
        parts.append(f"binding: {binding_summary(ctx.binding)}")
    lines = [f"  {'; '.join(parts)}"] if parts else []
    more = []
    if ctx.cpu_frequency:
        more.append(f"CPU governor: {ctx.cpu_frequency.governor or '?'}, turbo: {ctx.cpu_frequency.turbo or '?'}")
    if ctx.slurm:
        job = ctx.slurm.get("SLURM_JOB_ID", "?")
        nodes = ctx.slurm.get("SLURM_JOB_NODELIST")
        more.append(f"Slurm job {job}" + (f" on {nodes}" if nodes else ""))
    return lines + ([f"  {'; '.join(more)}"] if more else [])


def record_lines(record: Record) -> list[str]:
    """What `show` prints for one record: its summary (or why there is
    none), then its warnings, but not one its summary already says word for
    word (a flagged cache level is both a finding and a warning)."""
    if record.status == "skipped":
        lines = [f"{record.name} on {record.node or '?'}: skipped: {record.reason or ''}"]
    elif record.status != "ok":
        lines = [f"{record.name} on {record.node or '?'}: FAILED: {record.error or 'unknown error'}"]
    elif record.name in _registry.names():
        lines = _registry.get(record.name).summary(record)
    else:
        lines = [f"{record.name}: (no summary for this benchmark in this hpcbench version)"]
    said = "\n".join(lines)
    return lines + [f"  warning: {w}" for w in record.warnings or [] if w not in said]


def summary(results: Results) -> str:
    """Everything `show` prints: the header, then each record's lines (linear
    in the records: one pass, one join), every string from the file shown
    with its control characters escaped (hpcbench._terminal.shown)."""
    lines = header(results)
    if not results.benchmarks:
        lines.append("no benchmark finished")
    for rec in results.benchmarks:
        lines.extend(record_lines(rec))
        lines.append("")
    # Each item is one line: a newline or control character inside one came
    # from the file (a host name, an error text) and is shown, not obeyed.
    return "\n".join(map(shown, lines)).rstrip() + "\n"
