"""The records the network-map and bisection benchmarks write (see hpcbench._record).

Matrices are lists of rows, [source][destination]; a cell with no
measurement (the diagonal) is null in the file, NaN in Python."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._record import Mapping, NonNegative, One, Positive, Record, optional, require, required

#: A matrix as the file holds it: rows of numbers or null.
Matrix = list[list[float | None]]


def _square(path: str, n: int, **matrices: Matrix | None) -> None:
    for name, m in matrices.items():
        if m is None:
            continue
        require(len(m) == n and all(len(row) == n for row in m), f"{path}.{name}",
                f"must be {n} x {n} (one row and column per member), got {len(m)} rows")


@dataclass(kw_only=True)
class MapParameters(Mapping):
    """How the map ran: its members (host names, or host:rank), what a
    member is, the message size (bytes), timed messages per flow and round
    trips per pair, whether pairs were also measured alone."""
    members: list[str]
    unit: str
    size: One
    iterations: One
    latency_iterations: One
    alone: bool
    pattern: str


@dataclass(kw_only=True)
class MapRaw(Mapping):
    """Seconds per message, [source][destination][iteration]: the
    receiver's time per flow, half a round trip per latency sample."""
    bandwidth_loaded: Any
    latency_loaded: Any
    bandwidth_alone: Any = optional()
    latency_alone: Any = optional()
    #: matrix name -> the second measurement of the cells the first found out of line (NaN elsewhere); the
    #: matrices above hold, for each such cell, the better of its two measurements
    rechecked: dict[str, Any] | None = optional()


@dataclass(kw_only=True)
class SlowNode(Mapping):
    """A member whose row and column lie out of line with the others'."""
    node: str
    matrix: str                         #: which matrix ("bandwidth under load")
    value: float
    median: float
    spread: NonNegative
    relative: NonNegative               #: how much worse than the median, a share of it
    evidence: str


@dataclass(kw_only=True)
class SlowLink(Mapping):
    """An ordered pair out of line with the other pairs (slow nodes' pairs left out)."""
    source: str
    destination: str
    matrix: str
    value: float
    median: float
    spread: NonNegative
    relative: NonNegative
    evidence: str


@dataclass(kw_only=True)
class MapDerived(Mapping):
    """The matrices (bytes/s; one-way seconds), and what lies out of line."""
    bandwidth_loaded: Matrix
    latency_loaded: Matrix
    slow_nodes: list[SlowNode]
    slow_links: list[SlowLink]
    bandwidth_alone: Matrix | None = optional()
    latency_alone: Matrix | None = optional()
    rule: str = ""


@dataclass(kw_only=True)
class NetworkMapRecord(Record):
    """The `network-map` benchmark's record: bandwidth and latency of every
    ordered pair of members, and the slow nodes and links found."""
    parameters: MapParameters = required()
    raw: MapRaw = required()
    derived: MapDerived = required()

    def _validate(self, path: str) -> None:
        super()._validate(path)
        if self.ok:
            d, members = self.derived, self.parameters.members
            where = f"{path}.derived" if path else "derived"
            _square(where, len(members), bandwidth_loaded=d.bandwidth_loaded, latency_loaded=d.latency_loaded,
                    bandwidth_alone=d.bandwidth_alone, latency_alone=d.latency_alone)
            named = [n.node for n in d.slow_nodes] + [x for s in d.slow_links for x in (s.source, s.destination)]
            strangers = sorted(set(named) - set(members))
            require(not strangers, f"{where}.slow_nodes/slow_links",
                    f"must name members of the map, got {strangers[:3]}")

    @property
    def nodes(self) -> list[str]:
        """The members, in map order."""
        return self.parameters.members

    @property
    def slow_nodes(self) -> list[SlowNode]:
        return self.derived.slow_nodes

    @property
    def slow_links(self) -> list[SlowLink]:
        return self.derived.slow_links


@dataclass(kw_only=True)
class BisectionParameters(Mapping):
    """How the bisections ran: members, what a member is, message size
    (bytes), bisections drawn, timed exchanges per bisection, the seed."""
    members: list[str]
    unit: str
    size: One
    bisections: One
    iterations: One
    seed: int
    pattern: str


@dataclass(kw_only=True)
class BisectionRaw(Mapping):
    """pairs[b]: bisection b's pairs (member indexes); seconds[b][f][i]:
    the receive time of flow f (2k: pair k's first to second member, 2k+1
    back) in timed exchange i."""
    pairs: list[list[list[int]]]
    seconds: Any


@dataclass(kw_only=True)
class BisectionDerived(Mapping):
    """Per-flow bandwidth (bytes/s, one direction of one pair while every
    pair exchanges): median, mean (Netgauge's effective bisection
    bandwidth), quartiles and the slowest flow; every flow's figure; each
    bisection's total (its flows' sum) and their median and minimum."""
    pair_bandwidth: Positive
    mean: Positive
    quartiles: list[float]
    worst: Positive
    pair_samples: list[list[float | None]]
    totals: list[float]
    total_median: Positive
    total_worst: Positive


@dataclass(kw_only=True)
class BisectionRecord(Record):
    """The `bisection` benchmark's record: effective bisection bandwidth
    over random bisections, with its distribution."""
    parameters: BisectionParameters = required()
    raw: BisectionRaw = required()
    derived: BisectionDerived = required()

    def _validate(self, path: str) -> None:
        super()._validate(path)
        if self.ok:
            d, p = self.derived, self.parameters
            where = f"{path}.derived" if path else "derived"
            flows = 2 * (len(p.members) // 2)
            require(len(d.pair_samples) == p.bisections and all(len(row) == flows for row in d.pair_samples),
                    f"{where}.pair_samples", f"must be {p.bisections} bisections x {flows} flows")
            require(len(d.totals) == p.bisections, f"{where}.totals", f"must hold {p.bisections} bisections")
            require(len(d.quartiles) == 2, f"{where}.quartiles", "must hold two values")

    @property
    def pair_bandwidth(self) -> float:
        return self.derived.pair_bandwidth

    @property
    def pair_samples(self) -> list[list[float | None]]:
        return self.derived.pair_samples
