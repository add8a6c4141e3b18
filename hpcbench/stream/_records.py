"""The record the stream benchmark writes (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._outliers import Outliers
from .._record import Count, Mapping, One, Record, optional, required


@dataclass(kw_only=True)
class StreamParameters(Mapping):
    """How the kernels ran: the PUs given, the bytes of each array, rounds
    (timed and untimed), the instruction set asked for and used, the store
    kind, the page kind and the scalar s of Scale and Triad."""
    pus: list[int]
    array_bytes: One
    repetitions: One
    warmup: Count
    isa: str                 #: as asked (auto, scalar, sse2, avx2, avx512)
    isa_used: str            #: what the loops ran with
    stores: str              #: ordinary or nontemporal
    pages: str
    scalar: float


@dataclass(kw_only=True)
class TeamSamples(Mapping):
    """One team's run: when each member started and ended each kernel of
    each repetition, arrays (members, repetitions, 4 kernels) in ns after
    the run's first start, one clock for all members."""
    group: str
    pus: list[int]
    start_ns: Any
    end_ns: Any


@dataclass(kw_only=True)
class StreamRaw(Mapping):
    """Every kernel's start and end, per team."""
    teams: list[TeamSamples]


@dataclass(kw_only=True)
class KernelRate(Mapping):
    """One kernel on one team, as STREAM reports it and more. Rates are
    bytes/s of the whole team: STREAM's byte count of every member over the
    span from the first member's start to the last member's end, per
    repetition; best is STREAM's figure (the fastest repetition), median and
    worst say how much the repetitions spread."""
    kernel: str
    formula: str
    bytes: One                       #: STREAM's count per member and run (16 or 24 bytes per element)
    write_allocate_bytes: Count      #: read besides for the lines written (ordinary stores), per member and run
    best: float                      #: bytes/s, STREAM's "Best Rate"
    median: float                    #: bytes/s
    worst: float                     #: bytes/s
    best_with_write_allocate: float  #: bytes/s, best counting the write-allocate reads too
    min_ns: float                    #: shortest span of a repetition (STREAM's "Min time")
    median_ns: float
    max_ns: float


@dataclass(kw_only=True)
class TeamRates(Mapping):
    """The four kernels on one team: its name (one core, one L3, one NUMA
    node, one package, node) and PUs."""
    group: str
    pus: list[int]
    kernels: list[KernelRate]

    def rate(self, kernel: str) -> KernelRate | None:
        return next((k for k in self.kernels if k.kernel == kernel), None)


@dataclass(kw_only=True)
class StreamDerived(Mapping):
    """Each team's rates, and the node's headline: Triad's best rate with
    every core (the last team)."""
    teams: list[TeamRates]
    triad: float | None = optional()           #: bytes/s, Triad at all cores (best)
    outliers: Outliers | None = optional()     #: repetitions far slower than their kernel's median (kept)


@dataclass(kw_only=True)
class StreamRecord(Record):
    """The `stream` benchmark's record: STREAM's four kernels per core count."""
    parameters: StreamParameters = required()
    raw: StreamRaw = required()
    derived: StreamDerived = required()
