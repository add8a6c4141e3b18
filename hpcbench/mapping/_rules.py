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
    """The network rule over a measured ratNC ({processes per node: ratio})."""

    def __init__(self, rat_nc: dict[int, float], w: Weights):
        self.rat_nc = dict(rat_nc)
        self.weight = w.network
        rule = mapping_rule(self.rat_nc) if self.rat_nc else None
        self.threshold = rule.threshold if rule else None
        self.over = set(rule.processes_per_node_over_threshold) if rule else set()
        self.largest = max(self.rat_nc) if self.rat_nc else 0

    def ratio(self, per_node: int) -> float:
        """ratNC for this many processes per node (the last measured beyond)."""
        return float(self.rat_nc[min(per_node, self.largest)])

    def change(self, selected_on_node: int) -> float:
        """The increase for a node's other cores once it holds
        `selected_on_node` selected processes."""
        if not self.rat_nc:
            return 0.0
        return self.weight if min(selected_on_node + 1, self.largest) in self.over else 0.0
