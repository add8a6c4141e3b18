"""CoMet's echo with contention (3.3.6, Figure 3.6) on ranks chosen from
where they run.

CoMet picks its four nodes from the machine's topology so that the cross
traffic passes over the links the echo uses (on the iPSC/860, node 0 sending
to node 7 through nodes 1 and 3, which run the echo). Here the ranks are
chosen from their placement (host, node, binding), in this order of
preference:

1. two nodes with two ranks each: the echo between one rank on each, the
   load between the other two: the load shares both nodes' network links
   (on tools/netcluster.py's ring, the very link between the two nodes);
2. one node with two ranks: the echo from it to a second node, the load
   from it to a third: the load shares the echo's first node and its link;
3. one rank per node: echo and load on four different nodes; they share a
   path only if the network routes them over one, which nothing here knows;
4. one node: all four ranks on it, sharing its memory system (or, with
   two nodes of which one has a single rank, the load inside the other).

Where two more nodes are free, the heaviest load is also run between them
(`control`): a slowdown there is not the shared path's (a busy network, or
ranks sharing cores); a slowdown on the shared path alone is.

`choose_contention_ranks` is pure; `contention_study` measures.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._record import to_plain
from ._kernels import contention, pingpong
from ._layerplan import node_order
from ._models import bandwidth_thresholds
from ._records import ContentionControl, ContentionLoad, ContentionRecord, Placement
from ._sanity import crowding
from ._sweep import CAP_S

if TYPE_CHECKING:
    from mpi4py import MPI

#: Echo message sizes under load (bytes).
CONTENTION_SIZES = [0, 1024, 65536, 1 << 20]
#: Timed echoes per size: at most, and at least (slow links get fewer).
MAX_ITERATIONS, MIN_ITERATIONS = 200, 10

BOTH_NODES = "both nodes: the load runs between the echo pair's two nodes, over the same link"
ONE_NODE = "the echo initiator's node: the load leaves it over the same link"
NO_NODE = "no node (one rank per node): a common path only if the network routes both over it"
INSIDE_NODE = "the echo initiator's node: the load runs inside it, off the link"
SAME_NODE = "the node: all four ranks on one node share its memory system"


@dataclass(frozen=True)
class ContentionRanks:
    """The echo pair (initiator first), the load pair (sender first), what
    of the echo's path the load shares, and a control load pair on two
    other nodes (None where the job has no two more)."""
    echo_pair: tuple
    load_pair: tuple
    shared: str
    control: tuple | None = None


def choose_contention_ranks(placement: Sequence[Placement]) -> ContentionRanks:
    """The four ranks of echo with contention (module doc); ValueError with
    fewer than four ranks."""
    if len(placement) < 4:
        raise ValueError(f"echo with contention needs at least 4 ranks, got {len(placement)}")
    nodes = node_order(placement)
    on: dict = {}
    for rank in sorted(nodes):
        on.setdefault(nodes[rank], []).append(rank)
    order = sorted(on)
    pairs_of = [n for n in order if len(on[n]) >= 2]

    def control(*used: int) -> tuple | None:
        free = [n for n in order if n not in used]
        return (on[free[0]][0], on[free[1]][0]) if len(free) >= 2 else None

    if len(order) == 1:
        r = on[order[0]]
        return ContentionRanks((r[0], r[1]), (r[2], r[3]), SAME_NODE)
    if len(pairs_of) >= 2:
        a, b = pairs_of[0], pairs_of[1]
        return ContentionRanks((on[a][0], on[b][0]), (on[a][1], on[b][1]), BOTH_NODES, control(a, b))
    if pairs_of and len(order) >= 3:
        a = pairs_of[0]
        b, c = [n for n in order if n != a][:2]
        return ContentionRanks((on[a][0], on[b][0]), (on[a][1], on[c][0]), ONE_NODE, control(a, b, c))
    if len(order) >= 4:
        a, b, c, d = order[:4]
        return ContentionRanks((on[a][0], on[b][0]), (on[c][0], on[d][0]), NO_NODE)
    # Two nodes, one of them with a single rank: the load stays inside the other.
    a = pairs_of[0]
    b = next(n for n in order if n != a)
    return ContentionRanks((on[a][0], on[b][0]), (on[a][1], on[a][2]), INSIDE_NODE)


def _iterations(alone: np.ndarray, cap_s: float) -> list[int]:
    """Timed echoes per size: as many as fit in cap_s (round trips of twice
    the one-way time), between MIN_ITERATIONS and MAX_ITERATIONS."""
    return [int(np.clip(cap_s / max(2 * t, 1e-9), MIN_ITERATIONS, MAX_ITERATIONS)) for t in alone]


def contention_study(comm: MPI.Intracomm, placement: Sequence[Placement], sizes: Sequence[int],
                     known_loads: dict | None = None, cap_s: float = CAP_S,
                     progress: Callable[[str], None] | None = None) -> tuple[dict, ContentionRecord]:
    """Echo with contention on the ranks choose_contention_ranks picks:
    the echo alone at CONTENTION_SIZES, then under each load: the message
    sizes (bytes) at which the echo pair reaches 50 % and 90 % of its peak
    bandwidth, from `known_loads` ({echo pair: [n_1/2, n_90]}) or else from
    a sweep of the pair over `sizes`; and the control at the heaviest load.
    Returns (raw samples, record). Collective."""
    ranks = choose_contention_ranks(placement)
    a, b = ranks.echo_pair
    raw: dict = {"echo_pair": list(ranks.echo_pair), "load_pair": list(ranks.load_pair)}
    loads = (known_loads or {}).get(ranks.echo_pair)
    if loads is None:
        sweep = pingpong(comm, sizes, peer=b, test_rank=a, cap_s=cap_s)
        raw["sweep"] = sweep.to_samples()
        found = bandwidth_thresholds(sweep.sizes, np.maximum(sweep.median, 1e-12))
        loads = [found[0.5], found[0.9]]
    loads = sorted({max(int(round(x)), 1) for x in loads})
    alone = pingpong(comm, CONTENTION_SIZES, peer=b, test_rank=a, cap_s=cap_s)
    raw.update(alone=alone.to_samples(), loaded=[])
    iterations = _iterations(alone.median, cap_s)
    runs = []
    for load in loads:
        c = contention(comm, CONTENTION_SIZES, load, ranks.echo_pair, ranks.load_pair, iterations)
        raw["loaded"].append({"load_size": load, **to_plain(c.echo.to_samples())})
        runs.append(ContentionLoad(load_size=load, load_bandwidth=c.load_bandwidth, median=c.echo.median.tolist(),
                                   slowdown=(c.echo.median / alone.median).tolist()))
        if progress:
            progress(f"comm: echo {a}<->{b} under a {load}-byte load {ranks.load_pair[0]}->{ranks.load_pair[1]}")
    record = ContentionRecord(sizes=list(CONTENTION_SIZES), alone_median=alone.median.tolist(), loads=runs,
                              echo_pair=list(ranks.echo_pair), load_pair=list(ranks.load_pair), shared=ranks.shared,
                              crowded=crowding(placement, [*ranks.echo_pair, *ranks.load_pair]))
    if ranks.control:
        c = contention(comm, CONTENTION_SIZES, loads[-1], ranks.echo_pair, ranks.control, iterations)
        raw["control"] = {"load_pair": list(ranks.control), "load_size": loads[-1],
                          **to_plain(c.echo.to_samples())}
        record.control = ContentionControl(load_pair=list(ranks.control), load_size=loads[-1],
                                           load_bandwidth=c.load_bandwidth, median=c.echo.median.tolist(),
                                           slowdown=(c.echo.median / alone.median).tolist())
    return raw, record
