"""How many processes per node ratNC recommends (Servet 3.0, Figure 8:
"using fewer cores than available can be advantageous").

With k processes per node each one gets 1 / ratNC[k] of the bandwidth one
process has alone, so the node moves k / ratNC[k] times as many bytes: its
network throughput. On a given set of nodes a communication-bound code is
fastest with the k that maximises it; past that k, more processes per node
make the network part slower. The advice is the largest k whose throughput
is within TOLERANCE of the best (more processes also compute more), and
"fewer is faster" when that is below the largest measured k.
"""
from __future__ import annotations

import math

from ._result import PerNodeAdvice

#: Throughputs closer than this (relative) are taken as equal: the spread of
#: two medians of the network-access benchmark (each 2% by default).
TOLERANCE = 0.05


def advise_per_node(rat_nc: dict[int, float], nprocs: int) -> PerNodeAdvice | None:
    """The processes per node to use for a network-bound code, from ratNC
    ({k: ratio}); None when fewer than two k were measured."""
    if len(rat_nc) < 2:
        return None
    throughput = {int(k): int(k) / float(r) for k, r in sorted(rat_nc.items())}
    best = max(throughput.values())
    per_node = max(k for k, t in throughput.items() if t >= (1 - TOLERANCE) * best)
    largest = max(throughput)
    fewer = per_node < largest
    if fewer:
        reason = (f"with {largest} processes per node a node moves {throughput[largest]:.2f}x the bytes of one "
                  f"process alone, with {per_node} {throughput[per_node]:.2f}x: on the same nodes, fewer processes "
                  "per node are faster for a network-bound code")
    else:
        reason = (f"the node's network throughput does not fall with more processes up to {largest} per node "
                  f"({throughput[largest]:.2f}x one process alone): no reason to leave cores idle")
    return PerNodeAdvice(per_node=per_node, measured_up_to=largest, fewer_is_faster=fewer,
                         throughput={str(k): t for k, t in throughput.items()}, tolerance=TOLERANCE,
                         nodes_needed=math.ceil(nprocs / per_node), reason=reason)
