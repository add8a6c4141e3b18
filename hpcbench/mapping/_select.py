"""Servet's weighted core selection (Servet 3.0, section 3): every core of
every node starts at weight 0; the core of lowest weight is selected, then
the rules (_rules.py) change the weights of the others; repeat until
`nprocs` cores are selected.

How it stays fast on large machines. The weight of a core is its own part
(rules 1-3 within its node: only the selected core's node changes) plus an
offset shared by all cores of its node (the network rule, and rule 3
between nodes, whose latency is a property of the node pair). A selection
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

import numpy as np

from ..topology import Topology
from ._advice import advise_per_node
from ._inputs import Inputs, collect
from ._result import Choice, MappedNode, NodeLevels, ProcessMapping, RuleSource, RuleUpdate
from ._rules import NetworkRule, cache_rule, latency_change, memory_rule
from ._weights import Weights, check_kind, weights_for

#: Weights closer than this (relative to the weight, at least absolute) tie.
TIE = 1e-9
TIE_RULE = ("the lowest weight wins; weights within 1e-9 are equal, and among equal ones the first node in the "
            "order of the nodes, then the first PU in hwloc's order on it")
RANK_RULE = "ranks node by node (nodes in order), each node's processes in the order they were chosen"
LATENCY = ("rule 3", "latency")
NETWORK = ("network", "ratNC")


def check_nprocs(nprocs: object) -> int:
    """nprocs as an int; ValueError (one line) unless a whole number >= 1."""
    if isinstance(nprocs, bool) or not isinstance(nprocs, numbers.Integral) or nprocs < 1:
        raise ValueError(f"the number of processes must be a whole number of at least 1, got {nprocs!r}")
    return int(nprocs)


class _Selection:
    """The weights of every core, per rule, while cores are selected."""

    def __init__(self, inputs: Inputs, w: Weights):
        self.inputs, self.w = inputs, w
        nodes = inputs.nodes
        sizes = [len(n.tree.pus) for n in nodes]
        self.starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.node_of = np.repeat(np.arange(len(nodes)), sizes)
        self.components: list = []
        self.index: dict = {}
        for n in nodes:
            for rule, parts in (("rule 1", n.caches), ("rule 2", n.memory)):
                for p in parts:
                    self._component((rule, p.name))
        self._component(LATENCY)
        self._component(NETWORK)
        total, count = int(self.starts[-1]), len(self.components)
        self.local = np.where(np.concatenate(inputs.allowed), 0.0, np.inf)
        self.parts = np.zeros((count, total))
        self.counts = np.zeros((count, total), dtype=np.int32)
        self.offset_parts = np.zeros((len(nodes), count))
        self.offset_counts = np.zeros((len(nodes), count), dtype=np.int32)
        self.offset = np.zeros(len(nodes))
        self.selected = np.zeros(len(nodes), dtype=np.int64)
        self.network = NetworkRule(inputs.rat_nc, w)
        self._deltas: dict = {}
        self._between: dict = {}

    def _component(self, key: tuple) -> int:
        if key not in self.index:
            self.index[key] = len(self.components)
            self.components.append(key)
        return self.index[key]

    def deltas(self, n: int, i: int) -> tuple:
        """Rules 1-3 within node n when its PU i is selected: the component
        rows and a (rows, PUs) array of changes (the same for every node
        built from the same records)."""
        node = self.inputs.nodes[n]
        key = (node.key, i)
        if key not in self._deltas:
            rows, values = [], []
            for rule, changes in (("rule 1", cache_rule(node, i, self.w)), ("rule 2", memory_rule(node, i, self.w))):
                for name, delta in changes:
                    rows.append(self.index[(rule, name)])
                    values.append(delta)
            latency = latency_change(node.latency.row(i), self.inputs.latency_max, self.inputs.tolerance, self.w)
            latency[i] = 0.0
            rows.append(self.index[LATENCY])
            values.append(latency)
            self._deltas[key] = (np.array(rows), np.vstack(values))
        return self._deltas[key]

    def between(self, n: int) -> np.ndarray:
        """Rule 3 between nodes: the change of every other node's cores
        when a core of node n is selected."""
        if n not in self._between:
            change = latency_change(self.inputs.between[n], self.inputs.latency_max, self.inputs.tolerance, self.w)
            change[n] = 0.0
            self._between[n] = change
        return self._between[n]

    def choose(self) -> tuple:
        """The core to select now: (flat index, weight, tied)."""
        score = self.local + self.offset[self.node_of]
        lowest = float(score.min())
        if not np.isfinite(lowest):
            raise RuntimeError("no core left to select")
        tied = score <= lowest + TIE * max(1.0, abs(lowest))
        return int(tied.argmax()), lowest, int(np.count_nonzero(tied))

    def updates(self, t: int, n: int) -> list:
        """The rule updates behind flat core t's weight, in rule order."""
        delta = self.parts[:, t] + self.offset_parts[n]
        count = self.counts[:, t] + self.offset_counts[n]
        return [RuleUpdate(rule=rule, part=part, delta=float(delta[c]), choices=int(count[c]))
                for c, (rule, part) in enumerate(self.components) if count[c] > 0]

    def select(self, t: int) -> None:
        """Select flat core t and apply every rule."""
        n = int(self.node_of[t])
        i = t - int(self.starts[n])
        self.local[t] = np.inf
        rows, change = self.deltas(n, i)
        span = slice(int(self.starts[n]), int(self.starts[n + 1]))
        self.parts[rows, span] += change
        self.counts[rows, span] += (change != 0)
        self.local[span] += change.sum(axis=0)
        self.selected[n] += 1
        raise_by = self.network.change(int(self.selected[n]))
        if raise_by:
            net = self.index[NETWORK]
            self.offset_parts[n, net] += raise_by
            self.offset_counts[n, net] += 1
            self.offset[n] += raise_by
        if len(self.offset) > 1:
            between = self.between(n)
            if between.any():
                lat = self.index[LATENCY]
                self.offset_parts[:, lat] += between
                self.offset_counts[:, lat] += (between != 0)
                self.offset += between


def _levels(tree) -> list:
    parts = ([tree.core] if tree.core else []) + [tree.caches[k] for k in sorted(tree.caches)] + \
        ([tree.package] if tree.package else []) + ([tree.numa] if tree.numa else [])
    return [NodeLevels(name=p.name, groups=[list(map(int, g)) for g in p.groups]) for p in parts]


def _sources(inputs: Inputs) -> list:
    grouped: dict = {}
    for node in inputs.nodes:
        for s in node.sources:
            grouped.setdefault((s.rule, s.kind, s.detail), []).append(node.host)
    out = [RuleSource(rule=r, kind=k, detail=d, hosts=h) for (r, k, d), h in grouped.items()]
    out.sort(key=lambda s: s.rule)
    n = inputs.network
    return out + [RuleSource(rule=n.rule, kind=n.kind, detail=n.detail, hosts=[x.host for x in inputs.nodes])]


def map_processes(results, nprocs: int, kind: str, *, hosts: Sequence[str] | None = None,
                  pus: Sequence[int] | None = None, topology: Topology | dict | None = None) -> ProcessMapping:
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
        t, weight, tied = state.choose()
        n = int(state.node_of[t])
        picks.append((order, n, int(inputs.nodes[n].tree.pus[t - int(state.starts[n])]), weight, tied,
                      state.updates(t, n)))
        state.select(t)
    ranks = {}
    for order, n, *_ in sorted(picks, key=lambda p: (p[1], p[0])):
        ranks[order] = len(ranks)
    choices = [Choice(order=order, rank=ranks[order], host=inputs.nodes[n].host, node=n, pu=pu, weight=weight,
                      tied=tied, updates=updates) for order, n, pu, weight, tied, updates in picks]
    notes = list(inputs.notes)
    rule = state.network
    if rule.rat_nc and int(state.selected.max()) > rule.largest:
        notes.append(f"ratNC was measured up to {rule.largest} processes per node; beyond, the network rule used "
                     f"ratNC[{rule.largest}] = {rule.ratio(rule.largest):.2f}")
    nodes = [MappedNode(host=n.host, pus=[int(p) for p in n.tree.pus],
                        allowed=[int(p) for p, ok in zip(n.tree.pus, a) if ok], levels=_levels(n.tree))
             for n, a in zip(inputs.nodes, inputs.allowed)]
    return ProcessMapping(kind=kind, nprocs=nprocs, weights=w.as_dict(), tie_rule=TIE_RULE, rank_rule=RANK_RULE,
                          latency_unit=inputs.latency_unit, nodes=nodes, choices=choices, sources=_sources(inputs),
                          notes=notes, per_node=advise_per_node(inputs.rat_nc, nprocs) if inputs.rat_nc else None)
