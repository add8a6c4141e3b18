"""Pure analysis of the degradation benchmarks: ratios, the constants of the
mapping rule of Servet 3.0 section 4.2, and the row- or column-ordered grid
advice of section 6.1."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._records import MappingRule

#: Servet 3.0, 4.2: cores whose ratio exceeds this get their weights raised.
MAPPING_THRESHOLD = 1.5
#: ... ten times more for communication-intensive codes than memory-bound ones.
MAPPING_WEIGHT_INCREASE = {"communication-intensive": 10.0, "memory-bound": 1.0}


def ratios(bandwidths: dict) -> dict:
    """{key: bandwidth} with key 1 the reference -> {key: reference / bandwidth}."""
    if 1 not in bandwidths:
        raise ValueError("the reference (distance 1 or one process per node) was not measured")
    ref = float(bandwidths[1])
    if not ref > 0 or any(not b > 0 for b in bandwidths.values()):
        raise ValueError("bandwidths must be positive")
    return {int(k): ref / float(b) for k, b in sorted(bandwidths.items())}


def mapping_rule(rat_nc: dict) -> MappingRule:
    """The rule the mapping algorithm applies (Servet 3.0, 4.2): with k
    processes per node, every core sharing the network with the selected one
    gets its weight raised when ratNC[k] > 1.5."""
    raised = [k for k, r in sorted(rat_nc.items()) if r > MAPPING_THRESHOLD]
    return MappingRule(threshold=MAPPING_THRESHOLD, weight_increase=dict(MAPPING_WEIGHT_INCREASE),
                       processes_per_node_over_threshold=raised, first_over_threshold=raised[0] if raised else None,
                       rule="raise the weights of cores that access the network at the same time as the selected "
                            "core when ratNC for that many processes per node exceeds 1.5 (cores evenly spread in "
                            "the node)")


@dataclass
class DegradationRatios:
    """ratDist and ratNC with Servet's accessors."""
    rat_dist: dict              #: distance -> ratio (1 at distance 1)
    rat_nc: dict                #: processes per node -> ratio (1 at one per node)

    def get_network_dist_ratio(self, dist: int) -> float:
        return _lookup(self.rat_dist, dist, "distance", "the distance benchmark")

    def get_network_access_ratio(self, nprocs_per_node: int) -> float:
        return _lookup(self.rat_nc, nprocs_per_node, "processes per node", "the network access benchmark")


def _lookup(table: dict, key, what: str, source: str) -> float:
    if not table:
        raise ValueError(f"no {what} ratios: {source} did not run or was skipped")
    if isinstance(key, bool) or not isinstance(key, (int, np.integer)) or int(key) not in table:
        raise ValueError(f"{what} must be one of {min(table)}..{max(table)}, got {key!r}")
    return float(table[int(key)])


@dataclass
class GridAdvice:
    rows: int
    cols: int
    costs: dict                  #: "row-ordered"/"column-ordered" -> predicted cost (s, or relative units)
    best: str
    unit: str
    extrapolated: bool           #: some distance beyond the measured ratDist was clamped



def _cost(rank_of, rows, cols, row_volume, col_volume, rat_dist, ppn, intra_ratio):
    """Predicted cost of one layout; vectorised over each row's (column's) pairs."""
    nodes = -(-rows * cols // ppn)
    top = max(rat_dist)
    table = np.array([intra_ratio] + [rat_dist.get(d, np.nan) for d in range(1, top + 1)])
    if np.any(np.isnan(table)):
        raise ValueError(f"ratDist must hold every distance from 1 to {top}")
    ranks = np.array([[rank_of(i, j) for j in range(cols)] for i in range(rows)])
    total, clamped = 0.0, False
    for volume, groups in ((row_volume, ranks), (col_volume, ranks.T)):
        n = groups.shape[1]
        if volume == 0 or n < 2:
            continue
        share = volume / (groups.shape[0] * n * (n - 1) / 2)
        upper = np.triu(np.ones((n, n), dtype=bool), 1)
        for group in groups:
            node = group // ppn
            d = np.abs(node[:, None] - node[None, :])
            d = np.minimum(d, nodes - d)[upper]
            clamped |= bool(np.any(d > top))
            total += share * float(table[np.minimum(d, top)].sum())
    return total, clamped


def advise_grid(rows: int, cols: int, row_volume: float, col_volume: float, rat_dist: dict,
                procs_per_node: int = 1, reference_bandwidth: float | None = None,
                intra_node_ratio: float = 0.0) -> GridAdvice:
    """Row- or column-ordered P x Q grid (Servet 3.0, 6.1).

    Row-ordered numbers process (i, j) as i*Q + j, so a row's processes are
    consecutive ranks; column-ordered as j*P + i. Ranks fill nodes in order,
    procs_per_node at a time; the distance between two nodes is the ring
    distance the distance benchmark uses. row_volume (bytes) is the traffic
    between processes of the same row, spread evenly over its pairs; likewise
    col_volume. A byte crossing distance d costs ratDist[d] / reference
    bandwidth (seconds, if the bandwidth in bytes/s is given; else relative
    units); a byte inside a node costs intra_node_ratio (default 0: not
    network traffic). Distances beyond the measured ratDist use the largest
    measured one (reported as extrapolated)."""
    for name, v in (("rows", rows), ("cols", cols), ("procs_per_node", procs_per_node)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    for label, volume in (("row volume", row_volume), ("column volume", col_volume)):
        if not (isinstance(volume, (int, float, np.integer, np.floating)) and volume >= 0):
            raise ValueError(f"the {label} must be a non-negative number of bytes, got {volume!r}")
    if not rat_dist or 1 not in rat_dist:
        raise ValueError("ratDist must hold at least the ratio at distance 1")
    if rows * cols > 65536:
        raise ValueError(f"grids of up to 65536 processes are supported, got {rows * cols}")
    scale = 1.0 / reference_bandwidth if reference_bandwidth else 1.0
    costs, clamped_any = {}, False
    for name, rank_of in (("row-ordered", lambda i, j: i * cols + j), ("column-ordered", lambda i, j: j * rows + i)):
        cost, clamped = _cost(rank_of, rows, cols, row_volume, col_volume, rat_dist, procs_per_node,
                              intra_node_ratio)
        costs[name] = cost * scale
        clamped_any |= clamped
    best = min(costs, key=lambda k: (costs[k], k))
    return GridAdvice(rows, cols, costs, best, "s" if reference_bandwidth else "bytes x ratio", clamped_any)
