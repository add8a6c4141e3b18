"""What the rules read, gathered from one or more results files: for every
node, the groups of rule 1 (shared caches) and rule 2 (memory-access
overhead) and rule 3's latencies; for the job, ratNC. Nothing is measured
here.

Each rule takes the node's own finished record; a node without one takes
the record of the first node that has it (nodes are assumed alike, as
Servet does, and as `comm` does when it names layers); with no record at
all, hwloc's tree stands in. Every choice is stated in a Source.
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from .._format import groups_text
from .._record import Record
from .._results import Results, load
from ..comm._layers import DEFAULT_TOLERANCE as LAYER_TOLERANCE
from ..topology import Topology
from ._latency import CommLatencies, NodeLatency, Pair, comm_latencies, measured, stand_in
from ._tree import NodeTree, Partition, partition, tree_from_summary

#: What map_processes reads: a Results, a results file's path, or several.
ResultsLike = Results | str | os.PathLike[str] | Sequence[Results | str | os.PathLike[str]]

#: The most nodes a mapping is made for (the largest machines have about 1.6e5 nodes; a mapping's time
#: grows with nodes x processes). A results file or --hosts naming more is refused in one line, before any
#: node is set up: name the nodes to map onto.
MAX_HOSTS = 100_000

#: A rule's input on one node (a record, or a comm record's latencies).
T = TypeVar("T")

#: The record each rule reads, in rule order.
RECORDS = {"rule 1": "shared-caches", "rule 2": "memory", "rule 3": "comm", "network": "network-access"}


@dataclass(frozen=True)
class Source:
    """Where one rule's input came from on one node."""
    rule: str
    kind: str           #: "measured", "hwloc" or "not applied"
    detail: str


@dataclass
class NodeInputs:
    """The rules' inputs on one node. Nodes built from the same records
    share `key` (the rules cache their updates by it)."""
    host: str
    key: int
    tree: NodeTree
    caches: list[Partition]     #: rule 1 (one per cache level)
    memory: list[Partition]     #: rule 2 (one per overhead level)
    latency: NodeLatency        #: rule 3 within the node
    sources: list[Source]       #: one per rule


@dataclass
class NetworkGroups:
    """Where the network rule acts: the groups of a node's PUs that share
    one network access (a package, a NIC's locality), from the
    network-access record, and ratNC per group."""
    level: str                  #: "package", "NUMA node", "network device", ...
    partition: Partition        #: the groups on the nodes' tree
    rat_nc: dict[int, float]    #: processes per group -> ratNC


@dataclass
class Inputs:
    """Everything the selection needs."""
    nodes: list[NodeInputs]     #: in mapping order
    allowed: list[np.ndarray]   #: per node, a bool mask of the PUs the job may use
    between: float              #: latency between two nodes (same unit as the nodes' latencies)
    latency_max: float          #: the largest latency in the system being mapped
    tolerance: float            #: rule 3 applies below (1 - tolerance) x latency_max
    latency_unit: str           #: "s" or "relative"
    rat_nc: dict[int, float]    #: processes per node -> ratNC; empty when not measured
    network: Source
    notes: list[str] = field(default_factory=list)
    groups: NetworkGroups | None = None     #: None: the network rule acts per node (as before groups were measured)


def as_results(results: ResultsLike) -> list[Results]:
    """One Results or a path, or a sequence of them, as a list of Results
    (a path is read with hpcbench.load: ResultsError if it cannot be)."""
    items: list[object] = [results] if isinstance(results, (Results, str, os.PathLike)) else list(results)
    if not items:
        raise ValueError("give at least one results file")
    out: list[Results] = []
    for item in items:
        if isinstance(item, Results):
            out.append(item)
        elif isinstance(item, (str, os.PathLike)):
            out.append(load(os.fspath(item)))
        else:
            raise ValueError(f"results must be hpcbench.Results or paths of results files, got {type(item).__name__}")
    return out


def _finished(files: list[Results], name: str) -> list[Record]:
    return [r for res in files for r in res.benchmarks if r.name == name and r.ok]


def _found(files: list[Results]) -> dict[str, list[Record]]:
    """The finished records of each benchmark the rules read (RECORDS);
    ValueError when there is none at all."""
    found = {name: _finished(files, name) for name in RECORDS.values()}
    if not any(found.values()):
        raise ValueError("the results hold none of the records the mapping reads (finished "
                         f"{', '.join(RECORDS.values())}): run some of them first")
    return found


def _by_host(records: list[Record]) -> dict[str, Record]:
    """The first finished record of each node."""
    out: dict[str, Record] = {}
    for r in records:
        out.setdefault(r.node or "?", r)
    return out


def _topology(files: list[Results], topology: Topology | dict[str, Any] | None) -> dict[str, Any]:
    if topology is not None:
        if isinstance(topology, Topology):
            return topology.summary()
        if isinstance(topology, dict):
            return topology
        raise ValueError(f"topology must be an hpcbench Topology or its summary, got {type(topology).__name__}")
    for res in files:
        summary = res.context.get("topology")
        if isinstance(summary, dict) and summary:
            return summary
    raise ValueError("the results hold no hwloc topology (context.topology) and none was given")


def _too_many(count: int, where: str) -> ValueError:
    return ValueError(f"{where} {count} hosts; a mapping is made for at most {MAX_HOSTS} nodes: name the nodes "
                      "to map onto (--hosts)")


def _given_hosts(hosts: str | Sequence[str]) -> list[str]:
    """The hosts the caller named, checked: names without spaces, none twice."""
    names = [hosts] if isinstance(hosts, str) else list(hosts)
    if len(names) > MAX_HOSTS:
        raise _too_many(len(names), "the hosts to map onto are")
    bad = [h for h in names if not isinstance(h, str) or not h.strip() or any(c.isspace() for c in h)]
    if bad or not names:
        raise ValueError(f"hosts must be non-empty names without spaces, got {bad[0] if bad else names!r}")
    if len(set(names)) != len(names):         # name the first repeat, not every host (a line of megabytes)
        counted = Counter(names)
        again = next(h for h in names if counted[h] > 1)
        raise ValueError(f"hosts must not repeat, got {again} more than once in {len(names)} hosts")
    return names


def _hosts(files: list[Results], hosts: str | Sequence[str] | None, node_records: list[Record]) -> list[str]:
    if hosts is not None:
        return _given_hosts(hosts)
    found: dict[str, None] = {}       # an ordered set: a list's `in` made this quadratic in the hosts
    for res in files:
        for h in res.context.get("hosts") or []:
            found.setdefault(h, None)
    for r in node_records:
        if r.node:
            found.setdefault(r.node, None)
    if len(found) > MAX_HOSTS:
        raise _too_many(len(found), "the results name")
    if not found:
        raise ValueError("the results name no host (context.hosts); give the hosts to map onto")
    return list(found)


def _allowed(tree: NodeTree, pus: Sequence[int] | None) -> np.ndarray:
    if pus is None:
        mask = np.ones(len(tree.pus), dtype=bool)
        mask.flags.writeable = False     # shared by every node of this tree
        return mask
    wanted = sorted({int(p) for p in pus})
    unknown = [p for p in wanted if p not in tree.index]
    if unknown or not wanted:
        raise ValueError(f"the PUs to use must be PUs of the nodes ({groups_text([list(tree.pus)])}), "
                         f"got {unknown[0] if unknown else 'none'}")
    mask = np.zeros(len(tree.pus), dtype=bool)
    mask[[tree.index[p] for p in wanted]] = True
    mask.flags.writeable = False     # shared by every node of this tree
    return mask


def _first_measured(own: Mapping[str, T], order: list[str]) -> str | None:
    """The node whose record stands in for nodes without one: the first in
    `order` that has one, else the first by name. Found once per rule (per
    node it made the mapping quadratic in the hosts)."""
    return next((h for h in order if h in own), min(own) if own else None)


def _pick(own: Mapping[str, T], host: str, stand_in: str | None) -> tuple[T | None, str | None]:
    """The node's own record, else the stand-in node's (_first_measured)."""
    if host in own:
        return own[host], None
    if stand_in is not None:
        return own[stand_in], stand_in
    return None, None


def _cache_rule(tree: NodeTree, rec: Record | None) -> tuple[list[Partition], str]:
    """Rule 1's partitions (one per cache level) and what to say about them
    (after where the record came from)."""
    if rec is None:
        parts = [tree.caches[k] for k in sorted(tree.caches)]
        return parts, f"no shared-caches record: hwloc's caches ({', '.join(p.name for p in parts) or 'none'})"
    measured_pus = set(rec.parameters.pus)
    rest = [int(p) for p in tree.pus if int(p) not in measured_pus]
    parts, said = [], []
    for lv in rec.derived.levels:
        groups = lv.groups if lv.decidable else lv.hwloc_groups
        hw = tree.caches.get(lv.level)
        extra = [[p for p in g if p in rest] for g in hw.groups] if hw is not None else []
        parts.append(partition(f"L{lv.level}", list(groups) + extra, tree.index))
        if not lv.decidable:
            said.append(f"L{lv.level} undecidable, hwloc's groups")
    for level in sorted(set(tree.caches) - {lv.level for lv in rec.derived.levels}):
        parts.append(tree.caches[level])
        said.append(f"L{level} not measured, hwloc's groups")
    if rest:
        said.append(f"PUs {groups_text([rest])} not measured, hwloc's groups")
    return parts, "; ".join(said)


def _memory_rule(tree: NodeTree, rec: Record | None) -> tuple[list[Partition], str]:
    """Rule 2's partitions (one per overhead level) and what to say."""
    if rec is None:
        parts = [tree.numa] if tree.numa is not None else []
        return parts, "no memory record: the cores of a NUMA node are taken to share its memory controller (hwloc)"
    levels = rec.derived.overhead.levels
    parts = [partition(f"bandwidth x{lv.relative:.2f}", lv.groups, tree.index) for lv in levels]
    said = [] if levels else ["no memory-access overhead measured"]
    missing = [int(p) for p in tree.pus if int(p) not in set(rec.parameters.pus)]
    if missing:
        said.append(f"PUs {groups_text([missing])} not measured: no overhead assumed for them")
    return parts, "; ".join(said)


def _reference(comm: CommLatencies | None) -> float:
    """What hwloc's stand-in is relative to: the latency between nodes,
    else the largest measured within a node (other nodes then count as the
    farthest), else 1 (relative units)."""
    if comm is not None and comm.between is not None:
        return comm.between
    if comm is not None and comm.intra:
        return max(v for pairs in comm.intra.values() for v in pairs.values())
    return 1.0


def _latency_rule(tree: NodeTree, comm: CommLatencies | None, origin: str | None) -> NodeLatency:
    if comm is not None and origin is not None:
        model = measured(tree, comm.intra[origin], comm.between, origin)
        if model is not None:
            return model
    return stand_in(tree, _reference(comm))


def _source(rule: str, record: str, host: str, rec: object | None, borrowed: str | None, said: str) -> Source:
    if rec is None:
        return Source(rule, "hwloc", said)
    where = f"{record} on {borrowed} (nodes assumed alike)" if borrowed else f"{record} on {host}"
    return Source(rule, "measured", f"{where}; {said}" if said else where)


@dataclass(frozen=True)
class _Rules:
    """The rules' inputs made from one combination of records (the nodes
    built from it share them, and its number is their NodeInputs.key)."""
    number: int
    caches: list[Partition]
    caches_said: str
    memory: list[Partition]
    memory_said: str
    latency: NodeLatency


class _NodeBuilder:
    """The NodeInputs of each host: each rule reads the node's own record,
    else the record of the first node (in `hosts`) that has one; the rules'
    inputs are made once per combination of records."""

    def __init__(self, tree: NodeTree, found: dict[str, list[Record]], comm: CommLatencies | None,
                 hosts: list[str]):
        self.tree, self.comm = tree, comm
        self.shared, self.memory = _by_host(found["shared-caches"]), _by_host(found["memory"])
        self.intra: dict[str, dict[Pair, float]] = comm.intra if comm is not None else {}
        self.firsts = (_first_measured(self.shared, hosts), _first_measured(self.memory, hosts),
                       _first_measured(self.intra, hosts))
        self.built: dict[tuple[int, int, str | None], _Rules] = {}

    def node(self, host: str) -> NodeInputs:
        s_rec, s_from = _pick(self.shared, host, self.firsts[0])
        m_rec, m_from = _pick(self.memory, host, self.firsts[1])
        l_rec, l_from = _pick(self.intra, host, self.firsts[2])
        origin = host if l_rec is not None and l_from is None else l_from
        rules = self._rules(s_rec, m_rec, origin)
        sources = [_source("rule 1", "shared-caches", host, s_rec, s_from, rules.caches_said),
                   _source("rule 2", "memory", host, m_rec, m_from, rules.memory_said),
                   self._latency_source(host, rules.latency, l_rec, l_from)]
        return NodeInputs(host, rules.number, self.tree, rules.caches, rules.memory, rules.latency, sources)

    def _rules(self, shared: Record | None, memory: Record | None, origin: str | None) -> _Rules:
        key = (id(shared), id(memory), origin)
        if key not in self.built:
            caches, caches_said = _cache_rule(self.tree, shared)
            mem, memory_said = _memory_rule(self.tree, memory)
            self.built[key] = _Rules(len(self.built), caches, caches_said, mem, memory_said,
                                     _latency_rule(self.tree, self.comm, origin))
        return self.built[key]

    def _latency_source(self, host: str, latency: NodeLatency, rec: object | None, borrowed: str | None) -> Source:
        if latency.source == "measured":
            return _source("rule 3", "comm", host, rec, borrowed, "")
        why = "no comm record" if self.comm is None else \
            "the comm record has no pair of ranks bound to one PU each on a node like this one"
        return Source("rule 3", "hwloc", f"{why}: {latency.detail}")


def _comm_notes(comm: CommLatencies | None) -> list[str]:
    if comm is not None and comm.unbound_pairs:
        return [f"comm: {comm.unbound_pairs} pair(s) of ranks on one node were not both bound to one PU; "
                "their latencies give no core-to-core figure"]
    return []


def _distances(nodes: list[NodeInputs], comm: CommLatencies | None, hosts: list[str]) -> tuple[float, float, list[str]]:
    """The latency between two nodes, the largest latency in the system
    being mapped, and a note when the between-nodes latency is a stand-in."""
    intra_max = max(float(np.nanmax(lat.values())) for lat in {id(n.latency): n.latency for n in nodes}.values())
    notes = []
    if comm is not None and comm.between is not None:
        between = comm.between
    else:
        between = max(intra_max, _reference(comm))
        if comm is not None and len(hosts) > 1:
            notes.append("comm: no pair of ranks on different nodes was measured; other nodes are taken as the "
                         "farthest (rule 3 promotes none of their cores)")
    latency_max = max(intra_max, between) if len(hosts) > 1 else intra_max
    return between, latency_max, notes


def _ratios_text(rat_nc: dict[int, float]) -> str:
    return ", ".join(f"[{k}] {v:.2f}" for k, v in sorted(rat_nc.items()))


def _network(access: list[Record]) -> tuple[dict[int, float], Source]:
    """ratNC of the first network-access record, and where it came from."""
    if not access:
        return {}, Source("network", "not applied", "no network-access record: the network rule is not applied "
                                                    "(hwloc does not see the network)")
    rat_nc: dict[int, float] = access[0].derived.ratios()
    return rat_nc, Source("network", "measured", f"ratNC {_ratios_text(rat_nc)} (network-access, "
                                                 f"{access[0].derived.total} processes)")


def _network_groups(access: list[Record], tree: NodeTree, network: Source) -> tuple[NetworkGroups | None, Source,
                                                                                    list[str]]:
    """The groups sharing a network access that the first network-access
    record names (None: per node, as for files written before it said, or
    when it says the node), the source said with them, and a note when
    its groups do not fit these nodes."""
    sharing = access[0].derived.sharing if access else None
    if sharing is None or len(sharing.groups) < 2:
        return None, network, []
    part = partition(sharing.level, sharing.groups, tree.index)
    if len(part.groups) != len(sharing.groups) or bool((part.group < 0).any()):
        return None, network, [f"network-access: its {len(sharing.groups)} {sharing.level} groups do not cover the "
                               "PUs of the nodes mapped (another kind of node?): the network rule acts per node"]
    rat_nc = sharing.ratios()
    detail = (f"ratNC per {sharing.level} {_ratios_text(rat_nc)} ({len(part.groups)} {sharing.level} groups sharing "
              f"a network access each, from {sharing.source}); per node {network.detail.removeprefix('ratNC ')}")
    return NetworkGroups(sharing.level, part, rat_nc), Source("network", "measured", detail), []


def _masks(nodes: list[NodeInputs], pus: Sequence[int] | None) -> list[np.ndarray]:
    """Each node's mask of allowed PUs: one per tree, shared by the nodes built on it."""
    masks: dict[int, np.ndarray] = {}
    return [masks[id(n.tree)] if id(n.tree) in masks else masks.setdefault(id(n.tree), _allowed(n.tree, pus))
            for n in nodes]


def collect(results: ResultsLike, hosts: Sequence[str] | None = None, pus: Sequence[int] | None = None,
            topology: Topology | dict[str, Any] | None = None) -> Inputs:
    """The rules' inputs for the nodes `hosts` (default: every host the
    results name), each restricted to `pus` if given. ValueError (one line)
    when nothing usable is there."""
    files = as_results(results)
    found = _found(files)
    tree = tree_from_summary(_topology(files, topology))
    hosts = _hosts(files, hosts, found["shared-caches"] + found["memory"])
    comm = comm_latencies(found["comm"][0]) if found["comm"] else None
    builder = _NodeBuilder(tree, found, comm, hosts)
    nodes = [builder.node(host) for host in hosts]
    between, latency_max, between_notes = _distances(nodes, comm, hosts)
    unit = "s" if comm is not None and (comm.intra or comm.between is not None) else "relative"
    rat_nc, network = _network(found["network-access"])
    groups, network, group_notes = _network_groups(found["network-access"], tree, network)
    tolerance = comm.tolerance if comm is not None else float(LAYER_TOLERANCE)
    return Inputs(nodes, _masks(nodes, pus), between, latency_max, tolerance, unit, rat_nc, network,
                  _comm_notes(comm) + between_notes + group_notes, groups)
