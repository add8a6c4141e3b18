"""Servet's weighted core selection (Servet 3.0, section 3): every core of
every node starts at weight 0; the core of lowest weight is selected, then
the rules (_rules.py) change the weights of the others; repeat until
`nprocs` cores are selected.

How it stays fast on large machines. The weight of a core is its own part
(rules 1-3 within its node: only the selected core's node changes) plus an
offset shared by all cores of its node (the network rule; rule 3 sees one
latency between any two nodes, so it changes no other node's weights unless
that latency is clearly below the largest within a node). A selection
therefore touches one node's cores and one number per node; the updates a
PU causes are computed once per kind of node and reused. Each part is kept
per rule, so every choice can say which rule made its weight.

Ties: the lowest weight wins; weights within TIE of each other are equal,
and among equal ones the first node in the order of the nodes wins, then
the first PU in hwloc's order on it. Ranks are then numbered node by node
(nodes in order, each node's processes in the order they were chosen): MPI
launchers that bind by a node-local index (Slurm's map_cpu, hydra's user
binding) can express that, and neighbouring ranks share a node where they
can.
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..topology import Topology
from ._advice import advise_per_node
from ._inputs import Inputs, NodeInputs, ResultsLike, collect
from ._result import Choice, MappedNode, NodeLevels, ProcessMapping, RuleSource, RuleUpdate
from ._rules import NetworkRule, cache_rule, latency_change, memory_rule
from ._tree import NodeTree
from ._weights import Weights, check_kind, weights_for

#: Weights closer than this (relative to the weight, at least absolute) tie.
TIE = 1e-9
TIE_RULE = ("the lowest weight wins; weights within 1e-9 are equal, and among equal ones the first node in the "
            "order of the nodes, then the first PU in hwloc's order on it")
RANK_RULE = "ranks node by node (nodes in order), each node's processes in the order they were chosen"
#: A weight component: (rule, part), e.g. ("rule 1", "L2").
Component = tuple[str, str]
LATENCY: Component = ("rule 3", "latency")
NETWORK: Component = ("network", "ratNC")


def _tie(weight: float) -> float:
    return TIE * max(1.0, abs(weight))


def check_nprocs(nprocs: object) -> int:
    """nprocs as an int; ValueError (one line) unless a whole number >= 1."""
    if isinstance(nprocs, bool) or not isinstance(nprocs, numbers.Integral) or nprocs < 1:
        raise ValueError(f"the number of processes must be a whole number of at least 1, got {nprocs!r}")
    return int(nprocs)


class _Selection:
    """The weights of every core, per rule, while cores are selected. Node
    n's own parts are a (rules, PUs) block; `offset_parts` holds what is
    shared by all cores of a node."""

    def __init__(self, inputs: Inputs, w: Weights):
        self.inputs, self.w = inputs, w
        nodes = inputs.nodes
        self.components: list[Component] = []
        self.index: dict[Component, int] = {}
        self.rows: dict[int, np.ndarray] = {}     #: node key -> global component of each row of its blocks
        groups = inputs.groups
        #: the network rule per group (a row of each node's block: it changes some of the node's cores)
        self.group_row: Component | None = ("network", f"ratNC per {groups.level}") if groups else None
        for n in nodes:
            if n.key not in self.rows:
                keys = [("rule 1", p.name) for p in n.caches] + [("rule 2", p.name) for p in n.memory] + [LATENCY]
                self.rows[n.key] = np.array([self._component(k) for k in keys + [self.group_row] if k])
        self._component(NETWORK)
        count = len(self.components)
        self.local = [np.where(a, 0.0, np.inf) for a in inputs.allowed]
        self.parts = [np.zeros((len(self.rows[n.key]), len(n.tree.pus))) for n in nodes]
        self.counts = [np.zeros((len(self.rows[n.key]), len(n.tree.pus)), dtype=np.int32) for n in nodes]
        self.offset_parts = np.zeros((len(nodes), count))
        self.offset_counts = np.zeros((len(nodes), count), dtype=np.int32)
        self.offset = np.zeros(len(nodes))
        self.selected = np.zeros(len(nodes), dtype=np.int64)
        self.node_min = np.zeros(len(nodes))
        self.node_ties = np.zeros(len(nodes), dtype=np.int64)
        for n in range(len(nodes)):
            self._refresh(n)
        self.network = NetworkRule(groups.rat_nc, w, len(groups.partition.groups)) if groups else \
            NetworkRule(inputs.rat_nc, w)
        #: processes selected in each network group of each node (one column when acting per node)
        self.in_group = np.zeros((len(nodes), len(groups.partition.groups) if groups else 1), dtype=np.int64)
        self._deltas: dict[tuple[int, int], np.ndarray] = {}
        # Rule 3 between nodes: the same change for every other node's cores.
        change = latency_change(np.array([inputs.between]), inputs.latency_max, inputs.tolerance, w)
        self.between = float(change[0]) if len(nodes) > 1 else 0.0

    def _component(self, key: Component) -> int:
        if key not in self.index:
            self.index[key] = len(self.components)
            self.components.append(key)
        return self.index[key]

    def deltas(self, n: int, i: int) -> np.ndarray:
        """Rules 1-3 within node n when its PU i is selected: a (rows, PUs)
        array of changes, one row per rule part (the same for every node
        built from the same records)."""
        node = self.inputs.nodes[n]
        key = (node.key, i)
        if key not in self._deltas:
            values = [delta for _, delta in cache_rule(node, i, self.w) + memory_rule(node, i, self.w)]
            latency = latency_change(node.latency.row(i), self.inputs.latency_max, self.inputs.tolerance, self.w)
            latency[i] = 0.0
            network = [np.zeros_like(latency)] if self.group_row else []    # applied in select: it depends on counts
            self._deltas[key] = np.vstack(values + [latency] + network)
        return self._deltas[key]

    def _refresh(self, n: int) -> None:
        """Node n's lowest own weight and how many PUs have it."""
        own = self.local[n]
        low = float(own.min())
        self.node_min[n] = low
        self.node_ties[n] = int(np.count_nonzero(own <= low + _tie(low))) if np.isfinite(low) else 0

    def choose(self) -> tuple[int, int, float, int]:
        """The core to select now: (node, PU position, weight, tied)."""
        score = self.node_min + self.offset
        lowest = float(score.min())
        if not np.isfinite(lowest):
            raise RuntimeError("no core left to select")
        limit = lowest + _tie(lowest)
        tied_nodes = score <= limit
        n = int(tied_nodes.argmax())
        i = int((self.local[n] <= limit - self.offset[n]).argmax())
        return n, i, lowest, int(self.node_ties[tied_nodes].sum())

    def updates(self, n: int, i: int) -> list[RuleUpdate]:
        """The rule updates behind the weight of PU i of node n, in rule order."""
        delta = self.offset_parts[n].copy()
        count = self.offset_counts[n].copy()
        rows = self.rows[self.inputs.nodes[n].key]
        delta[rows] += self.parts[n][:, i]
        count[rows] += self.counts[n][:, i]
        deltas, counts = delta.tolist(), count.tolist()
        return [RuleUpdate(rule=self.components[c][0], part=self.components[c][1], delta=deltas[c],
                           choices=counts[c]) for c in np.flatnonzero(count).tolist()]

    def _raise_group(self, n: int, i: int) -> None:
        """The network rule on PU i's group of node n (when it acts per group)."""
        groups = self.inputs.groups
        if groups is None or self.group_row is None:
            return
        g = int(groups.partition.group[i])
        self.in_group[n, g] += 1
        raise_by = self.network.group_change(int(self.in_group[n, g]))
        if raise_by:
            mask = groups.partition.group == g
            row = int(np.flatnonzero(self.rows[self.inputs.nodes[n].key] == self.index[self.group_row])[0])
            self.parts[n][row, mask] += raise_by
            self.counts[n][row, mask] += 1
            self.local[n][mask] += raise_by

    def select(self, n: int, i: int) -> None:
        """Select PU i of node n and apply every rule."""
        change = self.deltas(n, i)
        self.parts[n] += change
        self.counts[n] += change != 0
        local = self.local[n]
        local += change.sum(axis=0)
        local[i] = np.inf
        self._raise_group(n, i)
        self._refresh(n)
        self.selected[n] += 1
        raise_by = self.network.change(int(self.selected[n]))
        if raise_by:
            net = self.index[NETWORK]
            self.offset_parts[n, net] += raise_by
            self.offset_counts[n, net] += 1
            self.offset[n] += raise_by
        if self.between:
            lat = self.index[LATENCY]
            others = np.arange(len(self.offset)) != n
            self.offset_parts[others, lat] += self.between
            self.offset_counts[others, lat] += 1
            self.offset[others] += self.between


def _beyond_measured(rule: NetworkRule, state: _Selection, inputs: Inputs) -> list[str]:
    """A note when the mapping put more processes on a node (or in a
    network group) than ratNC was measured for."""
    if not rule.rat_nc:
        return []
    if inputs.groups is None:
        if int(state.selected.max()) <= rule.largest:
            return []
        return [f"ratNC was measured up to {rule.largest} processes per node; beyond, the network rule used "
                f"ratNC[{rule.largest}] = {rule.ratio(rule.largest):.2f}"]
    level = inputs.groups.level
    if int(state.in_group.max()) <= rule.largest:
        return []
    return [f"ratNC was measured up to {rule.largest} processes per {level} ({rule.largest * rule.groups} processes "
            f"per node); beyond, the network rule used ratNC per {level}[{rule.largest}] = "
            f"{rule.ratio(rule.largest):.2f}"]


def _levels(tree: NodeTree) -> list[NodeLevels]:
    parts = ([tree.core] if tree.core else []) + [tree.caches[k] for k in sorted(tree.caches)] + \
        ([tree.package] if tree.package else []) + ([tree.numa] if tree.numa else [])
    return [NodeLevels(name=p.name, groups=[list(map(int, g)) for g in p.groups]) for p in parts]


def _measured(node: NodeInputs, hwloc: list[NodeLevels]) -> list[NodeLevels]:
    """Rule 1-2 groups that group PUs and are not one of hwloc's levels."""
    known = [sorted(map(sorted, lv.groups)) for lv in hwloc]
    out: list[NodeLevels] = []
    for rule, parts in (("rule 1", node.caches), ("rule 2", node.memory)):
        for p in parts:
            groups = [list(map(int, g)) for g in p.groups]
            if any(len(g) > 1 for g in groups) and sorted(map(sorted, groups)) not in known:
                out.append(NodeLevels(name=f"{p.name} ({rule})", groups=groups))
    return out


def _sources(inputs: Inputs) -> list[RuleSource]:
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for node in inputs.nodes:
        for s in node.sources:
            grouped.setdefault((s.rule, s.kind, s.detail), []).append(node.host)
    out = [RuleSource(rule=r, kind=k, detail=d, hosts=h) for (r, k, d), h in grouped.items()]
    out.sort(key=lambda s: s.rule)
    n = inputs.network
    return out + [RuleSource(rule=n.rule, kind=n.kind, detail=n.detail, hosts=[x.host for x in inputs.nodes])]


def _mapped_nodes(inputs: Inputs) -> list[MappedNode]:
    """Each node's PUs, allowed PUs and levels; made once per kind of node
    (not per node) and shared by the nodes alike."""
    levels: dict[int, list[NodeLevels]] = {}
    measured: dict[int, list[NodeLevels]] = {}
    for n in inputs.nodes:
        if id(n.tree) not in levels:
            levels[id(n.tree)] = _levels(n.tree)
        if n.key not in measured:
            measured[n.key] = _measured(n, levels[id(n.tree)])
    # The PU lists of nodes alike, made once and shared.
    lists: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
    for n, a in zip(inputs.nodes, inputs.allowed):
        if (id(n.tree), id(a)) not in lists:
            lists[id(n.tree), id(a)] = (n.tree.pus.tolist(), n.tree.pus[a].tolist())
    return [MappedNode(host=n.host, pus=lists[id(n.tree), id(a)][0], allowed=lists[id(n.tree), id(a)][1],
                       levels=levels[id(n.tree)], measured=measured[n.key])
            for n, a in zip(inputs.nodes, inputs.allowed)]


def map_processes(results: ResultsLike, nprocs: int, kind: str, *, hosts: Sequence[str] | None = None,
                  pus: Sequence[int] | None = None,
                  topology: Topology | dict[str, Any] | None = None) -> ProcessMapping:
    """Map `nprocs` processes of a `kind` code ("memory" or
    "communication") onto the nodes of `results` with Servet's weighted
    core selection (Servet 3.0, sections 3 and 4.2).

    results: an hpcbench.Results, a results file's path, or several of
    them (node benchmarks from a one-node run and network ones from a
    multi-node run, say). hosts: the nodes to map onto (default: every host
    the results name; nodes without records of their own are taken to be
    like the measured ones). pus: OS indexes of the PUs the job may use on
    every node (default all). topology: the nodes' hwloc topology (default:
    the one the results recorded).

    Reads the shared-caches, memory, comm and network-access records
    (never measures); a rule whose record is missing falls back to hwloc's
    tree (or is not applied: the network rule), as `sources` says.
    ValueError (one line) on bad input: nprocs < 1 or above the cores
    available, an unknown kind, results with none of those records."""
    w = weights_for(check_kind(kind))
    nprocs = check_nprocs(nprocs)
    inputs = collect(results, hosts=hosts, pus=pus, topology=topology)
    available = int(sum(int(a.sum()) for a in inputs.allowed))
    if nprocs > available:
        raise ValueError(f"{nprocs} processes do not fit on the {available} cores available "
                         f"({len(inputs.nodes)} node(s)); oversubscribing is not a mapping")
    state = _Selection(inputs, w)
    picks = []
    for order in range(nprocs):
        n, i, weight, tied = state.choose()
        picks.append((order, n, int(inputs.nodes[n].tree.pus[i]), weight, tied, state.updates(n, i)))
        state.select(n, i)
    ranks: dict[int, int] = {}
    for order, *_ in sorted(picks, key=lambda p: (p[1], p[0])):
        ranks[order] = len(ranks)
    choices = [Choice(order=order, rank=ranks[order], host=inputs.nodes[n].host, node=n, pu=pu, weight=weight,
                      tied=tied, updates=updates) for order, n, pu, weight, tied, updates in picks]
    notes = list(inputs.notes) + _beyond_measured(state.network, state, inputs)
    nodes = _mapped_nodes(inputs)
    return ProcessMapping(kind=kind, nprocs=nprocs, weights=w.as_dict(), tie_rule=TIE_RULE, rank_rule=RANK_RULE,
                          latency_unit=inputs.latency_unit, nodes=nodes, choices=choices, sources=_sources(inputs),
                          notes=notes, per_node=advise_per_node(inputs.rat_nc, nprocs) if inputs.rat_nc else None)
