"""The records the distance and network-access benchmarks write (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from .._outliers import Outliers
from .._record import AT_LEAST_ONE, Check, Mapping, One, Positive, Record, optional, require, required


def _by_int(table: dict) -> dict:
    """{"1": x, "2": y} (JSON keys) -> {1: x, 2: y}."""
    return {int(k): float(v) for k, v in table.items()}


#: Distances and processes per node: 1, 2, ... (the first is the reference).
Steps = Annotated[list[int], Check(lambda v: v == list(range(1, len(v) + 1)), "must be 1, 2, ... n (n >= 1)")]


def _tables_cover(path: str, steps: list, **tables: dict) -> None:
    """Each table (JSON keys "1", "2", ...) has exactly one entry per step."""
    keys = [str(k) for k in steps]
    for name, table in tables.items():
        require(sorted(table, key=_order) == keys, f"{path}.{name}",
                f"must have one entry per step {keys}, got {sorted(table, key=_order)}")


def _order(key: str) -> tuple:
    return (0, int(key)) if key.isdigit() else (1, key)


@dataclass(kw_only=True)
class NetworkRaw(Mapping):
    """Raw seconds per iteration of every measuring rank, by distance or
    by processes per node."""
    samples: dict[str, Any]             #: distance or processes per node -> seconds (ranks x iterations)


@dataclass(kw_only=True)
class DistanceParameters(Mapping):
    """How the distance benchmark ran: nodes used and in the job,
    message size (bytes), time cap, precision and the node order."""
    nodes: One
    nodes_in_job: One
    size: One
    cap_s: float
    rse_target: float
    pattern: str
    node_order: list[str]


@dataclass(kw_only=True)
class DistanceDerived(Mapping):
    """Bandwidth (bytes/s) and ratDist per distance between nodes
    (Servet 3.0, section 4.1)."""
    nodes: Annotated[int, Check(lambda v: 2 <= v <= 1 << 20, "must be 2 .. 2**20")]
    size: Annotated[int, AT_LEAST_ONE]  #: bytes per message
    distances: Steps
    bandwidth: dict[str, Positive]      #: distance -> bytes/s
    rat_dist: dict[str, Positive]       #: distance -> reference / bandwidth
    outliers: Outliers | None = optional()   #: iterations far slower than their step's median (kept)

    def _validate(self, path: str) -> None:
        require(len(self.distances) <= self.nodes // 2, f"{path}.distances",
                f"must not go beyond half the ring of {self.nodes} nodes, got {len(self.distances)}")
        _tables_cover(path, self.distances, bandwidth=self.bandwidth, rat_dist=self.rat_dist)

    def ratios(self) -> dict:
        """ratDist as {distance: ratio}."""
        return _by_int(self.rat_dist)


@dataclass(kw_only=True)
class DistanceRecord(Record):
    """The `distance` benchmark's record: network bandwidth against
    distance between nodes (ratDist)."""
    parameters: DistanceParameters = required()
    raw: NetworkRaw = required()
    derived: DistanceDerived = required()


@dataclass(kw_only=True)
class AccessParameters(Mapping):
    """How the network-access benchmark ran: nodes and ranks per node
    of the job, message size (bytes), time cap and precision."""
    nodes_in_job: One
    ranks_per_node: list[int]
    size: One
    cap_s: float
    rse_target: float
    pattern: str


@dataclass(kw_only=True)
class MappingRule(Mapping):
    """Servet 3.0 section 4.2's network rule, as the mapping applies it."""
    threshold: Positive
    weight_increase: dict[str, Positive]
    processes_per_node_over_threshold: list[Annotated[int, AT_LEAST_ONE]]
    first_over_threshold: Annotated[int, AT_LEAST_ONE] | None
    rule: str


@dataclass(kw_only=True)
class NetworkSharing(Mapping):
    """Which cores of a node share one network access (Servet 3.0, 4.2:
    "the groups of cores that present overhead when concurrently accessing
    the network"), and ratNC per group: with the benchmark's processes
    spread evenly over the groups, j per group is len(groups) x j per node,
    so rat_nc[j] is the node's ratNC at that many."""
    level: str                          #: "node", "package", "NUMA node", "L3", "network device"
    source: str                         #: "ratNC" (the finest level that showed no overhead) or "hwloc network devices"
    groups: list[list[int]]             #: the PUs (OS indexes) of each group on the measured node
    devices: list[str]                  #: the network devices of each group (empty unless from hwloc)
    per_group: Steps                    #: processes per group measured: 1, 2, ...
    rat_nc: dict[str, Positive]         #: processes per group -> ratNC at len(groups) x that many per node
    reason: str

    def _validate(self, path: str) -> None:
        require(len(self.groups) >= 1 and all(self.groups), f"{path}.groups", "must be non-empty groups of PUs")
        pus = [p for g in self.groups for p in g]
        require(len(set(pus)) == len(pus), f"{path}.groups", "must not hold a PU twice")
        require(len(self.per_group) <= 1 << 16, f"{path}.per_group",
                f"must be at most 65536 long, got {len(self.per_group)}")
        _tables_cover(path, self.per_group, rat_nc=self.rat_nc)

    def ratios(self) -> dict:
        """ratNC per group as {processes per group: ratio}."""
        return _by_int(self.rat_nc)


@dataclass(kw_only=True)
class AccessDerived(Mapping):
    """Bandwidth (bytes/s) and ratNC per number of processes per node
    using the network (Servet 3.0, section 4.2), and the mapping rule."""
    total: Annotated[int, AT_LEAST_ONE]
    size: Annotated[int, AT_LEAST_ONE]
    per_node: Steps
    nodes_used: dict[str, Annotated[int, AT_LEAST_ONE]]
    bandwidth: dict[str, Positive]      #: processes per node -> bytes/s
    rat_nc: dict[str, Positive]         #: processes per node -> reference / bandwidth
    notes: list[str]
    mapping_rule: MappingRule
    outliers: Outliers | None = optional()
    #: which cores share a network access; absent in files written before it (the node, as then)
    sharing: NetworkSharing | None = optional()

    def _validate(self, path: str) -> None:
        require(len(self.per_node) <= 1 << 16, f"{path}.per_node",
                f"must be at most 65536 long, got {len(self.per_node)}")
        _tables_cover(path, self.per_node, nodes_used=self.nodes_used, bandwidth=self.bandwidth, rat_nc=self.rat_nc)

    def ratios(self) -> dict:
        """ratNC as {processes per node: ratio}."""
        return _by_int(self.rat_nc)


@dataclass(kw_only=True)
class AccessRecord(Record):
    """The `network-access` benchmark's record: network bandwidth
    against processes per node (ratNC)."""
    parameters: AccessParameters = required()
    raw: NetworkRaw = required()
    derived: AccessDerived = required()
