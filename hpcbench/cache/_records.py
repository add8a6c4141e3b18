"""The records the cache and shared-caches benchmarks write (see
hpcbench._record: these types define both the file layout and its checks)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._outliers import Outliers
from .._record import Count, Mapping, One, Pair, Positive, Record, optional, require, required
from ..topology._pairs import PlanRecord

#: raw samples: nested lists of numbers with None where a pass did not run
Samples = Any


@dataclass(kw_only=True)
class OrderProbe(Mapping):
    """What the auto order measured to choose: the largest array both ways."""
    sequential_cycles: float
    random_cycles: float
    size: Count


@dataclass(kw_only=True)
class CacheParameters(Mapping):
    """How the sweep ran: sizes (bytes), stride, visiting order (the one
    used, and the one asked for), passes and samples, the PU, the page kind."""
    min_size: One
    max_size: One
    stride: One
    order: str
    order_requested: str
    order_probe: OrderProbe | None = optional()   #: earlier versions' auto order: what it measured
    passes: One
    samples: One
    min_accesses: One
    warmup_traversals: Count
    pu: Count
    pages: str
    page_size: One
    refine: bool
    seed: int
    window: One
    grid: str | None = optional()        #: "fine" (4 sizes per octave) or "servet"
    kernel: str | None = optional()      #: "chase" (p = *p over one buffer); earlier versions: j += a[j]
    isa: str | None = optional()         #: instruction set of the bandwidth loads
    long_slots: int | None = optional()  #: sizes of at least this many slots were timed once per pass
    extend: bool | None = optional()     #: extension asked for (earlier versions: none)
    extend_limit: One | None = optional()  #: bytes the extension could reach (None: no room past max_size)
    extended_to: One | None = optional()   #: largest size the extension swept (None: not extended)


@dataclass(kw_only=True)
class PlacementRecord(Mapping):
    """Where one sweep buffer sat: the verdict ("contiguous", "random" or
    "unknown"), the evidence in words, and the figures behind it."""
    kind: str
    why: str
    pages: One
    page_size: One
    frames_known: Count
    consecutive_share: float | None
    huge_share: float | None
    virtual_machine: str | None

    def _validate(self, path: str) -> None:
        require(self.kind in ("contiguous", "random", "unknown"), f"{path}.kind",
                f"must be contiguous, random or unknown, got {self.kind!r}")


@dataclass(kw_only=True)
class CacheRaw(Mapping):
    """Every timing of the sweep: per size, per pass, per sample, in TSC ticks
    and in ns per access (null where a pass did not measure that size)."""
    sizes: list[int]                    #: bytes
    refined: list[bool]
    accesses_per_sample: list[int]
    cycles_per_access: Samples          #: (sizes, passes, samples) TSC ticks per access
    ns_per_access: Samples
    placements: list[PlacementRecord] | None = optional()   #: one per chase buffer (pass)
    bandwidth_sizes: list[int] | None = optional()          #: bytes
    bandwidth: Samples = optional()                         #: (sizes, passes, samples) bytes/s read


@dataclass(kw_only=True)
class MeasuredLevel(Mapping):
    """One level found in the sweep, with hwloc's size beside it."""
    level: One
    size: One                           #: bytes (for a flagged level: its effective capacity)
    method: str                         #: "edge", "probabilistic" or "capacity" (earlier versions: "peak")
    range: list[int]                    #: (first, last) sweep size analysed, bytes
    ways: One | None
    divergence: float | None
    onset: One | None                   #: largest size still on the plateau before the rise
    hwloc_size: One | None
    relative_difference: float | None   #: (measured - hwloc) / hwloc
    agrees: bool | None
    why: str | None = optional()        #: why this method
    policy: str | None = optional()     #: probabilistic: replacement policy of the best fit
    bracket: list[int] | None = optional()       #: edge: last size on the plateau, first above it
    held: One | None = optional()       #: bytes the best placement of the passes held: a lower bound of the size
    half_miss: One | None = optional()  #: first size where the best placement missed half its accesses
    model_size: One | None = optional()  #: the page-set fit's size, where one was fitted
    plateau: list[int] | None = optional()       #: sizes of the level's plateau (its latency's)
    latency_cycles: Positive | None = optional()  #: TSC ticks per access on the plateau
    latency_ns: Positive | None = optional()
    bandwidth: Positive | None = optional()       #: bytes/s read at bandwidth_size
    bandwidth_size: One | None = optional()
    status: str | None = optional()     #: "cache", or "flagged" (not reported as a cache: see note)
    note: str | None = optional()       #: why it is flagged, in words


@dataclass(kw_only=True)
class HwlocLevel(Mapping):
    """A data or unified cache of the measured PU as hwloc reports it
    (size in bytes; associativity in ways, -1 fully associative, 0 unknown)."""
    level: One
    size: Count
    kind: str
    associativity: int


@dataclass(kw_only=True)
class MemoryRecord(Mapping):
    """Memory as the sweep saw it: the latency plateau after the last rise
    (from `from_size` on) and the read bandwidth at the largest size."""
    from_size: One
    latency_cycles: Positive | None
    latency_ns: Positive | None
    bandwidth: Positive | None
    bandwidth_size: One | None


@dataclass(kw_only=True)
class CacheDerived(Mapping):
    """What the analysis made of the sweep: the time per access per size,
    its gradient, the levels found, hwloc's levels and the unstable sizes."""
    cycles_per_access: list[float]
    ns_per_access: list[float]
    gradient: list[float]
    levels: list[MeasuredLevel]
    hwloc_levels: list[HwlocLevel]
    unstable_sizes: list[int]
    outliers: Outliers | None = optional()   #: timings far slower than their size's median (kept)
    placement: PlacementRecord | None = optional()   #: the sweep's placement verdict (all passes)
    memory: MemoryRecord | None = optional()         #: the plateau after the last rise
    bandwidth_sizes: list[int] | None = optional()   #: bytes
    bandwidth: list[float] | None = optional()       #: bytes/s read per size (best per pass, median of passes)
    flags: list[str] | None = optional()             #: levels not reported as caches, and why


@dataclass(kw_only=True)
class CacheRecord(Record):
    """The `cache` benchmark's record: levels and sizes from array
    traversals (Servet 2010, III-A)."""
    parameters: CacheParameters = required()
    raw: CacheRaw = required()
    derived: CacheDerived = required()

    def _validate(self, path: str) -> None:
        n = len(self.raw.sizes)
        for name, values in (("raw.refined", self.raw.refined), ("derived.cycles_per_access",
                             self.derived.cycles_per_access), ("derived.ns_per_access", self.derived.ns_per_access)):
            require(len(values) == n, f"{path}.{name}", f"must have one value per size ({n}), got {len(values)}")
        d = self.derived
        require((d.bandwidth is None) == (d.bandwidth_sizes is None) and
                len(d.bandwidth or []) == len(d.bandwidth_sizes or []), f"{path}.derived.bandwidth",
                f"must have one value per bandwidth size ({len(d.bandwidth_sizes or [])}), "
                f"got {len(d.bandwidth or [])}")


# ---- shared-caches ----------------------------------------------------------------

@dataclass(kw_only=True)
class SharedParameters(Mapping):
    """How the co-runs ran: which pairs (mode, PUs, sample, seed), how
    often, the traversal they used, and where the cache levels came from."""
    pair_mode: str
    pus: list[int]
    sample: Count
    rounds: One
    samples: One
    threshold_requested: float | None
    seed: int
    stride: One
    order: str
    pages: str
    window: One
    levels_from: str


@dataclass(kw_only=True)
class PairRatio(Mapping):
    """One tested pair of PUs and its co-run ratio (time together over
    time alone)."""
    pair: Pair
    ratio: Positive


@dataclass(kw_only=True)
class SharedLevelRecord(Mapping):
    """The sharing verdict for one cache level: co-run size (bytes per
    core), threshold, ratios, the groups of cores found and hwloc's groups."""
    level: One
    cache_size: One                     #: bytes (measured by the cache benchmark)
    corun_size: One                     #: bytes per core in the co-run
    threshold: float
    expected_ratio: float | None        #: C(2s)/C(s) from the single-core curve
    decidable: bool
    ratios: list[PairRatio]
    sharing_pairs: list[Pair]
    groups: list[list[int]]
    hwloc_groups: list[list[int]]
    disagreements: list[str]


@dataclass(kw_only=True)
class CorunSamples(Mapping):
    """Raw co-run timings of one level: per pair, round, member and
    sample, TSC ticks per access alone and together."""
    level: One
    pairs: list[Pair]
    alone: Samples                      #: (pairs, rounds, 2, samples) TSC ticks per access
    together: Samples


@dataclass(kw_only=True)
class SharedRaw(Mapping):
    """Every co-run timing, and the single-core curve (bytes, ticks per
    access) the co-run sizes and thresholds came from."""
    levels: list[CorunSamples]
    single_core_sizes: list[float]
    single_core_cycles: list[float]


@dataclass(kw_only=True)
class SharedDerived(Mapping):
    """The pair plan and one sharing verdict per cache level."""
    plan: PlanRecord
    levels: list[SharedLevelRecord]


@dataclass(kw_only=True)
class SharedCachesRecord(Record):
    """The `shared-caches` benchmark's record: which cores share each
    cache level (Servet 2010, III-B)."""
    parameters: SharedParameters = required()
    raw: SharedRaw = required()
    derived: SharedDerived = required()

    def _validate(self, path: str) -> None:
        pus = set(self.parameters.pus)
        for i, lv in enumerate(self.derived.levels):
            for r in lv.ratios:
                require(set(r.pair) <= pus, f"{path}.derived.levels[{i}].ratios",
                        f"must pair PUs of parameters.pus, got {r.pair}")


__all__ = ["CacheDerived", "CacheParameters", "CacheRaw", "CacheRecord", "CorunSamples", "HwlocLevel",
           "MeasuredLevel", "OrderProbe", "PairRatio", "SharedCachesRecord",
           "SharedDerived", "SharedLevelRecord", "SharedParameters", "SharedRaw"]
