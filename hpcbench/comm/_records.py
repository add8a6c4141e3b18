"""The record the comm benchmark writes (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._record import Mapping, Record, optional

#: raw samples (ns): nested lists of numbers
Samples = Any


@dataclass(kw_only=True)
class CommParameters(Mapping):
    ranks: int
    max_size: int
    rse_target: float
    cap_s: float
    probe_size: int
    layer_tolerance: float
    collectives: str
    echo: str
    test_pair: list[int]


@dataclass(kw_only=True)
class SweepSamples(Mapping):
    """A kernel over message sizes, as measured (times in ns)."""
    sizes: list[int]
    statistic: str
    samples: Samples
    warmup: list[int]
    rse: list[float | None]
    inner: list[int]
    per_rank: Samples = optional()


@dataclass(kw_only=True)
class PairLatency(Mapping):
    pair: list[int]
    latency: float                      #: seconds


@dataclass(kw_only=True)
class LayerSamples(Mapping):
    probe_size: int
    latencies: list[PairLatency]
    sweeps: list[SweepSamples]


@dataclass(kw_only=True)
class CommRaw(Mapping):
    echo: SweepSamples
    exchange: SweepSamples
    broadcast: SweepSamples
    global_sum: SweepSamples
    barrier: Samples
    daxpy: Samples
    overlap: Samples
    contention: Samples = optional()
    hops: Samples = optional()
    layers: LayerSamples


@dataclass(kw_only=True)
class SweepSummary(Mapping):
    """Statistics per message size (seconds; bandwidth in bytes/s)."""
    sizes: list[int]
    median: list[float]
    minimum: list[float]
    p10: list[float]
    p90: list[float]
    p99: list[float]
    bandwidth: list[float]
    rank_average: list[float] | None = optional()

    def at(self, size: int, key: str = "median") -> float | None:
        """The statistic `key` at message size `size`, or None if not measured."""
        return getattr(self, key)[self.sizes.index(size)] if size in self.sizes else None


@dataclass(kw_only=True)
class RegionRecord(Mapping):
    """t(N) = latency + N * seconds_per_byte over [first, last] bytes."""
    first: int
    last: int
    latency: float
    seconds_per_byte: float
    bandwidth: float | None             #: bytes/s; None where the time does not grow with the size
    rms_relative_residual: float


@dataclass(kw_only=True)
class SweepFit(Mapping):
    summary: SweepSummary
    regions: list[RegionRecord]
    hockney: RegionRecord
    peak_bandwidth: float | None = optional()
    n_half: float | None = optional()
    n_90: float | None = optional()
    refined_sizes: list[int] | None = optional()


@dataclass(kw_only=True)
class BarrierStats(Mapping):
    minimum: float
    median: float
    p90: float


@dataclass(kw_only=True)
class DaxpyFit(Mapping):
    lengths: list[int]                  #: doubles
    median: list[float]                 #: seconds
    flops: list[float]                  #: flop/s
    fit_lengths: list[int]
    r_inf: float
    n_half: float
    fit: RegionRecord


@dataclass(kw_only=True)
class OverlapRecord(Mapping):
    vector_lengths: list[int]
    sizes: list[int]
    median: dict[str, list[list[float]]]
    saved: list[list[float]]
    overlap_percent: list[list[float | None]]


@dataclass(kw_only=True)
class ContentionLoad(Mapping):
    load_size: int
    load_bandwidth: float
    median: list[float]
    slowdown: list[float]


@dataclass(kw_only=True)
class ContentionRecord(Mapping):
    sizes: list[int]
    alone_median: list[float]
    loads: list[ContentionLoad]


@dataclass(kw_only=True)
class HopPoint(Mapping):
    size: int
    hops: int
    median: float


@dataclass(kw_only=True)
class HopModelRecord(Mapping):
    t0: float
    seconds_per_byte: float
    per_hop: float
    rms_relative_residual: float


@dataclass(kw_only=True)
class HopsRecord(Mapping):
    points: list[HopPoint]
    model: HopModelRecord | None = optional()


@dataclass(kw_only=True)
class LayerScalability(Mapping):
    pairs: int
    latency: float
    slowdown: float


@dataclass(kw_only=True)
class LayerRecord(Mapping):
    latency: float                      #: seconds at the probe size
    pairs: list[list[int]]
    name: str
    names: dict[str, int]
    representative: list[int]
    regions: list[RegionRecord]
    scalability: list[LayerScalability]
    summary: SweepSummary


@dataclass(kw_only=True)
class Placement(Mapping):
    rank: int
    host: str
    node: int
    pus: list[int]


@dataclass(kw_only=True)
class MeshRecord(Mapping):
    rows: int
    cols: int
    layout: str
    neighbours: list[dict[str, int]]


@dataclass(kw_only=True)
class CommDerived(Mapping):
    echo: SweepFit
    exchange: SweepFit
    broadcast: SweepFit
    global_sum: SweepFit
    barrier: BarrierStats
    daxpy: DaxpyFit
    overlap: OverlapRecord
    contention: ContentionRecord | None = optional()
    hops: HopsRecord | None = optional()
    layers: list[LayerRecord]
    placement: list[Placement]
    mesh: MeshRecord


@dataclass(kw_only=True)
class CommRecord(Record):
    parameters: CommParameters
    raw: CommRaw
    derived: CommDerived
