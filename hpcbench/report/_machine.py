"""The machine context at the top of a report: hosts, CPU and hwloc's
topology, MPI, hwloc, the build, versions and the date, from a results
file's context block. The topology summary is plain data of any shape in
older or hand-edited files, so every part of it is read defensively."""
from __future__ import annotations

from collections import Counter
from typing import Any

from .._context import RunContext
from .._format import format_size

#: Hosts named before "and N more".
_HOSTS_SHOWN = 8


def _hosts(ctx: RunContext) -> str | None:
    hosts = [str(h) for h in ctx.hosts or []]
    if not hosts:
        return None
    more = f" and {len(hosts) - _HOSTS_SHOWN} more" if len(hosts) > _HOSTS_SHOWN else ""
    return f"{', '.join(hosts[:_HOSTS_SHOWN])}{more} ({len(hosts)} node{'s' if len(hosts) > 1 else ''})"


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _cache_text(caches: list[Any]) -> str:
    """hwloc's data caches grouped: 'L1d 32 KiB x2 (1 PU each), L3 32 MiB x1 (2 PUs each)'."""
    groups: Counter[tuple[int, bool, int, int]] = Counter()
    for c in caches:
        if not isinstance(c, dict) or c.get("kind") == "instruction":
            continue
        level, size, pus = _number(c.get("level")), _number(c.get("size")), c.get("pus")
        if level is None or size is None:
            continue
        shared = len(pus) if isinstance(pus, list) else 0
        groups[(level, c.get("kind") == "data", size, shared)] += 1
    parts = []
    for (level, data, size, shared), n in sorted(groups.items()):
        each = f", {shared} PU{'s' if shared != 1 else ''} each" if shared else ""
        parts.append(f"L{level}{'d' if data else ''} {format_size(size)} x{n}{each}")
    return "; ".join(parts)


def _topology(topology: Any) -> list[tuple[str, str]]:
    """(field, text) rows from hwloc's topology summary, where it has them."""
    if not isinstance(topology, dict):
        return []
    counts = [(topology.get(k), name) for k, name in (("packages", "package"), ("cores", "core"), ("pus", "PU"))]
    parts = [f"{n} {name}{'s' if n != 1 else ''}" for n, name in counts if _number(n) is not None]
    nodes = topology.get("numa_nodes")
    numa = [n for n in nodes if isinstance(n, dict)] if isinstance(nodes, list) else []
    if numa:
        memory = sum(_number(n.get("memory")) or 0 for n in numa)
        parts.append(f"{len(numa)} NUMA node{'s' if len(numa) > 1 else ''}" +
                     (f" ({format_size(memory)} in all)" if memory else ""))
    out = []
    if parts:
        source = topology.get("source")
        out.append(("Topology", ", ".join(parts) + (f" ({source})" if isinstance(source, str) and source else "")))
    caches = topology.get("caches")
    if isinstance(caches, list) and caches:
        text = _cache_text(caches)
        if text:
            out.append(("Caches (hwloc)", text))
    return out


def _mpi(ctx: RunContext) -> str | None:
    mpi = ctx.mpi
    if mpi is None:
        return None
    library = (mpi.library or "?").split(",")[0]          # "Open MPI v4.1.4, package: ..." -> the name
    parts = [library]
    if mpi.standard:
        parts.append(f"MPI {mpi.standard}")
    if mpi.ranks is not None:
        parts.append(f"{mpi.ranks} rank{'s' if mpi.ranks != 1 else ''}")
    if mpi.thread_level:
        parts.append(f"thread level {mpi.thread_level}")
    if mpi.mpi4py:
        parts.append(f"mpi4py {mpi.mpi4py}")
    return ", ".join(parts)


def _hwloc(ctx: RunContext) -> str | None:
    topology = ctx.topology if isinstance(ctx.topology, dict) else {}
    build = ctx.build or {}
    version = topology.get("hwloc_version")
    compiled, runtime = build.get("hwloc_api_compiled"), build.get("hwloc_api_runtime")
    parts = [str(version)] if version else []
    if compiled or runtime:
        parts.append(f"(API compiled {compiled or '?'}, run {runtime or '?'})")
    return " ".join(parts) or None


def _build(ctx: RunContext) -> str | None:
    build = ctx.build or {}
    if not build:
        return None
    parts = [str(build.get("compiler") or "?"), str(build.get("cflags") or "")]
    if build.get("sanitized"):
        parts.append("(sanitized: timings are not representative)")
    return " ".join(p for p in parts if p)


def _timer(ctx: RunContext) -> str | None:
    t = ctx.timer
    if t is None or not t.source:
        return None
    rate = f" at {t.ticks_per_ns:.3f} ticks/ns" if t.ticks_per_ns else ""
    res = f", resolution {t.resolution_ns:.0f} ns" if t.resolution_ns is not None else ""
    over = f", overhead {t.overhead_ns:.0f} ns" if t.overhead_ns is not None else ""
    return f"{t.source}{rate}{res}{over}"


def context_rows(ctx: RunContext) -> list[tuple[str, str]]:
    """(field, text) rows of the machine context, in reading order; fields the file lacks are left out."""
    cpu = " ".join(str(v) for v in (ctx.cpu_model, f"({ctx.machine})" if ctx.machine else None) if v) or None
    rows = [("Hosts", _hosts(ctx)), ("CPU", cpu)]
    rows += _topology(ctx.topology)
    rows += [("MPI", _mpi(ctx)), ("hwloc", _hwloc(ctx)), ("Build", _build(ctx)),
             ("OS", ctx.os), ("Python / NumPy", " / ".join(str(v) for v in (ctx.python, ctx.numpy) if v) or None),
             ("Timer", _timer(ctx)), ("Huge pages (THP)", ctx.transparent_huge_pages),
             ("hpcbench", ctx.hpcbench), ("Run date", ctx.date)]
    return [(name, str(text)) for name, text in rows if text]
