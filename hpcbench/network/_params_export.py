"""The parameters file of a results file: the typed records of cache,
shared-caches, memory and comm, and the degradation ratios, gathered into
one Parameters (network/_params.py) for `python -m hpcbench params`.

Node-local records (cache, shared-caches, memory) are taken from the first
node that finished each, as `map` does (nodes assumed alike); the comments
of the file name that node, so an autotuner's user can see it.
"""
from __future__ import annotations

import math
import os
from typing import Any

from ._params import Groups, Parameters, ParamLayer, ParamMemoryLevel, ParamRank, write_parameters_file


def params_path(results_path: str) -> str:
    """RESULTS.json -> RESULTS.params (beside it)."""
    root, ext = os.path.splitext(results_path)
    return (root if ext == ".json" else results_path) + ".params"


def _sorted_groups(groups: Any) -> Groups:
    return sorted(sorted(int(p) for p in g) for g in groups if len(g) > 0)


def _caches(record: Any) -> dict[int, int]:
    """Measured sizes of the levels reported as caches (a flagged level is
    not a cache: its size is not one)."""
    return {int(lv.level): int(lv.size) for lv in record.derived.levels if lv.status != "flagged"}


def _shared(record: Any) -> tuple[dict[int, Groups], list[str]]:
    """Groups per level: the measured ones, or hwloc's where the level was
    undecidable (said in a comment), as `map` reads them."""
    out, said = {}, []
    for lv in sorted(record.derived.levels, key=lambda lv: lv.level):
        out[int(lv.level)] = _sorted_groups(lv.groups if lv.decidable else lv.hwloc_groups)
        if not lv.decidable:
            said.append(f"shared-cache L{lv.level}: undecidable from the co-runs, hwloc's groups")
    return out, said


def _memory(record: Any) -> tuple[float, list[ParamMemoryLevel]]:
    overhead = record.derived.overhead
    levels = [ParamMemoryLevel(float(lv.bandwidth), float(lv.relative), _sorted_groups(lv.groups))
              for lv in overhead.levels]
    return float(overhead.reference), levels


def _peak(bandwidths: Any) -> float | None:
    finite = [float(b) for b in bandwidths if b is not None and math.isfinite(b) and b > 0]
    return max(finite) if finite else None


def _comm(record: Any) -> tuple[list[ParamRank], list[ParamLayer]]:
    placement = sorted(record.derived.placement, key=lambda p: p.rank)
    ranks = [ParamRank(int(p.node), sorted(int(u) for u in p.pus)) for p in placement]
    layers = [ParamLayer(float(lv.latency), _peak(lv.summary.bandwidth),
                         sorted((min(a, b), max(a, b)) for a, b in lv.pairs)) for lv in record.derived.layers]
    return ranks, layers


def _first(results: Any, name: str) -> Any:
    return next((r for r in results.benchmarks if r.name == name and r.ok), None)


def parameters_from_results(results: Any) -> tuple[Parameters, list[str]]:
    """The Parameters of a Results and the comment lines that say where
    each part came from; ValueError when none of the records is there."""
    p, notes = Parameters(), []
    records = {name: _first(results, name) for name in ("cache", "shared-caches", "memory", "comm")}
    if records["cache"] is not None:
        p.caches = _caches(records["cache"])
    if records["shared-caches"] is not None:
        p.shared_caches, said = _shared(records["shared-caches"])
        notes += said
    if records["memory"] is not None:
        p.memory_reference, p.memory = _memory(records["memory"])
    if records["comm"] is not None:
        p.ranks, p.layers = _comm(records["comm"])
    p.rat_dist, p.rat_nc = dict(results.network_dist_ratios), dict(results.network_access_ratios)
    found = [name for name, rec in records.items() if rec is not None]
    if not found and not p.rat_dist and not p.rat_nc:
        raise ValueError("these results have none of cache, shared-caches, memory, comm, distance or "
                         "network-access finished")
    for name in ("cache", "shared-caches", "memory"):
        if records[name] is not None:
            notes.append(f"{name} from node {records[name].node or '?'}")
    return p, notes


def _ascii(text: str) -> str:
    """One line of printable ASCII: anything else as a backslash escape."""
    return text.encode("unicode_escape").decode("ascii")


def export_parameters(results: Any, path: str, force: bool = False) -> Parameters:
    """Write the parameters file of a Results (write_parameters_file, `force`
    as there); returns what was written."""
    p, notes = parameters_from_results(results)
    comments = [f"from {results.path or 'a results file'} of {results.context.get('date', '?')}",
                f"hosts: {', '.join(results.context.get('hosts', []))}", *notes]
    write_parameters_file(path, p, [_ascii(c) for c in comments], force=force)
    return p
