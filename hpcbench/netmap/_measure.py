"""Measuring the network map and the random bisections (C kernels
flow_times and echo; the schedules come from _plan).

Both run on the map's members: the first rank of every node (unit "node",
as mpiGraph is usually run: one process per node), or every rank (unit
"rank": a map of a node's cores, or of every process of a job). The members
form a sub-communicator; the other ranks sleep in hpcbench._subset meanwhile
so they take no CPU from the measuring ones.

Times are seconds per message; a flow's time is the receiver's, from the
iteration's starting barrier to its receive's completion (mpiGraph's
receive bandwidth); a pair's latency is half its median round trip of 8 B."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from .._subset import on_ranks
from .._timer import ticks_per_second
from ..network._measure import node_layout
from ..topology import Topology
from ._analysis import bandwidth, keep_better, median_cells, suspect_cells
from ._plan import partner_in, random_bisections, rounds, shift_partners

if TYPE_CHECKING:
    from mpi4py import MPI

#: Bytes of the latency messages.
LATENCY_BYTES = 8
#: Untimed round trips before each pair's timed ones.
LATENCY_WARMUP = 5


@dataclass
class Members:
    """The ranks that take part (world ranks, in map order) and their labels."""
    ranks: list[int]
    labels: list[str]
    nodes: int                                 #: the job's nodes


def members_of(comm: MPI.Intracomm, unit: str, topology: Topology | None = None) -> Members:
    """The members of a map: the first rank of each node (unit "node") or
    every rank, node by node ("rank", labelled host:rank). Collective."""
    layout = node_layout(comm, topology)
    if unit == "node":
        return Members([node["ranks"][0] for node in layout], [node["host"] for node in layout], len(layout))
    ranks, labels = [], []
    for node in layout:
        for rank in sorted(node["ranks"]):
            ranks.append(rank)
            labels.append(f"{node['host']}:{rank}")
    return Members(ranks, labels, len(layout))


def _flow(sub: Any, dest: int, source: int, size: int, iterations: int) -> np.ndarray:
    """This member's receive seconds per iteration (NaN where it receives nothing)."""
    return _core.flow_times(sub, dest, source, size, 1, iterations)[1] / ticks_per_second()


def _latency(sub: Any, partner: int, iterations: int) -> np.ndarray:
    """One-way seconds (half a round trip) per iteration with partner (NaN if partner < 0)."""
    initiator = 0 <= sub.Get_rank() < partner
    ticks = _core.echo(sub, partner, initiator, LATENCY_BYTES, LATENCY_WARMUP, iterations)
    return ticks / ticks_per_second() / 2


def _cells(sub: Any, mine: dict) -> np.ndarray | None:
    """Every member's {(row, column): samples} gathered into one n x n x k
    array on member 0 (NaN where nothing was measured); None elsewhere."""
    gathered = sub.gather(mine, root=0)
    if gathered is None:
        return None
    n = sub.Get_size()
    k = max((len(v) for part in gathered for v in part.values()), default=1)
    table = np.full((n, n, k), np.nan)
    for part in gathered:
        for (row, column), samples in part.items():
            table[row, column, :len(samples)] = samples
    return table


def _bandwidth_loaded(sub: Any, size: int, iterations: int, progress: Callable[[str], None],
                      steps: list[int] | None = None) -> np.ndarray | None:
    """mpiGraph's pattern: in step d every member sends to the one d further
    on; cell [source, destination] holds the receiver's seconds. `steps`:
    the steps to run (default every one, 1 .. n-1)."""
    n, me = sub.Get_size(), sub.Get_rank()
    mine = {}
    for d in steps if steps is not None else range(1, n):
        dest, source = shift_partners(n, d, me)
        mine[source, me] = _flow(sub, dest, source, size, iterations)
        if me == 0:
            progress(f"network-map: under load, step {d} of {n - 1}")
    return _cells(sub, mine)


def _alone(sub: Any, a: int, b: int, measure: Callable[[Any, bool], np.ndarray]) -> np.ndarray:
    """measure(pair, first) on a communicator of members a and b alone (pair
    rank 0 is a; `first` says whether this rank is a), the other members
    sleeping meanwhile (hpcbench._subset): a bystander spinning in a barrier
    would take the core the pair needs where members share cores (--map-unit
    rank, an emulated cluster). Every member gets b's result."""
    return on_ranks(sub, [a, b], lambda pair: measure(pair, pair.Get_rank() == 0), root=b)


def _bandwidth_alone(sub: Any, size: int, iterations: int, progress: Callable[[str], None],
                     pairs: list[tuple[int, int]] | None = None) -> np.ndarray | None:
    """Every ordered pair (or those of `pairs`) alone; cell [a, b] holds b's receive seconds."""
    n, me = sub.Get_size(), sub.Get_rank()
    mine = {}
    for a, b in pairs if pairs is not None else [(a, b) for a in range(n) for b in range(n) if a != b]:
        seconds = _alone(sub, a, b, lambda pair, first: _flow(pair, 1 if first else -1, -1 if first else 0,
                                                              size, iterations))
        if me == 0:
            mine[a, b] = seconds
            if b == n - 1 - (a == n - 1):
                progress(f"network-map: alone, from member {a + 1} of {n}")
    return _cells_on_zero(sub, mine)


def _latency_alone(sub: Any, iterations: int, pairs: list[tuple[int, int]]) -> np.ndarray | None:
    """Half round trips of each pair (a, b), a < b, alone, in both cells."""
    mine = {}
    for a, b in pairs:
        seconds = _alone(sub, a, b, lambda pair, first: _latency_pair(pair, iterations))
        if sub.Get_rank() == 0:
            mine[a, b] = mine[b, a] = seconds
    return _cells_on_zero(sub, mine)


def _latency_pair(pair: Any, iterations: int) -> np.ndarray:
    """The initiator's (pair rank 0's) half round trips, on both ranks of the pair."""
    seconds = _latency(pair, 1 - pair.Get_rank(), iterations)
    return pair.bcast(seconds if pair.Get_rank() == 0 else None, root=0)


def _cells_on_zero(sub: Any, mine: dict) -> np.ndarray | None:
    """_cells when member 0 holds every cell already (the alone measurements hand their result to all)."""
    return _cells(sub, mine if sub.Get_rank() == 0 else {})


def _latency_map(sub: Any, iterations: int, schedule: list[list[tuple[int, int]]]) -> np.ndarray | None:
    """Half round trips of the pairs of each round of `schedule` (under
    load: all pairs of a round at once), in both cells of a pair (a round
    trip has no direction)."""
    me = sub.Get_rank()
    mine = {}
    for pairs in schedule:
        partner = partner_in(pairs, me)
        sub.Barrier()                       # untimed: the round's pairs start together
        seconds = _latency(sub, partner, iterations)
        if 0 <= me < partner:                    # the initiator's round trips stand for both cells
            mine[me, partner] = mine[partner, me] = seconds
    return _cells(sub, mine)


@dataclass
class MapSamples:
    """Seconds per message, n x n x iterations, [source, destination];
    `rechecked`: the second measurement of the cells the first found out of
    line, by matrix (NaN elsewhere), before the better of the two was kept."""
    bandwidth_loaded: np.ndarray
    latency_loaded: np.ndarray
    bandwidth_alone: np.ndarray | None = None
    latency_alone: np.ndarray | None = None
    rechecked: dict[str, np.ndarray] = field(default_factory=dict)

    def tables(self) -> dict[str, np.ndarray]:
        """The measured tables by matrix name."""
        return {name: table for name in MATRICES if (table := getattr(self, name)) is not None}


#: The matrices of a map, in the order they are measured.
MATRICES = ("bandwidth_loaded", "latency_loaded", "bandwidth_alone", "latency_alone")


def _measure(sub: Any, name: str, size: int, iterations: int, latency_iterations: int,
             progress: Callable[[str], None], cells: set[tuple[int, int]] | None = None) -> np.ndarray | None:
    """One matrix of the map; with `cells`, only what re-measures them (the
    shift steps, pairs or rounds they are in)."""
    n = sub.Get_size()
    if name == "bandwidth_loaded":
        steps = None if cells is None else sorted({(j - i) % n for i, j in cells})
        return _bandwidth_loaded(sub, size, iterations, progress, steps)
    if name == "bandwidth_alone":
        return _bandwidth_alone(sub, size, iterations, progress, None if cells is None else sorted(cells))
    unordered = None if cells is None else {(min(c), max(c)) for c in cells}
    if name == "latency_loaded":
        schedule = [rnd for rnd in rounds(n) if unordered is None or unordered & set(rnd)]
        return _latency_map(sub, latency_iterations, schedule)
    pairs = [pair for rnd in rounds(n) for pair in rnd if unordered is None or pair in unordered]
    return _latency_alone(sub, latency_iterations, pairs)


def measure_map(comm: MPI.Intracomm, members: Members, size: int, iterations: int, latency_iterations: int,
                alone: bool, progress: Callable[[str], None] = lambda message: None) -> MapSamples:
    """Every member's flows and round trips, then a second measurement of
    every cell the first found out of line (suspect_cells): a slow link is
    slow every time, a neighbour's burst is not, so each such cell keeps the
    better of its two measurements. The samples on every rank. Collective over comm."""
    names = MATRICES if alone else MATRICES[:2]

    def on_members(sub: Any) -> MapSamples | None:
        first = {name: _measure(sub, name, size, iterations, latency_iterations, progress) for name in names}
        suspects = sub.bcast(suspect_cells(_matrices_of(size, first)) if sub.Get_rank() == 0 else None, root=0)
        second = {}
        for name in names:
            if suspects.get(name):
                if sub.Get_rank() == 0:
                    progress(f"network-map: measuring again the {len(suspects[name])} cell(s) out of line in {name}")
                second[name] = _measure(sub, name, size, iterations, latency_iterations, progress, suspects[name])
        if sub.Get_rank() != 0:
            return None
        kept = {name: keep_better(first[name], second.get(name), suspects.get(name, set())) for name in names}
        return MapSamples(**kept, rechecked={k: v for k, v in second.items() if v is not None})  # type: ignore[arg-type]
    samples: MapSamples = on_ranks(comm, members.ranks, on_members, root=members.ranks[0])
    return samples


def _matrices_of(size: int, tables: dict[str, np.ndarray | None]) -> dict[str, np.ndarray | None]:
    return {name: None if t is None else (bandwidth(size, t) if name.startswith("bandwidth") else median_cells(t))
            for name, t in tables.items()}


@dataclass
class BisectionSamples:
    """pairs[b] the pairs of bisection b; seconds[b, f] the receive times of
    flow f (pair k's two directions are flows 2k: a -> b and 2k + 1: b -> a)."""
    pairs: list[list[tuple[int, int]]]
    seconds: np.ndarray                     #: bisections x flows x iterations


def measure_bisections(comm: MPI.Intracomm, members: Members, size: int, bisections: int, iterations: int,
                       seed: int, progress: Callable[[str], None] = lambda message: None) -> BisectionSamples:
    """Random bisections of the members, every pair exchanging both ways at
    once (Netgauge's effective bisection bandwidth). Collective over comm."""
    plan = random_bisections(len(members.ranks), bisections, seed)

    def on_members(sub: Any) -> BisectionSamples | None:
        me = sub.Get_rank()
        mine = {}
        for b, pairs in enumerate(plan):
            partner = partner_in(pairs, me)
            seconds = _flow(sub, partner, partner, size, iterations)
            if partner >= 0:
                k = next(i for i, pair in enumerate(pairs) if me in pair)
                mine[b, 2 * k + (me == pairs[k][0])] = seconds     # flow 2k ends at b's second member
            if me == 0 and (b + 1) % 10 == 0:
                progress(f"bisection: {b + 1} of {len(plan)}")
        gathered = sub.gather(mine, root=0)
        if gathered is None:
            return None
        table = np.full((len(plan), 2 * (len(members.ranks) // 2), iterations), np.nan)
        for part in gathered:
            for (b, f), seconds in part.items():
                table[b, f] = seconds
        return BisectionSamples(plan, table)
    samples: BisectionSamples = on_ranks(comm, members.ranks, on_members, root=members.ranks[0])
    return samples
