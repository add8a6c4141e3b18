"""The record the comm benchmark writes (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from .._outliers import Outliers
from .._record import NON_EMPTY, Count, Mapping, One, Pair, Record, optional, require, required

#: raw samples (ns): nested lists of numbers
Samples = Any


@dataclass(kw_only=True)
class CommParameters(Mapping):
    """How the comm benchmark ran: ranks, largest message (bytes), the
    precision and time cap of each size, the probe size of the layers."""
    ranks: One
    max_size: One
    rse_target: float
    cap_s: float
    probe_size: Count
    layer_tolerance: float
    collectives: str
    echo: str
    test_pair: Pair
    layer_pairs: str | None = optional()        #: auto or all
    layer_sample: Count | None = optional()     #: random pairs that check the classes (auto)


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
    """The one-way latency (seconds) of one pair of ranks at the probe
    size of Servet's layers."""
    pair: Pair
    latency: float                      #: seconds


@dataclass(kw_only=True)
class LayerSamples(Mapping):
    """The all-pairs latencies at the probe size (bytes) and the raw
    sweep of each layer's representative pair."""
    probe_size: Count
    latencies: list[PairLatency]
    sweeps: list[SweepSamples]


@dataclass(kw_only=True)
class CommRaw(Mapping):
    """Every sample of the comm benchmark, kernel by kernel (ns, rounded
    to 0.1 ns)."""
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
    scaling: Samples = optional()


@dataclass(kw_only=True)
class SweepSummary(Mapping):
    """Statistics per message size (seconds; bandwidth in bytes/s), one
    entry per size in every list."""
    sizes: Annotated[list[int], NON_EMPTY]
    median: list[float]
    minimum: list[float]
    p10: list[float]
    p90: list[float]
    p99: list[float]
    bandwidth: list[float]
    rank_average: list[float] | None = optional()

    def _validate(self, path: str) -> None:
        for name in ("median", "minimum", "p10", "p90", "p99", "bandwidth", "rank_average"):
            values = getattr(self, name)
            require(values is None or len(values) == len(self.sizes), f"{path}.{name}",
                    f"must have one value per size ({len(self.sizes)}), got {len(values or [])}")
        require(all(s >= 0 for s in self.sizes), f"{path}.sizes", "must be message sizes (not negative)")

    def at(self, size: int, key: str = "median") -> float | None:
        """The statistic `key` at message size `size`, or None if not measured."""
        return getattr(self, key)[self.sizes.index(size)] if size in self.sizes else None


@dataclass(kw_only=True)
class RegionRecord(Mapping):
    """t(N) = latency + N * seconds_per_byte over [first, last] bytes."""
    first: Count
    last: Count
    latency: float
    seconds_per_byte: float
    bandwidth: float | None             #: bytes/s; None where the time does not grow with the size
    rms_relative_residual: float


@dataclass(kw_only=True)
class SweepFit(Mapping):
    """A kernel's statistics, its regional fit (Hammond's regions), one
    Hockney line over all sizes, and n_1/2 and n_90 (bytes) where measured."""
    summary: SweepSummary
    regions: list[RegionRecord]
    hockney: RegionRecord
    peak_bandwidth: float | None = optional()
    n_half: float | None = optional()
    n_90: float | None = optional()
    refined_sizes: list[int] | None = optional()
    outliers: Outliers | None = optional()      #: samples far beyond their size's median (kept)


@dataclass(kw_only=True)
class BarrierStats(Mapping):
    """MPI_Barrier time of the slowest rank per iteration: the
    minimum, median and 90th percentile (seconds)."""
    minimum: float
    median: float
    p90: float
    outliers: Outliers | None = optional()


@dataclass(kw_only=True)
class DaxpyFit(Mapping):
    """DAXPY time (seconds) per vector length (doubles), its rate
    (flop/s), and Hockney's r_inf and n_1/2 from the in-cache lengths."""
    lengths: list[int]                  #: doubles
    median: list[float]                 #: seconds
    flops: list[float]                  #: flop/s
    fit_lengths: list[int]
    r_inf: float
    n_half: float
    fit: RegionRecord
    outliers: Outliers | None = optional()      #: DAXPYs far slower than their length's median (kept)


@dataclass(kw_only=True)
class OverlapFlag(Mapping):
    """An overlap cell whose result cannot be right: the DAXPY length
    (doubles), the message size (bytes), what is wrong, the number that
    shows it (the overlap in %, or blocking as a % of the exchange alone),
    the likely cause, and whether it stayed after the cell was measured
    again."""
    vector_length: Count
    size: Count
    problem: str
    value: float
    cause: str
    repeated: bool = False


@dataclass(kw_only=True)
class OverlapRecord(Mapping):
    """CoMet's overlap grid, vector lengths x message sizes: median time
    per mode, seconds saved, and the share of what could be hidden (%);
    the cells flagged after one repeat, and which cells were repeated."""
    vector_lengths: list[int]
    sizes: list[int]
    median: dict[str, list[list[float]]]
    saved: list[list[float]]
    overlap_percent: list[list[float | None]]
    outliers: Outliers | None = optional()      #: samples far beyond their cell's median (kept)
    rse: dict[str, list[list[float | None]]] | None = optional()   #: relative standard error of each median
    flags: list[OverlapFlag] | None = optional()
    repeated: list[Pair] | None = optional()    #: [vector length, size] of every cell measured twice

    def _validate(self, path: str) -> None:
        rows, cols = len(self.vector_lengths), len(self.sizes)
        grids: dict[str, list] = {"saved": self.saved, "overlap_percent": self.overlap_percent,
                                  **{f"median.{mode}": grid for mode, grid in self.median.items()}}
        for name, grid in grids.items():
            require(len(grid) == rows and all(len(row) == cols for row in grid), f"{path}.{name}",
                    f"must be {rows} rows (vector lengths) of {cols} values (message sizes)")


@dataclass(kw_only=True)
class ContentionLoad(Mapping):
    """Echo under one load: the load's message size (bytes) and
    bandwidth (bytes/s), the echo medians (seconds) and slowdowns."""
    load_size: Count
    load_bandwidth: float
    median: list[float]
    slowdown: list[float]


@dataclass(kw_only=True)
class ContentionRecord(Mapping):
    """CoMet's echo with contention: message sizes (bytes), the echo
    alone, and one entry per load; which ranks echo and which carry the
    load, what of the echo's path the load shares, and the control with a
    load elsewhere at the heaviest load."""
    sizes: list[int]
    alone_median: list[float]
    loads: list[ContentionLoad]
    echo_pair: Pair | None = optional()
    load_pair: Pair | None = optional()
    shared: str | None = optional()
    control: ContentionControl | None = optional()
    crowded: str | None = optional()            #: where the four ranks share PUs (time-slicing)


@dataclass(kw_only=True)
class ContentionControl(Mapping):
    """The same echo with a load pair that shares neither node with it
    (where the job has one): the slowdown that is not the shared path's."""
    load_pair: Pair
    load_size: Count
    load_bandwidth: float
    median: list[float]
    slowdown: list[float]


@dataclass(kw_only=True)
class HopPoint(Mapping):
    """The median one-way time (seconds) of one message size (bytes)
    at one hop count."""
    size: Count
    hops: One
    median: float


@dataclass(kw_only=True)
class HopModelRecord(Mapping):
    """CoMet's hop model t(N, n) = t0 + N * seconds_per_byte + (n - 1) *
    per_hop (seconds)."""
    t0: float
    seconds_per_byte: float
    per_hop: float
    rms_relative_residual: float


@dataclass(kw_only=True)
class HopsRecord(Mapping):
    """Echo at every hop count of the hypercube numbering, and the hop
    model when at least two hop counts were measured."""
    points: list[HopPoint]
    model: HopModelRecord | None = optional()


@dataclass(kw_only=True)
class LayerScalability(Mapping):
    """One layer with k disjoint pairs sending at once: mean one-way
    latency (seconds) and slowdown against one pair alone."""
    pairs: One
    latency: float
    slowdown: float


@dataclass(kw_only=True)
class OverheadRecord(Mapping):
    """LogP's overheads and gap of a layer's representative pair per
    message size (seconds, medians): the sender's MPI_Send, the receiver's
    MPI_Recv once the message has arrived, and the time per message of a
    stream of blocking sends."""
    sizes: list[Count]
    send: list[float]
    recv: list[float]
    gap: list[float]


@dataclass(kw_only=True)
class LayerRecord(Mapping):
    """One of Servet's communication layers: pairs of similar latency,
    named by what separates them, with a sweep, regions and scalability."""
    latency: float                      #: seconds at the probe size
    pairs: list[Pair]
    name: str
    names: dict[str, int]
    representative: Pair
    regions: list[RegionRecord]
    scalability: list[LayerScalability]
    summary: SweepSummary
    overheads: OverheadRecord | None = optional()   #: runs before the overheads were measured lack them


@dataclass(kw_only=True)
class LayerClass(Mapping):
    """One class of relation between two ranks (what hwloc says they share
    on one node, or the distance between their nodes in node order): its
    representative pair, how many pairs it has, the representative's
    latency (seconds) and the index of its layer."""
    relation: str
    representative: Pair
    pairs: One
    latency: float
    layer: Count


@dataclass(kw_only=True)
class LayerCheck(Mapping):
    """A measured pair that checks its class: its latency and its class
    representative's (seconds), and whether both fall in one layer."""
    pair: Pair
    relation: str
    latency: float
    representative_latency: float
    holds: bool


@dataclass(kw_only=True)
class LayerPlanRecord(Mapping):
    """Which pairs Servet's layers measured: mode `all` (every pair) or
    `auto` (one per class of relation, plus checks); how many of all pairs,
    in how many rounds of concurrent pairs; the classes and the checks."""
    mode: str
    all_pairs: One
    measured: One
    rounds: One
    classes: list[LayerClass]
    checks: list[LayerCheck]

    @property
    def failed_checks(self) -> list[LayerCheck]:
        return [c for c in self.checks if not c.holds]


@dataclass(kw_only=True)
class Placement(Mapping):
    """Where a rank ran: host, node (its lowest rank sharing memory)
    and the PUs it is bound to."""
    rank: Count
    host: str
    node: Count
    pus: list[int]


@dataclass(kw_only=True)
class MeshRecord(Mapping):
    """CoMet's mesh of the ranks (Gray-coded where both dimensions are
    powers of two) and each rank's four neighbours."""
    rows: One
    cols: One
    layout: str
    neighbours: list[dict[str, int]]


@dataclass(kw_only=True)
class GrowthFit(Mapping):
    """How a collective's time (seconds) grows with the number of processes:
    `log P`, `linear`, `log P or linear` (both fit within 1 %), `flat` (less
    than 10 % growth) or `undetermined` (fewer than three process counts);
    both lines t = a + b log2 P and t = a + b P with their relative RMS
    residuals, and whether the better one wins clearly."""
    model: str
    counts: list[int]
    times: list[float]
    growth: float | None = optional()           #: t(most) / t(fewest) - 1
    log_intercept: float | None = optional()
    log_slope: float | None = optional()        #: seconds per doubling of P
    log_rms: float | None = optional()
    linear_intercept: float | None = optional()
    linear_slope: float | None = optional()     #: seconds per process
    linear_rms: float | None = optional()
    clear: bool = False


@dataclass(kw_only=True)
class ScalingCurve(Mapping):
    """One kernel at one size (bytes; 0 for the barrier) against the
    number of processes, and its growth."""
    kernel: str
    size: Count
    statistic: str
    fit: GrowthFit


@dataclass(kw_only=True)
class ScalingRecord(Mapping):
    """CoMet's collectives against the number of processes (the first P
    ranks): the counts, the sizes (bytes), one curve per kernel and size."""
    processes: list[int]
    sizes: list[int]
    curves: list[ScalingCurve]


@dataclass(kw_only=True)
class CommDerived(Mapping):
    """Everything the comm benchmark derived: one SweepFit per kernel,
    barrier, DAXPY, overlap, contention and hops (4+ ranks), layers."""
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
    layer_plan: LayerPlanRecord | None = optional()
    scaling: ScalingRecord | None = optional()


@dataclass(kw_only=True)
class CommRecord(Record):
    """The `comm` benchmark's record: CoMet's kernels, Servet's
    communication layers and fitted network models."""
    parameters: CommParameters = required()
    raw: CommRaw = required()
    derived: CommDerived = required()
