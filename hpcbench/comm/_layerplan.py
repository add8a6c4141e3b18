"""Which pairs of ranks Servet's communication layers measure, and in which
rounds (pure functions: placements and hwloc in, pairs out).

Servet measures the latency of every pair of ranks, one pair at a time:
P (P - 1) / 2 measurements, 32 640 at 256 ranks. The `auto` mode measures
instead one pair per *class of relation* and infers the others, as the node
benchmarks do for cores (topology/_pairs.py). A pair's class is what
separates its two ranks:

* on one node, what hwloc says their PUs share (same core, same L2, same
  L3, same package, same NUMA node, other package; or "not bound");
* on two nodes, their distance in node order (|i - j| for the i-th and j-th
  node, nodes numbered by their lowest rank): Servet 3.0's assumption that
  launchers number neighbouring nodes consecutively (docs/network.md), which
  also makes the count of classes grow only with the number of nodes.

The representative of a class is its first pair in rank order. Two kinds of
extra pairs check that the classes hold: for every class within a node,
the same class's first pair on every other node (measured at the same time
as the representative: pairs on different nodes cannot disturb each
other), and a random sample of the remaining pairs. A checked pair holds
when it falls in the same layer as its class's representative;
_layers.py reports those that do not.

Rounds: pairs measured at once. Pairs within one node go together only when
they are on different nodes (two pairs on one node share its caches and
memory); a pair across nodes is always alone (two of them may share links).
Mode `all` measures every pair, in rounds built the same way.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..topology import Topology
from ._records import Placement

PAIR_MODES = ("auto", "all")
#: Random pairs the auto mode measures beyond the classes, by default.
DEFAULT_SAMPLE = 8


#: The relation of two ranks on different nodes (the report's "between nodes" figures read it).
OTHER_NODE = "other node"

class PairNamer:
    """What separates two ranks, from their placements and the node's hwloc
    topology (nodes are assumed alike): other node, same PU, same core, same
    L<n> (the smallest cache they share), same package, same NUMA node,
    other package, or not bound to one PU. Each PU's cores, caches, NUMA
    node and package are looked up once, so naming the 32 640 pairs of 256
    ranks takes milliseconds."""

    def __init__(self, topology: Topology):
        self._inside: dict = {}
        groups = [("core", c.pus) for c in topology.cores]
        groups += [(f"L{c.level}", c.pus) for c in topology.caches if c.kind != "instruction"]
        groups += [("numa", n.pus) for n in topology.numa_nodes] + [("package", p.pus) for p in topology.packages]
        for i, (kind, pus) in enumerate(groups):
            for pu in pus:
                self._inside.setdefault(pu, set()).add((kind, i))

    def __call__(self, a: Placement, b: Placement) -> str:
        if a.node != b.node or a.host != b.host:
            return OTHER_NODE
        if len(a.pus) != 1 or len(b.pus) != 1:
            return "same node (ranks not bound to one PU)"
        pa, pb = a.pus[0], b.pus[0]
        if pa == pb:
            return "same PU"
        shared = {kind for kind, _ in self._inside.get(pa, set()) & self._inside.get(pb, set())}
        if "core" in shared:
            return "same core"
        caches = sorted((k for k in shared if k.startswith("L")), key=lambda k: int(k[1:]))
        if caches:
            return f"same {caches[0]}"            # the smallest cache they share
        if "package" in shared:
            return "same package"
        if "numa" in shared:
            return "same NUMA node"
        return "other package"


def pair_name(a: Placement, b: Placement, topology: Topology) -> str:
    """What separates two ranks (see PairNamer)."""
    return PairNamer(topology)(a, b)


def node_order(placement: Sequence[Placement]) -> dict:
    """rank -> index of its node (0 for the node of rank 0, then in the
    order of each node's lowest rank)."""
    firsts = sorted({(p.node, p.host) for p in placement}, key=lambda k: (k[0], k[1]))
    index = {key: i for i, key in enumerate(firsts)}
    return {p.rank: index[(p.node, p.host)] for p in placement}


def pair_class(a: Placement, b: Placement, nodes: dict, name_within: str) -> str:
    """The class of relation of two ranks: `name_within` (what hwloc says
    their PUs share, _layers.pair_name) on one node, else the distance
    between their nodes in node order."""
    if nodes[a.rank] == nodes[b.rank]:
        return name_within
    return f"other node, distance {abs(nodes[a.rank] - nodes[b.rank])}"


@dataclass
class LayerPlan:
    """The pairs to measure and how the others are inferred."""
    mode: str
    class_of: dict                          #: every pair (a < b) -> its class
    representative: dict                    #: class -> its representative pair
    checks: list = field(default_factory=list)   #: measured pairs that check their class
    rounds: list = field(default_factory=list)   #: lists of pairs measured at once

    @property
    def measured(self) -> list:
        return [p for r in self.rounds for p in r]

    @property
    def all_pairs(self) -> int:
        return len(self.class_of)


def _rounds(pairs: Sequence[tuple], nodes: dict) -> list:
    """Greedy rounds: pairs within a node share a round with pairs of other
    nodes only; a pair across nodes is alone. Order is kept."""
    rounds: list = []
    open_rounds: list = []      # (round, nodes it uses) for rounds of within-node pairs
    for a, b in pairs:
        if nodes[a] != nodes[b]:
            rounds.append([(a, b)])
            continue
        for members, used in open_rounds:
            if nodes[a] not in used:
                members.append((a, b))
                used.add(nodes[a])
                break
        else:
            members = [(a, b)]
            rounds.append(members)
            open_rounds.append((members, {nodes[a]}))
    return rounds


def plan_layers(placement: Sequence[Placement], topology: Topology, mode: str = "auto",
                sample: int = DEFAULT_SAMPLE, seed: int = 1) -> LayerPlan:
    """The pairs Servet's layers measure: every pair (`all`), or one per
    class plus the checks (`auto`); see the module doc."""
    if mode not in PAIR_MODES:
        raise ValueError(f"the pair mode must be auto or all, got {mode!r}")
    if isinstance(sample, bool) or not isinstance(sample, (int, np.integer)) or sample < 0:
        raise ValueError(f"the sample must be a non-negative number of pairs, got {sample!r}")
    by_rank = {p.rank: p for p in placement}
    ranks = sorted(by_rank)
    nodes = node_order(placement)
    name = PairNamer(topology)
    class_of: dict = {}
    first_on_node: dict = {}        # (class, node) -> first pair of that class on that node
    for a, b in itertools.combinations(ranks, 2):
        pa, pb = by_rank[a], by_rank[b]
        within = name(pa, pb) if nodes[a] == nodes[b] else ""
        cls = pair_class(pa, pb, nodes, within)
        class_of[(a, b)] = cls
        if nodes[a] == nodes[b]:
            first_on_node.setdefault((cls, nodes[a]), (a, b))
    representative: dict = {}
    for pair, cls in class_of.items():
        representative.setdefault(cls, pair)
    if mode == "all":
        pairs = list(class_of)
        return LayerPlan(mode, class_of, representative, [], _rounds(pairs, nodes))

    rounds: list = []
    checks: list = []
    chosen = set(representative.values())
    within = [c for c, p in representative.items() if nodes[p[0]] == nodes[p[1]]]
    for cls in within:                      # the representative, and the same class on every other node
        on_nodes = [first_on_node[(cls, n)] for n in sorted(set(nodes.values())) if (cls, n) in first_on_node]
        rounds.append(on_nodes)
        checks.extend(p for p in on_nodes if p != representative[cls])
        chosen.update(on_nodes)
    for cls, pair in representative.items():
        if cls not in within:
            rounds.append([pair])
    rest = [p for p in class_of if p not in chosen]
    rng = np.random.default_rng(seed)
    extra = [rest[i] for i in sorted(rng.choice(len(rest), size=min(sample, len(rest)), replace=False))] \
        if rest else []
    checks.extend(extra)
    rounds.extend(_rounds(extra, nodes))
    return LayerPlan(mode, class_of, representative, checks, rounds)
