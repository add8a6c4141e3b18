"""The record the bandwidth benchmark writes (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._record import Count, Mapping, One, Record, optional, required


@dataclass(kw_only=True)
class LevelRecord(Mapping):
    """A working set measured: its label ("L1", ..., "memory") and bytes
    (all of a kernel's arrays together, per core)."""
    label: str
    size: One


@dataclass(kw_only=True)
class BandwidthParameters(Mapping):
    """What ran: kernels, ISAs, the working sets on one core (pu), the
    team that ran memory together and its working set per core, samples,
    data volume per sample at least (bytes), pages, and how bytes count."""
    kernels: list[str]
    isas: list[str]
    levels: list[LevelRecord]
    pu: Count
    team: list[int]
    team_size: Count               #: bytes per core of the team's memory run (0: no team run)
    samples: One
    min_bytes: One
    warmup: Count
    pages: str
    counting: str


@dataclass(kw_only=True)
class RunSamples(Mapping):
    """Every sample of one kernel, ISA and working set: when each core's
    passes started and ended (ns after the run's first start, one clock)."""
    kernel: str
    isa: str
    level: str
    cores: list[int]
    array_bytes: One
    bytes_per_sample: float        #: data volume of one core's sample (loads + stores)
    start_ns: Any                  #: (cores, samples)
    end_ns: Any


@dataclass(kw_only=True)
class BandwidthRaw(Mapping):
    """The samples of every run, in the order of derived.results."""
    runs: list[RunSamples]


@dataclass(kw_only=True)
class KernelBandwidth(Mapping):
    """One kernel, ISA and working set: the bandwidth the cores delivered
    together (bytes/s, loads + stores as likwid-bench counts; median and
    best sample), and the write-allocate traffic the stores add at that
    rate (bytes/s; 0 for non-temporal stores and update)."""
    kernel: str
    isa: str
    nontemporal: bool
    level: str
    cores: One
    working_set: One               #: bytes per core actually used: the arrays, whole blocks
    array_bytes: One
    bandwidth: float | None
    best: float | None
    write_allocate: float | None = optional()


@dataclass(kw_only=True)
class BandwidthDerived(Mapping):
    """The bandwidth of every kernel, ISA and working set."""
    results: list[KernelBandwidth]


@dataclass(kw_only=True)
class BandwidthRecord(Record):
    """The `bandwidth` benchmark's record: likwid-bench-style load, store,
    copy, update and triad bandwidth per cache level and memory."""
    parameters: BandwidthParameters = required()
    raw: BandwidthRaw = required()
    derived: BandwidthDerived = required()
