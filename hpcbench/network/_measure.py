"""Servet 3.0's distance and network access benchmarks (section 4).

Both are collective over a communicator whose ranks span several nodes.
Nodes are found with MPI_Comm_split_type(SHARED) (ranks sharing memory)
and ordered by their lowest rank: schedulers give consecutive ranks to
neighbouring nodes, so node order approximates physical distance, as the
paper assumes. The measuring ranks form a sub-communicator; the others wait
in a sleeping barrier so they take no CPU from the node's measuring rank.

Every iteration starts with an untimed barrier so that all messages are in
flight together; a rank's bandwidth in an iteration is message bytes / its
time (receive and send both complete); the iteration's bandwidth is the mean
over the measuring ranks (Servet's "average bandwidth"); the reported value
is the median over iterations. Repetitions are adaptive as in `comm`.
"""
from __future__ import annotations

import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from .._adaptive import StopRule, run_adaptive
from .._collective import check_comm
from .._errors import OptionError
from .._memory import safe_memory_limit
from .._nodes import node_membership
from .._subset import on_ranks
from ..topology import Topology
from ._analysis import Level, network_sharing, ratios
from ._options import DEFAULT_CAP_S, DEFAULT_SIZE
from ._records import NetworkSharing

if TYPE_CHECKING:
    from mpi4py import MPI


def node_layout(comm: MPI.Intracomm, topology: Topology | None = None) -> list:
    """The job's nodes, in order: [{"leader", "host", "ranks", "pus"}], ranks
    of a node ordered so that the first k are spread evenly over its network
    devices, packages, NUMA nodes and caches (one per package first, as
    Servet 3.0 asks) when ranks are bound to single PUs; "pus" is each
    rank's PU in that order (None where a rank is not bound to one)."""
    check_comm(comm)
    leader = node_membership(comm).leader
    pus = list(_core.thread_binding())
    me = (leader, socket.gethostname(), comm.Get_rank(), pus[0] if len(pus) == 1 else None)
    everyone = comm.allgather(me)
    nodes: dict = {}
    for lead, host, rank, pu in everyone:
        nodes.setdefault(lead, {"leader": lead, "host": host, "ranks": [], "pus": []})
        nodes[lead]["ranks"].append(rank)
        nodes[lead]["pus"].append(pu)
    layout = [nodes[k] for k in sorted(nodes)]
    # one rank finds the levels (I/O discovery takes tens of ms) and every rank orders with them: all must
    # agree on the order, or the shift pattern's partners would differ between ranks
    levels = comm.bcast(_order_levels(topology) if topology is not None and comm.Get_rank() == 0 else None, root=0)
    for node in layout:
        node["ranks"], node["pus"] = _spread(node["ranks"], node["pus"], levels)
    return layout


def _order_levels(topology: Topology) -> list[Level]:
    """The levels the measuring ranks are spread over: the network devices'
    localities (where they split the node), then sharing_levels."""
    devices = network_devices(topology)
    places = sorted({tuple(sorted(pus)) for _, pus in devices})
    nics: list[Level] = [("network device", [list(p) for p in places])] if len(places) > 1 else []
    return nics + sharing_levels(topology)


def sharing_levels(topology: Topology) -> list[Level]:
    """The levels of a node where its network access may be shared, coarse
    to fine: packages, NUMA nodes, L3 and L2 caches (hwloc's)."""
    def caches(level: int) -> list[list[int]]:
        return [list(c.pus) for c in topology.caches if c.level == level and c.kind != "instruction"]
    return [("package", [list(o.pus) for o in topology.packages]),
            ("NUMA node", [list(n.pus) for n in topology.numa_nodes]), ("L3", caches(3)), ("L2", caches(2))]


def even_order(pus: Sequence[int], levels: list[Level]) -> list[int]:
    """`pus` ordered so that the first k are spread evenly over every level
    (coarse first): at each level a PU's group is numbered among the groups
    of its parent that hold some of `pus`, and PUs are sorted by those
    numbers from the finest level up (one per package, then one per NUMA
    node of each package, ...). A PU in no group of a level counts as its
    own group."""
    paths = {p: tuple(next((i for i, g in enumerate(groups) if p in g), -1 - p) for _, groups in levels)
             for p in pus}
    local: dict[tuple, dict] = {}
    for p in sorted(pus):
        path = paths[p] + (p,)
        for depth in range(len(path)):
            local.setdefault(path[:depth], {}).setdefault(path[depth], len(local[path[:depth]]))

    def key(p: int) -> tuple:
        path = paths[p] + (p,)
        return tuple(local[path[:d]][path[d]] for d in reversed(range(len(path))))
    return sorted(pus, key=key)


def _spread(ranks: list, pus: list, levels: list[Level] | None) -> tuple[list, list]:
    """The node's ranks and their PUs in even order over `levels` (rank
    order when there are none or the ranks are not bound to one PU each)."""
    if not levels or any(p is None for p in pus) or len(set(pus)) != len(pus):     # levels None: no topology
        order = sorted(range(len(ranks)), key=lambda i: ranks[i])
        return [ranks[i] for i in order], [pus[i] for i in order]
    by_pu = dict(zip(pus, ranks))
    spread = even_order(pus, levels)
    return [by_pu[p] for p in spread], spread


def measure_pattern(comm: MPI.Intracomm, members: list, dest_of: Callable[[int], int], bytes_: int, rse: float,
                    cap_s: float) -> dict:
    """Members (world ranks, in sub-communicator order) run the shift
    pattern sub-rank s -> dest_of(s); everyone else sleeps. Returns, on every
    rank, the per-iteration mean bandwidth (bytes/s) and the raw seconds
    (members x iterations)."""
    def pattern(sub: Any) -> dict | None:
        n, s = sub.Get_size(), sub.Get_rank()
        dest = dest_of(s)
        source = next(q for q in range(n) if dest_of(q) == s)

        def call(w, k):
            return _core.shift_times(sub, dest, source, bytes_, w, k)
        seconds, plan, reached = run_adaptive(sub, call, decider=0, combine="max",
                                              stop=StopRule(rse=rse, cap_s=cap_s, max_iterations=1000))
        gathered = sub.gather(seconds, root=0)      # None except on the first member
        if gathered is None:
            return None
        table = np.vstack(gathered)
        return {"seconds": table, "bandwidth": (bytes_ / table).mean(axis=0), "warmup": plan.warmup, "rse": reached}
    # the others sleep until the members are done (hpcbench._subset)
    return on_ranks(comm, members, pattern, root=members[0])


@dataclass
class DistanceResult:
    nodes: int
    size: int
    distances: list
    bandwidth: dict                     #: distance -> median average bandwidth (bytes/s)
    samples: dict = field(default_factory=dict)   #: distance -> raw seconds (ranks x iterations)
    rat_dist: dict = field(default_factory=dict)


def check_size(bytes_: int) -> int:
    """The message size of the network benchmarks: 1 byte to 1 GiB, and a
    send and a receive buffer of it must fit in the memory available now."""
    if isinstance(bytes_, bool) or not isinstance(bytes_, (int, np.integer)) or not 0 < bytes_ <= 1 << 30:
        raise OptionError("size", f"must be between 1 byte and 1 GiB, got {bytes_!r}")
    if 2 * bytes_ > safe_memory_limit():
        raise OptionError("size", f"must let a send and a receive buffer fit in the memory available now, "
                                  f"got {bytes_} bytes")
    return int(bytes_)


def check_nodes(nodes: int, available: int) -> int:
    """Nodes for the distance benchmark: at least 2, at most the job's."""
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or nodes < 2:
        raise OptionError("nodes", f"must be an integer of at least 2, got {nodes!r}")
    if nodes > available:
        raise OptionError("nodes", f"must not exceed the {available} node(s) of this job, got {nodes}")
    return int(nodes)


def distance_benchmark(comm: MPI.Intracomm, nodes: int | None = None, size: int = DEFAULT_SIZE, rse: float = 0.02,
                       cap_s: float = DEFAULT_CAP_S, topology: Topology | None = None,
                       progress: Callable[[str], None] | None = None) -> DistanceResult:
    """ratDist over the first `nodes` nodes of the job (default all), one
    process per node: for d = 1 .. N/2, every process p sends to (p + d) mod N."""
    check_comm(comm)
    size = check_size(size)
    layout = node_layout(comm, topology)
    available = len(layout)
    if nodes is None:
        nodes = available
    check_nodes(nodes, available)
    members = [node["ranks"][0] for node in layout[:nodes]]
    result = DistanceResult(nodes, size, list(range(1, nodes // 2 + 1)), {})
    for d in result.distances:
        def dest_at_distance(s: int, d: int = d) -> int:
            return (s + d) % nodes
        data = measure_pattern(comm, members, dest_at_distance, size, rse, cap_s)
        result.bandwidth[d] = float(np.median(data["bandwidth"]))
        result.samples[d] = data["seconds"]
        if progress:
            progress(f"distance: d = {d} of {nodes // 2}: {result.bandwidth[d] / 1e6:.1f} MB/s")
    result.rat_dist = ratios(result.bandwidth)
    return result


@dataclass
class AccessResult:
    total: int                          #: processes per experiment (2 x NC, or fewer, see notes)
    size: int
    per_node: list                      #: k values measured
    nodes_used: dict                    #: k -> nodes
    bandwidth: dict                     #: k -> median average bandwidth (bytes/s)
    samples: dict = field(default_factory=dict)
    rat_nc: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    sharing: NetworkSharing | None = None    #: which cores share a network access (None without a topology)


def network_access_benchmark(comm: MPI.Intracomm, size: int = DEFAULT_SIZE, rse: float = 0.02,
                             cap_s: float = DEFAULT_CAP_S, topology: Topology | None = None,
                             progress: Callable[[str], None] | None = None) -> AccessResult:
    """ratNC: 2 x NC processes in total (NC = ranks per node of the job),
    k = 1 .. NC per node on 2NC / k nodes, each sending to the same-index
    process of the next node (distance 1); then which cores share a network
    access (network_sharing) and ratNC per such group."""
    check_comm(comm)
    size = check_size(size)
    return access_on_layout(comm, node_layout(comm, topology), size, rse, cap_s, topology, progress)


def network_devices(topology: Topology) -> list[tuple[str, list[int]]]:
    """hwloc's network devices of `topology` (this machine, or an XML file
    saved with I/O) and the PUs each is attached to: the OpenFabrics ones
    (the HPC interconnect) where there are some, else the network
    interfaces. Empty for a synthetic topology, or where hwloc cannot
    discover I/O (then the groups come from ratNC alone)."""
    if topology.source == "this machine":
        kind, source = _core.TOPO_THIS_MACHINE, None
    elif topology.source.startswith("xml:"):
        kind, source = _core.TOPO_XML_FILE, topology.source[len("xml:"):]
    else:
        return []
    try:
        found = _core.network_devices(kind, source)
    except (ValueError, RuntimeError):
        return []
    fabric = [d for d in found if d["kind"] == "openfabrics"]
    return [(d["name"], list(d["pus"])) for d in (fabric or found) if d["pus"]]


def _sharing(layout: list, nc: int, rat_nc: dict, topology: Topology | None) -> NetworkSharing | None:
    """The groups sharing a network access on the first node (nodes are
    alike), from the PUs its first nc ranks (the measuring ones) are bound to."""
    if topology is None:
        return None
    measuring = layout[0].get("pus", [None])[:nc]
    covered = [] if any(p is None for p in measuring) else measuring
    return network_sharing(rat_nc, topology.pu_indexes, sharing_levels(topology), covered, network_devices(topology))


def access_on_layout(comm: MPI.Intracomm, layout: list, size: int, rse: float, cap_s: float,
                     topology: Topology | None = None,
                     progress: Callable[[str], None] | None = None) -> AccessResult:
    """network_access_benchmark on the nodes of `layout` (node_layout's:
    each node's ranks in even order, with their PUs), collective over comm."""
    if len(layout) < 2:
        raise ValueError(f"the network access benchmark needs at least 2 nodes, the job has {len(layout)}")
    nc = min(len(node["ranks"]) for node in layout)
    total = 2 * nc
    notes = []
    if total > len(layout):
        notes.append(f"2 x NC = {total} processes need {total} nodes for the reference; the job has {len(layout)}, "
                     f"so {len(layout)} processes are used in every experiment")
        total = len(layout)
    result = AccessResult(total, size, [], {}, {}, notes=notes)
    for k in range(1, nc + 1):
        used = total // k
        if used < 2:
            notes.append(f"{k} processes per node would leave fewer than 2 nodes: stopped at {k - 1}")
            break
        members = [layout[n]["ranks"][j] for n in range(used) for j in range(k)]
        def same_index_next_node(s: int, k: int = k, used: int = used) -> int:
            return ((s // k + 1) % used) * k + s % k
        data = measure_pattern(comm, members, same_index_next_node, size, rse, cap_s)
        result.per_node.append(k)
        result.nodes_used[k] = used
        result.bandwidth[k] = float(np.median(data["bandwidth"]))
        result.samples[k] = data["seconds"]
        if progress:
            progress(f"network-access: {k} per node on {used} nodes: {result.bandwidth[k] / 1e6:.1f} MB/s")
    if nc == 1:
        notes.append("one rank per node: there is nothing to compare the reference with")
    result.rat_nc = ratios(result.bandwidth)
    result.sharing = _sharing(layout, nc, result.rat_nc, topology)
    return result
