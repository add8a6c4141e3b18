"""Servet's rules: once a core is selected, how the weights of the other
cores change (Servet 3.0, sections 3 and 4.2). Each rule is stated here
once; the selection (_select.py) only adds up what they return.

1. "The weights of the cores that share cache with the selected one are
   increased. This rule is applied for each cache level."
2. "The weights of the cores that show additional overhead when accessing
   memory concurrently with the selected core are increased" (per overhead
   level: a core on the selected one's bus and in its cell is raised twice).
3. "The weights of the cores whose communication latencies with the
   selected one are significantly lower than the maximum latency in the
   system are decreased ... in a magnitude that depends on the difference
   between the current and the maximum latency": by w x (max - l) / max,
   for l below (1 - tolerance) x max, the tolerance being the gap that
   separates Servet's communication layers in the comm record.
Network. "The weights of the cores that show ratios higher than 1.5 when
   accessing the network at the same time that the selected core are
   increased": the node's k-th process selected, its other cores would be
   the (k+1)-th, so they are raised when ratNC[k + 1] > 1.5. Beyond the
   measured processes per node, the last measured ratio holds.
   Where the network-access record says the node's cores share their
   network access per group (a package, a NIC's locality: "the groups of
   cores that present overhead when concurrently accessing the network"),
   the rule acts at two levels, both read from ratNC per group (ratNC at
   groups x j processes per node, measured spread evenly over the groups):
   the selected core's group, its j-th process, raises the group's other
   cores when ratNC per group[j + 1] > 1.5; and the node, its k-th process,
   raises all its cores when its next process, placed evenly over the
   groups as the benchmark places it, would share: ratNC per group
   [ceil((k + 1) / groups)] > 1.5. The node's part is the per-node rule
   above read through the groups (ratNC at a k that is not a multiple of
   the groups mixes shared and unshared groups); without it, rule 3's pull
   within a node (up to w3 per process on the node, against w_net per
   process in the group) would put a second process on a processor while
   other nodes are empty whenever on-node latency is below half the
   network's, not the one-per-processor placement Servet 3.0 reports (6.2).
"""
from __future__ import annotations

import numpy as np

from ..network import mapping_rule
from ._inputs import NodeInputs
from ._tree import Partition
from ._weights import Weights


def sharing_rule(partitions: list[Partition], i: int, weight: float) -> list[tuple[str, np.ndarray]]:
    """Rules 1 and 2: for each partition, +weight for the PUs in PU i's
    group (i itself excluded). [(part name, delta per PU)]."""
    out = []
    for p in partitions:
        mask = p.group == p.group[i]
        mask[i] = False
        out.append((p.name, weight * mask))
    return out


def cache_rule(node: NodeInputs, i: int, w: Weights) -> list[tuple[str, np.ndarray]]:
    """Rule 1, one entry per cache level."""
    return sharing_rule(node.caches, i, w.sharing)


def memory_rule(node: NodeInputs, i: int, w: Weights) -> list[tuple[str, np.ndarray]]:
    """Rule 2, one entry per memory-overhead level."""
    return sharing_rule(node.memory, i, w.sharing)


def latency_change(latency: np.ndarray, maximum: float, tolerance: float, w: Weights) -> np.ndarray:
    """Rule 3 for latencies to the selected core: -w x (max - l) / max where
    l is clearly below the maximum, 0 elsewhere."""
    latency = np.asarray(latency, dtype=float)
    if not maximum > 0:
        return np.zeros_like(latency)
    clearly = latency < (1.0 - tolerance) * maximum
    return np.where(clearly, -w.latency * (maximum - latency) / maximum, 0.0)


class NetworkRule:
    """The network rule over a measured ratNC ({processes per node: ratio}),
    or, where the cores share their network access per group, over ratNC
    per group ({processes per group: ratio}) on `groups` groups per node."""

    def __init__(self, rat_nc: dict[int, float], w: Weights, groups: int = 1):
        self.rat_nc = dict(rat_nc)
        self.weight = w.network
        self.groups = groups
        rule = mapping_rule(self.rat_nc) if self.rat_nc else None
        self.threshold = rule.threshold if rule else None
        self.over = set(rule.processes_per_node_over_threshold) if rule else set()
        self.largest = max(self.rat_nc) if self.rat_nc else 0

    @property
    def per_group(self) -> bool:
        """Whether the rule acts on groups finer than the node."""
        return self.groups > 1

    def ratio(self, count: int) -> float:
        """ratNC for this many processes per node, or per group (the last
        measured beyond)."""
        return float(self.rat_nc[min(count, self.largest)])

    def _raise(self, count: int) -> float:
        return self.weight if self.rat_nc and min(count, self.largest) in self.over else 0.0

    def change(self, selected_on_node: int) -> float:
        """The increase for a node's other cores once it holds
        `selected_on_node` selected processes (per group: when its next
        process, placed evenly over the groups, would share its group)."""
        return self._raise(-(-(selected_on_node + 1) // self.groups))

    def group_change(self, selected_in_group: int) -> float:
        """The increase for a group's other cores once it holds
        `selected_in_group` selected processes (0 when acting per node)."""
        return self._raise(selected_in_group + 1) if self.per_group else 0.0
