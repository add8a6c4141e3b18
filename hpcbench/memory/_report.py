"""What `hpcbench report` says about a memory record: what the overhead
levels and the scalability mean for placing memory-bound processes, the
pairs that contradict hwloc's layout, and the headline numbers."""
from __future__ import annotations

import numpy as np

from .._format import gigabytes_per_second, groups_text
from .._headline import Headline, finite, sample_tuple
from ._records import MemoryRecord, Scalability

#: Cores that reach this share of the best aggregate "saturate" the memory.
SATURATION = 0.9


def saturating_cores(sc: Scalability) -> int | None:
    """The fewest cores of the group whose bandwidth together reaches
    SATURATION of the best the group reached (None without points)."""
    values = [(p.cores, p.all_cores) for p in sc.points if finite(p.all_cores) is not None]
    if not values:
        return None
    best = max(v for _, v in values)
    return min(c for c, v in values if v >= SATURATION * best)


def _node(record: MemoryRecord) -> Scalability | None:
    return next((sc for sc in record.derived.scalability if sc.group == "node"), None)


def memory_meaning(record: MemoryRecord) -> list:
    """One core alone, each overhead level, and how many cores saturate the node's memory."""
    o = record.derived.overhead
    lines = [f"One core copying alone gets {gigabytes_per_second(o.reference)}."]
    if not o.levels:
        lines.append("No pair of tested cores slows the other down: memory bandwidth is not shared between them.")
    for i, lv in enumerate(o.levels, 1):
        lines.append(f"Overhead level {i}: cores {groups_text(lv.groups)} contend for memory: with its partner "
                     f"copying each gets {gigabytes_per_second(lv.bandwidth)} ({100 * lv.relative:.0f}% of "
                     "alone); spread memory-bound processes over different groups.")
    node = _node(record)
    if node and node.points:
        last = node.points[-1]
        k = saturating_cores(node)
        alone = node.points[0].all_cores
        what = "together" if last.aggregate is not None else "together (sum of per-core rates)"
        line = f"All {last.cores} cores copying at once get {gigabytes_per_second(last.all_cores)} {what}"
        if alone > 0:
            line += f", {last.all_cores / alone:.1f}x one core"
        if k is not None and k < last.cores:
            line += (f"; {k} core(s) already reach {100 * SATURATION:.0f}% of it: a memory-bound code gains little "
                     f"from more than {k} core(s) per node")
        lines.append(line + ".")
    return lines


def memory_disagreements(record: MemoryRecord) -> list:
    """Pairs with the same hwloc relation but different overheads (the record's own words)."""
    return list(record.derived.overhead.inconsistencies)


def memory_headlines(record: MemoryRecord) -> list:
    """Bandwidth of one core alone, per core at each overhead level, and of the whole node."""
    o = record.derived.overhead
    out = [Headline("one core alone", finite(o.reference), "bytes/s", "higher", _flat(record.raw.alone))]
    out += [Headline(f"overhead level {i}, per core", finite(lv.bandwidth), "bytes/s", "higher")
            for i, lv in enumerate(o.levels, 1)]
    node = _node(record)
    if node and node.points:
        last = node.points[-1]
        out.append(Headline("node, all cores together", finite(last.all_cores), "bytes/s", "higher"))
        out.append(Headline("node, per core with all copying", finite(last.per_core), "bytes/s", "higher",
                            _scalability_samples(record, node)))
        k = saturating_cores(node)
        out.append(Headline("cores that saturate the node", None if k is None else float(k), "count"))
    return out


def _flat(values: object) -> tuple[float, ...] | None:
    """Every copy bandwidth of a raw array (bytes/s per core), as a headline's samples; None where it is not numbers."""
    try:
        return sample_tuple(np.asarray(values, dtype=float).ravel())
    except (TypeError, ValueError):
        return None


def _scalability_samples(record: MemoryRecord, sc: Scalability) -> tuple[float, ...] | None:
    """The per-core rates of every repetition with the group's last core count copying (its raw run)."""
    raw = next((r for r in record.raw.scalability if r.group == sc.group), None)
    if raw is None or not isinstance(raw.bandwidth, list) or len(raw.bandwidth) != len(sc.points):
        return None
    return _flat(raw.bandwidth[-1])

