"""The record the memory benchmark writes (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._record import Mapping, Record
from ..topology import PlanRecord


@dataclass(kw_only=True)
class MemoryParameters(Mapping):
    pair_mode: str
    pus: list[int]
    sample: int
    seed: int
    array_bytes: int
    bytes_per_copy: int
    repetitions: int
    rounds: int
    tolerance: float
    pages: str
    kernel: str


@dataclass(kw_only=True)
class ScalabilitySamples(Mapping):
    group: str
    cores: list[int]
    bandwidth: Any                  #: per k, (k, repetitions) bytes/s per core


@dataclass(kw_only=True)
class MemoryRaw(Mapping):
    pairs: list[list[int]]
    alone: Any                      #: (pairs, rounds, 2, repetitions) bytes/s per core
    together: Any
    scalability: list[ScalabilitySamples]


@dataclass(kw_only=True)
class PairBandwidth(Mapping):
    pair: list[int]
    reference: float                #: bytes/s per core, the pair's cores alone
    bandwidth: float                #: bytes/s per core, both copying
    relative: float


@dataclass(kw_only=True)
class OverheadLevelRecord(Mapping):
    bandwidth: float
    relative: float
    pairs: list[list[int]]
    groups: list[list[int]]


@dataclass(kw_only=True)
class OverheadRecord(Mapping):
    reference: float
    tolerance: float
    levels: list[OverheadLevelRecord]
    unaffected: list[list[int]]
    inconsistencies: list[str]


@dataclass(kw_only=True)
class ScalabilityPoint(Mapping):
    cores: int
    per_core: float                 #: bytes/s, mean over cores
    slowest_core: float
    total: float


@dataclass(kw_only=True)
class Scalability(Mapping):
    group: str
    cores: list[int]
    points: list[ScalabilityPoint]


@dataclass(kw_only=True)
class MemoryDerived(Mapping):
    plan: PlanRecord
    pairs: list[PairBandwidth]
    overhead: OverheadRecord
    scalability: list[Scalability]


@dataclass(kw_only=True)
class MemoryRecord(Record):
    parameters: MemoryParameters
    raw: MemoryRaw
    derived: MemoryDerived
