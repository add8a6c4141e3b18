"""Servet's communication layers (2010, section III-D, Fig. 7).

The latency of pairs of ranks at one message size (the L1 size by default:
big enough to feel which caches the two cores share) is measured with the
echo kernel: every pair (mode `all`, Servet's way), or one pair per class of
relation with checks (mode `auto`, _layerplan.py), in rounds of pairs that
cannot disturb each other. Pairs of similar latency form a layer; a pair
that was not measured joins the layer of its class's representative. Each
layer has a representative pair whose latency and bandwidth are measured
over all message sizes (with the fitted model), and a scalability
curve: 1, 2, 4 ... disjoint pairs of the layer sending at once against one
pair alone. Every rank's host and binding are recorded, so layers get names
(same core, same L2, same L3, same package, other package, other node).

The planning (_layerplan.py), naming and grouping are pure functions;
`survey_layers` runs them.
"""
from __future__ import annotations

import socket
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .. import _core
from .._adaptive import StopRule, run_adaptive
from .._collective import collectively
from .._grouping import split_at_gaps
from .._nodes import node_membership
from .._subset import on_ranks
from .._timer import ticks_per_second
from ..topology import Topology
from ._kernels import Overheads, overheads, pingpong
from ._layerplan import DEFAULT_SAMPLE, LayerPlan, PairNamer, plan_layers
from ._models import regional_fit
from ._records import LayerCheck, LayerClass, LayerPlanRecord, LayerRecord, LayerScalability, Placement
from ._sweep import BATCHES, SizeSweep

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
    overheads: Overheads | None = None   #: of the representative pair

    def to_record(self) -> LayerRecord:
        if self.sweep is None:
            raise ValueError(f"layer {self.name!r} has no sweep of its representative pair")
        return LayerRecord(latency=self.latency, pairs=[list(p) for p in self.pairs], name=self.name,
                           names=self.names, representative=list(self.representative),
                           regions=[r.to_record() for r in self.regions], scalability=self.scalability,
                           summary=self.sweep.summary(),
                           overheads=self.overheads.to_record() if self.overheads is not None else None)


def overhead_sizes(largest: int) -> np.ndarray:
    """The sizes the overheads are measured at, up to `largest` bytes: 0,
    every power of two and every 3 x 2^k between them, and `largest`. Dense
    because a predictor reads them between the points (predict's OverheadTable)
    and MPI changes protocol (eager to rendezvous) between some of them."""
    grid = {0, int(largest)}
    k = 1
    while k <= largest:
        grid.add(k)
        if 3 * k // 2 <= largest and k >= 2:
            grid.add(3 * k // 2)
        k *= 2
    return np.array(sorted(grid), dtype=np.int64)


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


def _on_pairs(comm: MPI.Intracomm, pairs: Sequence[tuple], fn: Callable) -> list:
    """fn(sub, partner, initiator) on a sub-communicator of the pairs' ranks
    (pair i is sub-ranks 2i, 2i + 1; the others sleep); returns the
    initiators' results in the order of `pairs`, on every rank."""
    ranks = [r for pair in pairs for r in pair]
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"pairs measured at once must not share a rank, got {list(pairs)}")

    def measure(sub: MPI.Intracomm) -> list:
        me = sub.Get_rank()
        mine = fn(sub, me ^ 1, me % 2 == 0)
        return sub.allgather(mine)[::2]

    return on_ranks(comm, ranks, measure, root=ranks[0])


def measure_concurrent(comm: MPI.Intracomm, pairs: list, size: int, iterations: int = 200, warmup: int = 20) -> float:
    """Mean over `pairs` of each initiator's median one-way time (seconds)
    while all pairs run echo of `size` bytes at once (a common barrier
    starts them; the other ranks sleep). Collective."""
    def one(sub: MPI.Intracomm, partner: int, initiator: bool) -> float | None:
        ticks = collectively(sub, _core.echo, sub, partner, initiator, size, warmup, iterations)
        return float(np.median(ticks)) / ticks_per_second() / 2 if initiator else None

    return float(np.mean(_on_pairs(comm, pairs, one)))


def measure_round(comm: MPI.Intracomm, pairs: Sequence[tuple], size: int, cap_s: float = 0.05) -> dict:
    """Echo of `size` bytes on every pair of the round at once (pairs share
    no rank; the other ranks sleep): {pair: one-way seconds, the initiator's
    median}. Repetitions are adaptive, judged on the round's first pair.
    Collective."""
    def one(sub: MPI.Intracomm, partner: int, initiator: bool) -> float | None:
        def call(warmup: int, iterations: int, inner: int) -> np.ndarray:
            return _core.echo(sub, partner, initiator, size, warmup, iterations, inner)
        seconds, _, _ = run_adaptive(sub, call, decider=0, stop=StopRule(cap_s=cap_s, batches=BATCHES), grouped=True)
        return float(np.median(seconds)) / 2 if initiator else None

    return dict(zip(pairs, _on_pairs(comm, pairs, one)))


@dataclass
class LayerSurvey:
    """What the layers step found: every rank's placement, the plan, the
    measured latencies, the layers (every pair in one, measured or
    inferred from its class) and the checks of the classes."""
    placement: list
    plan: LayerPlan
    latencies: dict                 #: measured pair -> one-way seconds at the probe size
    layers: list                    #: Layer, fastest first
    checks: list = field(default_factory=list)   #: LayerCheck records

    def plan_record(self) -> LayerPlanRecord:
        layer_of = {p: i for i, layer in enumerate(self.layers) for p in layer.pairs}
        counts = Counter(self.plan.class_of.values())
        classes = [LayerClass(relation=c, representative=list(p), pairs=counts[c], latency=self.latencies[p],
                              layer=layer_of[p]) for c, p in self.plan.representative.items()]
        return LayerPlanRecord(mode=self.plan.mode, all_pairs=self.plan.all_pairs,
                               measured=len(self.latencies), rounds=len(self.plan.rounds), classes=classes,
                               checks=self.checks)


def _group(plan: LayerPlan, latencies: dict, names: dict, tolerance: float, prefer: Sequence[tuple]) -> list:
    """Layers of the measured pairs, then every unmeasured pair added to the
    layer of its class's representative; the representative of a layer is
    a measured pair, one of `prefer` where the layer has one."""
    layers = group_layers(latencies, names, tolerance)
    layer_of = {p: layer for layer in layers for p in layer.pairs}
    for pair, cls in plan.class_of.items():
        if pair not in latencies:
            layer_of[plan.representative[cls]].pairs.append(pair)
    for layer in layers:
        layer.pairs.sort()
        layer.names = dict(Counter(names[p] for p in layer.pairs))
        layer.name = Counter(layer.names).most_common(1)[0][0]
        layer.representative = next((p for p in prefer if layer_of.get(p) is layer), layer.representative)
    return layers


def _checks(plan: LayerPlan, latencies: dict, layers: list) -> list:
    layer_of = {p: i for i, layer in enumerate(layers) for p in layer.pairs}
    out = []
    for pair in plan.checks:
        cls = plan.class_of[pair]
        rep = plan.representative[cls]
        out.append(LayerCheck(pair=list(pair), relation=cls, latency=latencies[pair],
                              representative_latency=latencies[rep], holds=layer_of[pair] == layer_of[rep]))
    return out


@dataclass(frozen=True)
class LayerSettings:
    """How survey_layers measures: `tolerance`, the relative latency gap
    that separates two layers; `cap_s`, seconds per pair latency and per
    size of a layer's sweep; `mode`, `auto` (one pair per class of relation,
    plus `sample` random pairs that check the classes) or `all` (every
    pair, Servet's way)."""

    tolerance: float = DEFAULT_TOLERANCE
    cap_s: float = 0.05
    mode: str = "auto"
    sample: int = DEFAULT_SAMPLE


def _pair_latencies(comm: MPI.Intracomm, plan: LayerPlan, probe_size: int, cap_s: float) -> dict:
    """One-way seconds at probe_size of every pair the plan's rounds name."""
    latencies: dict = {}
    for pairs in plan.rounds:
        latencies.update(measure_round(comm, pairs, probe_size, cap_s))
    return latencies


def _measure_layer(comm: MPI.Intracomm, layer: Layer, latencies: dict, probe_size: int,
                   sweep: Callable[[int, int], SizeSweep]) -> None:
    """Fills in a layer: the sweep of its representative pair (`sweep(a,
    b)`), its regions and overheads, its mean latency and its scalability
    (1, 2, 4 ... disjoint pairs at once against one pair alone)."""
    a, b = layer.representative
    layer.sweep = sweep(a, b)
    layer.regions = regional_fit(layer.sweep.sizes, np.maximum(layer.sweep.median, 1e-12))
    at = overhead_sizes(int(layer.sweep.sizes[-1]))
    layer.overheads = overheads(comm, at, np.interp(at, layer.sweep.sizes, layer.sweep.median), peer=b, test_rank=a)
    layer.latency = float(np.mean([latencies[p] for p in layer.pairs if p in latencies]))
    alone = None
    chosen = disjoint_pairs(layer.pairs)
    for k in scalability_counts(len(chosen)):
        t = measure_concurrent(comm, chosen[:k], probe_size)
        alone = t if alone is None else alone
        layer.scalability.append(LayerScalability(pairs=k, latency=t, slowdown=t / alone))


def survey_layers(comm: MPI.Intracomm, topology: Topology, probe_size: int, sizes: npt.ArrayLike,
                  settings: LayerSettings | None = None, known: dict | None = None,
                  progress: Callable[[str], None] | None = None) -> LayerSurvey:
    """Servet's layers (module doc): latencies at probe_size of the pairs the
    plan names (_layerplan.py), layers, a sweep over `sizes` per layer (taken
    from `known`, {pair: SizeSweep}, where the layer's representative has
    one) and each layer's scalability; `settings` (LayerSettings) says how.
    Collective; the same survey on every rank."""
    settings = settings or LayerSettings()
    say = progress or (lambda message: None)
    placement = gather_placement(comm)
    plan = plan_layers(placement, topology, settings.mode, settings.sample)
    latencies = _pair_latencies(comm, plan, probe_size, settings.cap_s)
    say(f"comm: latency of {len(latencies)} of {plan.all_pairs} pairs measured ({settings.mode}, "
        f"{len(plan.rounds)} rounds)")
    name = PairNamer(topology)
    by_rank = {p.rank: p for p in placement}
    names = {pair: name(by_rank[pair[0]], by_rank[pair[1]]) for pair in plan.class_of}
    known = dict(known or {})
    layers = _group(plan, latencies, names, settings.tolerance, list(known))

    def sweep(a: int, b: int) -> SizeSweep:
        return known.get((a, b)) or pingpong(comm, sizes, peer=b, test_rank=a, cap_s=settings.cap_s)

    for layer in layers:
        _measure_layer(comm, layer, latencies, probe_size, sweep)
        say(f"comm: layer '{layer.name}' ({len(layer.pairs)} pairs) measured")
    return LayerSurvey(placement, plan, latencies, layers, _checks(plan, latencies, layers))


def measure_layers(comm: MPI.Intracomm, topology: Topology, probe_size: int, sizes: npt.ArrayLike,
                   settings: LayerSettings | None = None,
                   progress: Callable[[str], None] | None = None) -> tuple[list, dict, list[Layer]]:
    """survey_layers, returned as (placement, measured latencies, layers);
    mode `all` (every pair measured, Servet's way) unless `settings` say
    otherwise."""
    survey = survey_layers(comm, topology, probe_size, sizes, settings or LayerSettings(mode="all"),
                           progress=progress)
    return survey.placement, survey.latencies, survey.layers
