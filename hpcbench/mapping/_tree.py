"""A node's hwloc tree as the mapping needs it, rebuilt from the topology
summary a results file keeps (hpcbench.topology.Topology.summary), so a
mapping can be made where the nodes were not measured, without hwloc.

A Partition splits the node's PUs into groups (the PUs of each L2, of each
package, ...): one integer per PU, equal for PUs of the same group. The
rules only ask "is this PU in the selected one's group?", which is one
vectorised comparison per level.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Partition:
    """Groups of a node's PUs, as a group id per PU (in NodeTree.pus order).
    PUs in no group get ids of their own (negative), so they match nothing."""
    name: str
    group: np.ndarray
    groups: list[list[int]]     #: the groups as lists of OS indexes (for display and files)

    def with_name(self, name: str) -> Partition:
        return Partition(name, self.group, self.groups)


def partition(name: str, groups: Iterable[Sequence[int]], index: dict[int, int]) -> Partition:
    """The partition of the PUs in `index` (OS index -> position) into
    `groups` (lists of OS indexes; PUs not in `index` are left out, a PU in
    two groups stays in the first)."""
    gid = -1 - np.arange(len(index), dtype=np.int64)
    kept: list[list[int]] = []
    for pus in groups:
        members = [int(p) for p in pus if int(p) in index and gid[index[int(p)]] < 0]
        if members:
            gid[[index[p] for p in members]] = len(kept)
            kept.append(sorted(members))
    return Partition(name, gid, kept)


@dataclass
class NodeTree:
    """The PUs of a node (OS indexes in hwloc's logical order) and the
    groups hwloc knows: caches by level, packages, NUMA nodes, cores."""
    pus: np.ndarray
    index: dict[int, int]                       #: OS index -> position in pus
    caches: dict[int, Partition] = field(default_factory=dict)  #: level -> (data and unified caches)
    numa: Partition | None = None
    package: Partition | None = None
    core: Partition | None = None
    source: str = "hwloc"

    @property
    def levels(self) -> list[Partition]:
        """The partitions that group PUs, closest first (smaller groups
        first), each distinct one once (merged names: 'core/L1/L2'), without
        one that holds the whole node: the classes of rule 3's fallback."""
        candidates = ([self.core] if self.core else []) + [self.caches[k] for k in sorted(self.caches)] + \
            ([self.package] if self.package else []) + ([self.numa] if self.numa else [])
        useful = [p for p in candidates if any(len(g) > 1 for g in p.groups)
                  and not (len(p.groups) == 1 and len(p.groups[0]) == len(self.pus))]
        useful.sort(key=lambda p: np.mean([len(g) for g in p.groups]))     # stable: hwloc's order on ties
        out: list[Partition] = []
        for p in useful:
            same = next((i for i, q in enumerate(out) if np.array_equal(_canonical(q.group), _canonical(p.group))),
                        None)
            if same is None:
                out.append(p)
            else:
                out[same] = out[same].with_name(f"{out[same].name}/{p.name}")
        return out


def _canonical(gid: np.ndarray) -> np.ndarray:
    """Group ids renumbered in order of first appearance (two partitions
    with the same groups compare equal)."""
    _, first, inverse = np.unique(gid, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[inverse]


def tree_from_summary(summary: dict[str, Any]) -> NodeTree:
    """The NodeTree of a topology summary; ValueError (one line) if it
    lists no PU."""
    if not isinstance(summary, dict):
        raise ValueError("the topology summary must be a dict (Topology.summary())")
    order = summary.get("pu_order")
    if not order:
        found: set[int] = set()
        for item in list(summary.get("numa_nodes") or []) + list(summary.get("caches") or []):
            found.update(int(p) for p in item.get("pus", []))
        order = sorted(found) or list(range(int(summary.get("pus") or 0)))
    if not order:
        raise ValueError("the topology lists no PU")
    pus = np.array([int(p) for p in order], dtype=np.int64)
    index = {int(p): i for i, p in enumerate(pus)}
    by_level: dict[int, list[list[int]]] = {}
    for c in summary.get("caches") or []:
        if c.get("kind") != "instruction":
            by_level.setdefault(int(c["level"]), []).append(c["pus"])
    tree = NodeTree(pus, index, caches={lv: partition(f"L{lv}", groups, index) for lv, groups in by_level.items()})
    if summary.get("numa_nodes"):
        tree.numa = partition("NUMA node", [n["pus"] for n in summary["numa_nodes"]], index)
    if summary.get("package_pus"):
        tree.package = partition("package", summary["package_pus"], index)
    if summary.get("core_pus"):
        tree.core = partition("core", summary["core_pus"], index)
    tree.source = str(summary.get("source", "hwloc"))
    return tree
