"""Pure analysis of the degradation benchmarks: ratios, the constants of the
mapping rule of Servet 3.0 section 4.2, and the row- or column-ordered grid
advice of section 6.1."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._records import MappingRule, NetworkSharing

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


#: A level of a node where a network access may be shared: (name, groups of PU OS indexes).
Level = tuple[str, list[list[int]]]


def _distinct(levels: list[Level]) -> list[Level]:
    """The levels in order, each grouping once (the first name kept: a NIC per
    package is named for the NIC), only those of several groups and finer
    than the one before."""
    out: list[Level] = []
    seen: list[list[list[int]]] = []
    for name, groups in levels:
        canonical = sorted(sorted(int(p) for p in g) for g in groups if g)
        if canonical in seen or len(canonical) < 2 or (out and len(canonical) <= len(out[-1][1])):
            continue
        seen.append(canonical)
        out.append((name, canonical))
    return out


def _devices_by_locality(devices: list[tuple[str, list[int]]]) -> dict[tuple[int, ...], str]:
    """{locality (sorted PUs): the names of the devices there, joined by +}
    (two NICs on one package are one access group)."""
    out: dict[tuple[int, ...], str] = {}
    for name, pus in devices:
        key = tuple(sorted(int(p) for p in pus))
        if key:
            out[key] = f"{out[key]}+{name}" if key in out else name
    return out


def _finest_calm(rat_nc: dict, node: Level, levels: list[Level], covered: set) -> tuple[Level, str]:
    """The finest level whose groups showed no overhead with one process
    each (ratNC[groups] <= the threshold), coarse to fine, and why the walk
    stopped there."""
    chosen = node
    for name, groups in levels:
        count = len(groups)
        if any(not covered & set(g) for g in groups):
            return chosen, f"the measuring ranks do not cover every {name}: finer groups not decidable"
        if count not in rat_nc:
            return chosen, f"ratNC was not measured at {count} processes per node (one per {name})"
        if rat_nc[count] > MAPPING_THRESHOLD:
            return chosen, (f"one process per {name} already shows overhead (ratNC[{count}] = "
                            f"{rat_nc[count]:.2f} > {MAPPING_THRESHOLD})")
        chosen = (name, groups)
    return chosen, "no finer level to test"


def network_sharing(rat_nc: dict, node_pus: list, levels: list[Level], covered: list | None = None,
                    devices: list[tuple[str, list[int]]] | None = None) -> NetworkSharing:
    """Which cores share a network access (Servet 3.0, 4.2: "easily
    identified using the information provided by ratNC and knowing that the
    benchmark evenly maps processes to cores"): walking the node's levels
    from coarse to fine (hwloc's network devices' localities first, where
    there are several, then packages, NUMA nodes, L3 and L2 caches), the finest
    level whose g groups showed no overhead with one process each
    (ratNC[g] <= 1.5); the node when none did. ratNC per group j is
    ratNC[g x j]: the benchmark spreads its processes evenly over these
    levels. `covered`: the PUs of the measuring ranks (default all)."""
    rat_nc = {int(k): float(v) for k, v in rat_nc.items()}
    if 1 not in rat_nc:
        raise ValueError("ratNC must hold the reference (one process per node)")
    node: Level = ("node", [sorted(int(p) for p in node_pus)])
    by_place = _devices_by_locality(devices or [])
    places = [list(k) for k in sorted(by_place)]
    split = len(places) > 1 and sorted(p for g in places for p in g) == sorted(int(p) for p in node_pus)
    nics: list[Level] = [("network device", places)] if split else []   # disjoint, and every PU near one
    candidates = _distinct(nics + list(levels))
    (level, groups), why = _finest_calm(rat_nc, node, candidates, set(covered if covered is not None else node_pus))
    count = len(groups)
    steps: list[int] = []
    while count * (len(steps) + 1) in rat_nc:
        steps.append(len(steps) + 1)
    from_devices = level == "network device"
    return NetworkSharing(level=level, source="hwloc network devices" if from_devices else "ratNC", groups=groups,
                          devices=[by_place[tuple(g)] for g in groups] if from_devices else [], per_group=steps,
                          rat_nc={str(j): rat_nc[count * j] for j in steps},
                          reason=f"cores share the network access of their {level}: {why}")


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
