"""Rule 3's input: the latency between two cores, from the comm record's
communication layers (Servet 2010, III-D) or, without one, a stand-in from
hwloc's tree.

Measured. Every pair of ranks the comm benchmark timed has the latency of
its layer (pairs of similar latency form a layer: that smooths noise the
way Servet does). Ranks bound to one PU each give core-to-core latencies
within a node. Between nodes rule 3 sees one latency, the network's: for
each pair of nodes the lowest latency of the ranks between them (they all
cross the same links; interference, such as a rank waiting for its core,
only adds time), then the median over the pairs of nodes. Like the comm
benchmark's layer names ("other node"), it does not tell near nodes from
far ones: distance is ratDist's (Servet 3.0, section 6.1; `advise grid`),
and a mapping that gathered processes on nearby nodes would overrule what
ratNC says about sharing a node's network. Pairs of cores nobody measured take the latency
of their class, the closest level of hwloc's tree the two share (same L2,
same package, same node, ...): Servet's "the communication performance for
the rest of the pairs is the same as for the representative pair of their
group". A class with no measured pair takes the lowest latency measured for
a farther class, so it is never promoted more than what is known allows.

hwloc's stand-in. hwloc knows no latencies; a pair sharing the c-th of the
K closest classes (c = 0 closest, the last being "same node only") gets
(c + 1) / (2K) of the latency between nodes: on-node about half of off-node
(Servet 2010 measured intra-node transfers on Finis Terrae twice as fast as
inter-node ones) and closer in the tree, cheaper.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..comm._layers import DEFAULT_TOLERANCE as LAYER_TOLERANCE
from ._tree import NodeTree, Partition

if TYPE_CHECKING:
    from .._record import Record

#: Two PUs (OS indexes) or two ranks, the lower first.
Pair = tuple[int, int]


@dataclass
class NodeLatency:
    """Latencies from any PU of one node to the others (index order of the
    tree), and where they came from."""
    tree: NodeTree
    levels: list[Partition]         #: the classes, closest first
    class_latency: np.ndarray       #: per class (len(levels) + 1: the last is "same node only")
    #: position -> (positions, latencies) measured
    pairs: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    source: str = "hwloc"           #: "measured" or "hwloc"
    detail: str = ""

    def classes(self, i: int) -> np.ndarray:
        """The class of (i, j) for every j: the closest level they share."""
        cls = np.full(len(self.tree.pus), len(self.levels), dtype=np.int64)
        for k in range(len(self.levels) - 1, -1, -1):
            gid = self.levels[k].group
            cls[gid == gid[i]] = k
        return cls

    def row(self, i: int) -> np.ndarray:
        """Latency from PU position i to every PU of the node."""
        row: np.ndarray = self.class_latency[self.classes(i)]     # fancy indexing: a copy
        if i in self.pairs:
            js, values = self.pairs[i]
            row[js] = values
        return row

    def values(self) -> np.ndarray:
        """Every latency this node's pairs can have."""
        measured = [v for _, v in self.pairs.values()]
        return np.concatenate([self.class_latency, *measured]) if measured else self.class_latency


@dataclass
class CommLatencies:
    """What a comm record says: core-to-core latencies within a node
    ({host: {(pu, pu): seconds}}), the latency between nodes (seconds; None
    if no pair of ranks was on two nodes), and what could not be used."""
    intra: dict[str, dict[Pair, float]]
    between: float | None
    tolerance: float
    unbound_pairs: int = 0


def comm_latencies(record: Record) -> CommLatencies:
    """The latencies of a (finished) comm record, each pair at its layer's latency
    (pairs in no layer at their own)."""
    placement = {p.rank: p for p in record.derived.placement}
    latency: dict[Pair, float] = {}
    for pl in record.raw.layers.latencies:
        latency[_pair(pl.pair)] = float(pl.latency)
    for layer in record.derived.layers:
        for pair in layer.pairs:
            latency[_pair(pair)] = float(layer.latency)
    intra: dict[str, dict[Pair, list[float]]] = {}
    inter: dict[tuple[str, str], list[float]] = {}
    unbound = 0
    for (a, b), value in sorted(latency.items()):
        pa, pb = placement.get(a), placement.get(b)
        if pa is None or pb is None or not value > 0:
            continue
        if pa.host != pb.host or pa.node != pb.node:
            inter.setdefault((min(pa.host, pb.host), max(pa.host, pb.host)), []).append(value)
        elif len(pa.pus) == 1 and len(pb.pus) == 1 and pa.pus[0] != pb.pus[0]:
            intra.setdefault(pa.host, {}).setdefault(_pair((pa.pus[0], pb.pus[0])), []).append(value)
        else:
            unbound += 1
    tolerance = float(getattr(record.parameters, "layer_tolerance", LAYER_TOLERANCE))
    between = float(np.median([min(v) for v in inter.values()])) if inter else None
    return CommLatencies({h: {p: float(np.mean(v)) for p, v in t.items()} for h, t in intra.items()},
                         between, tolerance, unbound)


def _pair(ranks: Sequence[int]) -> Pair:
    """The two ranks (or PUs) of a pair, the lower first."""
    a, b = sorted(int(r) for r in ranks)
    return a, b


def stand_in(tree: NodeTree, between_nodes: float) -> NodeLatency:
    """hwloc's stand-in latencies, relative to the latency between nodes."""
    levels = tree.levels
    count = len(levels) + 1
    classes = between_nodes * 0.5 * (np.arange(count) + 1) / count
    names = ", ".join(p.name for p in levels) or "none"
    return NodeLatency(tree, levels, classes, source="hwloc",
                       detail=f"hwloc's tree as a stand-in (levels {names}, then the node)")


def measured(tree: NodeTree, pairs: dict[Pair, float], between_nodes: float | None, origin: str) -> NodeLatency | None:
    """Latencies from measured core pairs ({(pu, pu): seconds}) of this
    node (or one like it), filled by class for pairs not measured; None if
    no pair is between PUs of this tree."""
    levels = tree.levels
    model = NodeLatency(tree, levels, np.full(len(levels) + 1, np.nan), source="measured", detail=origin)
    by_class: dict[int, list[float]] = {}
    rows: dict[int, dict[int, float]] = {}
    for (a, b), value in pairs.items():
        if a not in tree.index or b not in tree.index:
            continue
        i, j = tree.index[a], tree.index[b]
        by_class.setdefault(int(model.classes(i)[j]), []).append(value)
        rows.setdefault(i, {})[j] = value
        rows.setdefault(j, {})[i] = value
    if not by_class:
        return None
    for k, values in by_class.items():
        model.class_latency[k] = float(np.median(values))
    # A class nobody measured: the lowest latency known for a farther class
    # (between nodes included), else the highest known for a closer one.
    known = model.class_latency.copy()
    farther_than_all = between_nodes if between_nodes is not None else np.nan
    for k in range(len(known)):
        if np.isnan(known[k]):
            farther = [v for v in known[k + 1:] if not np.isnan(v)] + \
                ([farther_than_all] if not np.isnan(farther_than_all) else [])
            closer = [v for v in known[:k] if not np.isnan(v)]
            model.class_latency[k] = min(farther) if farther else (max(closer) if closer else np.nan)
    model.pairs = {i: (np.array(sorted(r)), np.array([r[j] for j in sorted(r)])) for i, r in rows.items()}
    return model
