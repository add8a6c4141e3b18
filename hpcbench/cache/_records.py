"""The records the cache and shared-caches benchmarks write (see
hpcbench._record: these types define both the file layout and its checks)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._record import Mapping, Record
from ..topology import PlanRecord

#: raw samples: nested lists of numbers with None where a pass did not run
Samples = Any


@dataclass(kw_only=True)
class OrderProbe(Mapping):
    """What the auto order measured to choose: the largest array both ways."""
    sequential_cycles: float
    random_cycles: float
    size: int


@dataclass(kw_only=True)
class CacheParameters(Mapping):
    min_size: int
    max_size: int
    stride: int
    order: str
    order_requested: str
    order_probe: OrderProbe | None
    passes: int
    samples: int
    min_accesses: int
    warmup_traversals: int
    pu: int
    pages: str
    page_size: int
    refine: bool
    seed: int
    window: int


@dataclass(kw_only=True)
class CacheRaw(Mapping):
    sizes: list[int]                    #: bytes
    refined: list[bool]
    accesses_per_sample: list[int]
    cycles_per_access: Samples          #: (sizes, passes, samples) TSC ticks per access
    ns_per_access: Samples


@dataclass(kw_only=True)
class MeasuredLevel(Mapping):
    """One level found in the sweep, with hwloc's size beside it."""
    level: int
    size: int                           #: bytes
    method: str                         #: "peak" or "probabilistic"
    range: list[int]                    #: (first, last) sweep size analysed, bytes
    ways: int | None
    divergence: float | None
    onset: int | None                   #: largest size still on the plateau before the rise
    hwloc_size: int | None
    relative_difference: float | None   #: (measured - hwloc) / hwloc
    agrees: bool | None


@dataclass(kw_only=True)
class HwlocLevel(Mapping):
    level: int
    size: int
    kind: str
    associativity: int


@dataclass(kw_only=True)
class CacheDerived(Mapping):
    cycles_per_access: list[float]
    ns_per_access: list[float]
    gradient: list[float]
    levels: list[MeasuredLevel]
    hwloc_levels: list[HwlocLevel]
    unstable_sizes: list[int]


@dataclass(kw_only=True)
class CacheRecord(Record):
    parameters: CacheParameters
    raw: CacheRaw
    derived: CacheDerived


# ---- shared-caches ----------------------------------------------------------------

@dataclass(kw_only=True)
class SharedParameters(Mapping):
    pair_mode: str
    pus: list[int]
    sample: int
    rounds: int
    samples: int
    threshold_requested: float | None
    seed: int
    stride: int
    order: str
    pages: str
    window: int
    levels_from: str


@dataclass(kw_only=True)
class PairRatio(Mapping):
    pair: list[int]
    ratio: float


@dataclass(kw_only=True)
class SharedLevelRecord(Mapping):
    level: int
    cache_size: int                     #: bytes (measured by the cache benchmark)
    corun_size: int                     #: bytes per core in the co-run
    threshold: float
    expected_ratio: float | None        #: C(2s)/C(s) from the single-core curve
    decidable: bool
    ratios: list[PairRatio]
    sharing_pairs: list[list[int]]
    groups: list[list[int]]
    hwloc_groups: list[list[int]]
    disagreements: list[str]


@dataclass(kw_only=True)
class CorunSamples(Mapping):
    level: int
    pairs: list[list[int]]
    alone: Samples                      #: (pairs, rounds, 2, samples) TSC ticks per access
    together: Samples


@dataclass(kw_only=True)
class SharedRaw(Mapping):
    levels: list[CorunSamples]
    single_core_sizes: list[float]
    single_core_cycles: list[float]


@dataclass(kw_only=True)
class SharedDerived(Mapping):
    plan: PlanRecord
    levels: list[SharedLevelRecord]


@dataclass(kw_only=True)
class SharedCachesRecord(Record):
    parameters: SharedParameters
    raw: SharedRaw
    derived: SharedDerived


__all__ = ["CacheDerived", "CacheParameters", "CacheRaw", "CacheRecord", "CorunSamples", "HwlocLevel",
           "MeasuredLevel", "OrderProbe", "PairRatio", "SharedCachesRecord",
           "SharedDerived", "SharedLevelRecord", "SharedParameters", "SharedRaw"]
