"""The record the memory benchmark writes (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._outliers import Outliers
from .._record import Count, Mapping, One, Pair, Record, optional, required
from ..topology._pairs import PlanRecord


@dataclass(kw_only=True)
class MemoryParameters(Mapping):
    """How the copies ran: which pairs, array size and bytes counted per
    copy (bytes), repetitions, rounds, tolerance, page kind and kernel."""
    pair_mode: str
    pus: list[int]
    sample: Count
    seed: int
    array_bytes: One
    bytes_per_copy: One
    repetitions: One
    rounds: One
    tolerance: float
    pages: str
    kernel: str


@dataclass(kw_only=True)
class ScalabilitySamples(Mapping):
    """Raw bandwidths of one scalability run: per number of cores k, an
    array (k, repetitions) in bytes/s per core, and when each copy started
    and ended (ns after the run's first start, one clock for all cores)."""
    group: str
    cores: list[int]
    bandwidth: Any                  #: per k, (k, repetitions) bytes/s per core
    start_ns: Any = optional()      #: per k, (k, repetitions) ns; absent in files from before aggregates
    end_ns: Any = optional()


@dataclass(kw_only=True)
class MemoryRaw(Mapping):
    """Every copy bandwidth (bytes/s per core): each tested pair alone
    and together, per round and repetition, and the scalability runs."""
    pairs: list[Pair]
    alone: Any                      #: (pairs, rounds, 2, repetitions) bytes/s per core
    together: Any
    scalability: list[ScalabilitySamples]
    together_start_ns: Any = optional()   #: like together: ns after the first start of that copy run
    together_end_ns: Any = optional()


@dataclass(kw_only=True)
class PairBandwidth(Mapping):
    """One tested pair: bandwidth per core alone and together (bytes/s),
    their ratio, and what both together delivered (bytes/s)."""
    pair: Pair
    reference: float                #: bytes/s per core, the pair's cores alone
    bandwidth: float                #: bytes/s per core, both copying
    relative: float
    aggregate: float | None = optional()   #: bytes/s, both cores' bytes over the first start to the last end


@dataclass(kw_only=True)
class OverheadLevelRecord(Mapping):
    """One memory-overhead level: bandwidth per core (bytes/s), relative
    to alone, its pairs and the groups of cores they form."""
    bandwidth: float
    relative: float
    pairs: list[Pair]
    groups: list[list[int]]
    aggregate: float | None = optional()   #: bytes/s of a pair together, mean over the tested pairs


@dataclass(kw_only=True)
class OverheadRecord(Mapping):
    """Servet's memory-access overhead: the reference bandwidth alone
    (bytes/s), the levels, the unaffected pairs, and inconsistencies."""
    reference: float
    tolerance: float
    levels: list[OverheadLevelRecord]
    unaffected: list[list[int]]
    inconsistencies: list[str]


@dataclass(kw_only=True)
class ScalabilityPoint(Mapping):
    """k cores copying at once: their own rates (bytes/s; mean, slowest and
    sum) and the aggregate, all bytes over the first start to the last end."""
    cores: One
    per_core: float                 #: bytes/s, mean over cores of each core's own rate
    slowest_core: float
    total: float                    #: bytes/s, the sum of the cores' own rates (overstates when they differ)
    aggregate: float | None = optional()   #: bytes/s the memory delivered; absent in files from before it

    @property
    def all_cores(self) -> float:
        """Bytes/s of the k cores together: the aggregate, or in files from
        before it the sum of their rates (`show` and the plots say which)."""
        return self.total if self.aggregate is None else self.aggregate


@dataclass(kw_only=True)
class Scalability(Mapping):
    """Copy bandwidth as the first 1, 2, ... k cores of one group copy
    at once."""
    group: str
    cores: list[int]
    points: list[ScalabilityPoint]


@dataclass(kw_only=True)
class MemoryDerived(Mapping):
    """The pair plan, every pair's bandwidths, the overhead levels and
    the scalability of each level's group and of the node."""
    plan: PlanRecord
    pairs: list[PairBandwidth]
    overhead: OverheadRecord
    scalability: list[Scalability]
    outliers: Outliers | None = optional()   #: copies far slower than their set's median (kept)


@dataclass(kw_only=True)
class MemoryRecord(Record):
    """The `memory` benchmark's record: memory-access overhead between
    cores and bandwidth scalability (Servet 2010, III-C)."""
    parameters: MemoryParameters = required()
    raw: MemoryRaw = required()
    derived: MemoryDerived = required()
