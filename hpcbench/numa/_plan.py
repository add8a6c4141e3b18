"""Which cells of the NUMA matrix a run measures: for every chosen node
with cores, the cores that read (one PU per core, those this process may
use) and the core that chases, against the memory of every chosen node.
Pure: from a Topology (this machine's, or a synthetic one in the tests)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .._errors import OptionError
from ..topology import Topology

#: Nodes named in a message before "...".
SHOWN_NODES = 16


@dataclass(frozen=True)
class NumaPlan:
    """nodes: the chosen NUMA nodes (OS indexes, ascending), the columns of
    the matrix (memory); cpu_nodes: those with usable cores, its rows;
    readers[i]: the PUs (one per core) that read node memory from node i;
    chaser[i]: the PU that chases."""
    nodes: list[int]
    cpu_nodes: list[int]
    readers: dict[int, list[int]]

    def chaser(self, node: int) -> int:
        return self.readers[node][0]

    @property
    def cells(self) -> list[tuple[int, int]]:
        """(cores of node i, memory of node j), rows first."""
        return [(i, j) for i in self.cpu_nodes for j in self.nodes]

    @property
    def largest_team(self) -> int:
        return max(len(r) for r in self.readers.values())


def node_names(indexes: Sequence[int]) -> str:
    shown = ", ".join(str(n) for n in indexes[:SHOWN_NODES])
    return shown + (", ..." if len(indexes) > SHOWN_NODES else "")


def one_pu_per_core(topology: Topology, pus: Sequence[int]) -> list[int]:
    """The first PU of every core among `pus` (ascending by core); PUs
    outside any core stand for themselves."""
    wanted, chosen, seen = set(pus), [], set()
    for core in topology.cores:
        first = next((p for p in core.pus if p in wanted), None)
        if first is not None:
            chosen.append(first)
            seen.update(core.pus)
    chosen += [p for p in pus if p not in seen]
    return sorted(chosen)


def plan_numa(topology: Topology, nodes: Sequence[int] | None = None) -> NumaPlan:
    """The plan over `nodes` (None: every NUMA node). OptionError ("nodes")
    naming the nodes there are if one does not exist, and if none of the
    chosen nodes has a core this process may use."""
    present = sorted(n.os_index for n in topology.numa_nodes)
    chosen = present if nodes is None else sorted(set(nodes))
    missing = [n for n in chosen if n not in present]
    if missing or not chosen:
        raise OptionError("nodes", f"must name NUMA nodes of this machine ({node_names(present) or 'none'}), "
                                   f"got {node_names(missing) if missing else 'none'}")
    usable = set(topology.pu_indexes)
    readers = {}
    for node in topology.numa_nodes:
        pus = [p for p in node.pus if p in usable]
        if node.os_index in chosen and pus:
            readers[node.os_index] = one_pu_per_core(topology, pus)
    if not readers:
        raise OptionError("nodes", f"must include a NUMA node with cores this process may use, got "
                                   f"{node_names(chosen)} (memory-only nodes are read from the cores of others)")
    return NumaPlan(nodes=chosen, cpu_nodes=sorted(readers), readers=readers)
