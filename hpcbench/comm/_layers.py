"""Servet's communication layers (2010, section III-D, Fig. 7).

The latency of every pair of ranks at one message size (the L1 size by
default: big enough to feel which caches the two cores share) is measured
with the echo kernel, one pair at a time; pairs of similar latency form a
layer. Each layer has a representative pair whose latency and bandwidth are
measured over all message sizes (with the fitted model), and a scalability
curve: 1, 2, 4 ... disjoint pairs of the layer sending at once against one
pair alone. Every rank's host and binding are recorded, so layers get names
(same core, same L2, same L3, same package, other package, other node).

The naming and grouping here are pure functions; `measure_layers` runs them.
"""
from __future__ import annotations

import itertools
import socket
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .. import _core
from .._collective import collectively
from .._grouping import split_at_gaps
from .._nodes import node_membership
from .._timer import ticks_per_second
from ..topology import Topology, relation
from ._kernels import pingpong
from ._models import regional_fit
from ._records import LayerRecord, LayerScalability, Placement
from ._sweep import SizeSweep

if TYPE_CHECKING:
    from mpi4py import MPI

#: Latencies within this relative gap of each other stay in one layer.
DEFAULT_TOLERANCE = 0.20


def gather_placement(comm: MPI.Intracomm) -> list[Placement]:
    """Every rank's Placement: host name, node (the lowest rank sharing
    memory with it, hpcbench._nodes) and bound PUs. Collective."""
    node = node_membership(comm).leader
    mine = Placement(rank=comm.Get_rank(), host=socket.gethostname(), node=node, pus=list(_core.thread_binding()))
    return comm.allgather(mine)


def pair_name(a: Placement, b: Placement, topology: Topology) -> str:
    """What separates two ranks, from their placements and the node's hwloc
    topology (nodes are assumed alike)."""
    if a.node != b.node or a.host != b.host:
        return "other node"
    if len(a.pus) != 1 or len(b.pus) != 1:
        return "same node (ranks not bound to one PU)"
    pa, pb = a.pus[0], b.pus[0]
    if pa == pb:
        return "same PU"
    shared = relation(topology, pa, pb)
    if "core" in shared:
        return "same core"
    caches = [k for k in shared if k.startswith("L")]
    if caches:
        return f"same {caches[0]}"            # the smallest cache they share
    if "package" in shared:
        return "same package"
    if "numa" in shared:
        return "same NUMA node"
    return "other package"


@dataclass
class Layer:
    latency: float                 #: seconds, mean over the layer's pairs at the probe size
    pairs: list
    name: str                      #: the most common pair name in the layer
    names: dict                    #: name -> number of pairs
    representative: tuple
    sweep: SizeSweep | None = None  #: of the representative pair
    regions: list = field(default_factory=list)
    scalability: list = field(default_factory=list)   #: LayerScalability, 1, 2, 4 ... pairs

    def to_record(self) -> LayerRecord:
        if self.sweep is None:
            raise ValueError(f"layer {self.name!r} has no sweep of its representative pair")
        return LayerRecord(latency=self.latency, pairs=[list(p) for p in self.pairs], name=self.name,
                           names=self.names, representative=list(self.representative),
                           regions=[r.to_record() for r in self.regions], scalability=self.scalability,
                           summary=self.sweep.summary())


def group_layers(latencies: dict, names: dict, tolerance: float = DEFAULT_TOLERANCE) -> list[Layer]:
    """Layers of pairs with similar latency, fastest first; the
    representative is the layer's first pair in rank order."""
    layers = []
    for pairs in split_at_gaps(latencies, tolerance):
        counts = Counter(names.get(p, "?") for p in pairs)
        layers.append(Layer(float(np.mean([latencies[p] for p in pairs])), sorted(pairs),
                            counts.most_common(1)[0][0], dict(counts), min(pairs)))
    return layers


def disjoint_pairs(pairs: Iterable[tuple]) -> list:
    """A greedy set of pairs without a common rank: each rank sends one
    message at a time in the scalability test."""
    used: set = set()
    out = []
    for a, b in sorted(pairs):
        if a not in used and b not in used:
            out.append((a, b))
            used.update((a, b))
    return out


def scalability_counts(n: int) -> list:
    """1, 2, 4, ... up to n pairs, n always included."""
    counts, k = [], 1
    while k < n:
        counts.append(k)
        k *= 2
    return counts + [n] if n >= 1 else []


def measure_concurrent(comm: MPI.Intracomm, pairs: list, size: int, iterations: int = 200, warmup: int = 20) -> float:
    """Mean over `pairs` of each initiator's median one-way time while all
    pairs run echo at once (a common barrier starts them)."""
    rank = comm.Get_rank()
    partner, initiator = -1, False
    for a, b in pairs:
        if rank == a:
            partner, initiator = b, True
        elif rank == b:
            partner = a
    ticks = collectively(comm, _core.echo, comm, partner, initiator, size, warmup, iterations)
    mine = float(np.median(ticks)) / ticks_per_second() / 2 if initiator else None
    medians = [m for m in comm.allgather(mine) if m is not None]
    return float(np.mean(medians))


def measure_layers(comm: MPI.Intracomm, topology: Topology, probe_size: int, sizes: npt.ArrayLike,
                   tolerance: float = DEFAULT_TOLERANCE, cap_s: float = 0.05,
                   progress: Callable[[str], None] | None = None) -> tuple[list, dict, list[Layer]]:
    """All-pairs latency at probe_size, layers, a sweep per layer and its
    scalability. Collective; returns (placement, latencies, layers) on every rank."""
    placement = gather_placement(comm)
    size = comm.Get_size()
    pairs = list(itertools.combinations(range(size), 2))
    latencies, names = {}, {}
    for a, b in pairs:
        result = pingpong(comm, [probe_size], peer=b, test_rank=a, cap_s=cap_s)
        latencies[(a, b)] = float(result.median[0])
        names[(a, b)] = pair_name(placement[a], placement[b], topology)
    if progress:
        progress(f"comm: latency of all {len(pairs)} pairs measured")
    layers = group_layers(latencies, names, tolerance)
    for layer in layers:
        a, b = layer.representative
        layer.sweep = pingpong(comm, sizes, peer=b, test_rank=a)
        layer.regions = regional_fit(layer.sweep.sizes, np.maximum(layer.sweep.median, 1e-12))
        alone = None
        for k in scalability_counts(len(disjoint_pairs(layer.pairs))):
            chosen = disjoint_pairs(layer.pairs)[:k]
            t = measure_concurrent(comm, chosen, probe_size)
            alone = t if alone is None else alone
            layer.scalability.append(LayerScalability(pairs=k, latency=t, slowdown=t / alone))
        if progress:
            progress(f"comm: layer '{layer.name}' ({len(layer.pairs)} pairs) measured")
    return placement, latencies, layers
