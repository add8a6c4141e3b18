"""The records the distance and network-access benchmarks write (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._record import Mapping, Record


def _by_int(table: dict) -> dict:
    """{"1": x, "2": y} (JSON keys) -> {1: x, 2: y}."""
    return {int(k): float(v) for k, v in table.items()}


@dataclass(kw_only=True)
class NetworkRaw(Mapping):
    """Raw seconds per iteration of every measuring rank, by distance or
    by processes per node."""
    samples: dict[str, Any]             #: distance or processes per node -> seconds (ranks x iterations)


@dataclass(kw_only=True)
class DistanceParameters(Mapping):
    """How the distance benchmark ran: nodes used and in the job,
    message size (bytes), time cap, precision and the node order."""
    nodes: int
    nodes_in_job: int
    size: int
    cap_s: float
    rse_target: float
    pattern: str
    node_order: list[str]


@dataclass(kw_only=True)
class DistanceDerived(Mapping):
    """Bandwidth (bytes/s) and ratDist per distance between nodes
    (Servet 3.0, section 4.1)."""
    nodes: int
    size: int                           #: bytes per message
    distances: list[int]
    bandwidth: dict[str, float]         #: distance -> bytes/s
    rat_dist: dict[str, float]          #: distance -> reference / bandwidth

    def ratios(self) -> dict:
        """ratDist as {distance: ratio}."""
        return _by_int(self.rat_dist)


@dataclass(kw_only=True)
class DistanceRecord(Record):
    """The `distance` benchmark's record: network bandwidth against
    distance between nodes (ratDist)."""
    parameters: DistanceParameters
    raw: NetworkRaw
    derived: DistanceDerived


@dataclass(kw_only=True)
class AccessParameters(Mapping):
    """How the network-access benchmark ran: nodes and ranks per node
    of the job, message size (bytes), time cap and precision."""
    nodes_in_job: int
    ranks_per_node: list[int]
    size: int
    cap_s: float
    rse_target: float
    pattern: str


@dataclass(kw_only=True)
class MappingRule(Mapping):
    """Servet 3.0 section 4.2's network rule, as the mapping applies it."""
    threshold: float
    weight_increase: dict[str, float]
    processes_per_node_over_threshold: list[int]
    first_over_threshold: int | None
    rule: str


@dataclass(kw_only=True)
class AccessDerived(Mapping):
    """Bandwidth (bytes/s) and ratNC per number of processes per node
    using the network (Servet 3.0, section 4.2), and the mapping rule."""
    total: int
    size: int
    per_node: list[int]
    nodes_used: dict[str, int]
    bandwidth: dict[str, float]         #: processes per node -> bytes/s
    rat_nc: dict[str, float]            #: processes per node -> reference / bandwidth
    notes: list[str]
    mapping_rule: MappingRule

    def ratios(self) -> dict:
        """ratNC as {processes per node: ratio}."""
        return _by_int(self.rat_nc)


@dataclass(kw_only=True)
class AccessRecord(Record):
    """The `network-access` benchmark's record: network bandwidth
    against processes per node (ratNC)."""
    parameters: AccessParameters
    raw: NetworkRaw
    derived: AccessDerived
