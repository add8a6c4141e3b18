"""Whether two results files come from the same machine: the facts of
their context blocks that a figure depends on (CPU model, architecture,
cores and PUs per node, the hosts). Other fields (dates, versions, the
command line) differ between any two runs and say nothing about the
machine."""
from __future__ import annotations

from typing import Any

from .._context import RunContext


def _topology_count(ctx: RunContext, key: str) -> Any:
    topology = ctx.topology if isinstance(ctx.topology, dict) else {}
    value = topology.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def machine_facts(ctx: RunContext) -> dict[str, Any]:
    """The facts two runs of one machine share (None where the file lacks one)."""
    return {"CPU model": ctx.cpu_model, "architecture": ctx.machine,
            "cores": _topology_count(ctx, "cores"), "PUs": _topology_count(ctx, "pus"),
            "hosts": ", ".join(sorted(str(h) for h in ctx.hosts)) if ctx.hosts else None}


def machine_differences(reference: RunContext, current: RunContext) -> list[str]:
    """'CPU model: AMD EPYC (reference) against Intel Xeon (this run)' per fact both files have and that differs."""
    a, b = machine_facts(reference), machine_facts(current)
    return [f"{name}: {a[name]} (reference) against {b[name]} (this run)"
            for name in a if a[name] is not None and b[name] is not None and a[name] != b[name]]


def same_kind(reference: RunContext, current: RunContext) -> bool:
    """Same CPU model, architecture and core count (the hosts may differ: another allocation of one cluster)."""
    return not any(d.split(":")[0] in ("CPU model", "architecture", "cores", "PUs")
                   for d in machine_differences(reference, current))
