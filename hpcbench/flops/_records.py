"""The record the peakflops benchmark writes (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._outliers import Outliers
from .._record import Count, Mapping, One, Record, optional, required


@dataclass(kw_only=True)
class FlopsParameters(Mapping):
    """How the FMA chains ran: instruction sets and precisions measured,
    the PUs of the all-cores run, samples, their length (ms), chains per
    core, the scalar loop's step ("fma" or "mul+add") and the kernel."""
    isas: list[str]
    precisions: list[str]
    pus: list[int]
    samples: One
    sample_ms: float
    chains: One
    scalar_operation: str
    kernel: str


@dataclass(kw_only=True)
class FlopsRun(Mapping):
    """One run of the chains on a team: its instruction set, precision and
    PUs, the steps per sample, the flops of one member's sample, and each
    sample's time and start and end (ns, arrays (members, samples); starts
    and ends after the run's first start, one clock for all members)."""
    isa: str
    precision: str
    pus: list[int]
    iterations: One
    flops_per_sample: float
    ns: Any
    start_ns: Any
    end_ns: Any


@dataclass(kw_only=True)
class FlopsRaw(Mapping):
    """Every run, in the order measured."""
    runs: list[FlopsRun]


@dataclass(kw_only=True)
class FlopsRate(Mapping):
    """One instruction set and precision on `cores` cores at once (flop/s):
    per core, the median over samples of each core's rate, mean over the
    cores; its spread ((max - min) / median of the per-sample rates); the
    best sample of a core; what the cores did together (all flops over the
    slowest core's time, as likwid-bench counts: median and best over
    samples); and the share of that time in which all of them ran (median
    over samples, 1 alone)."""
    isa: str
    precision: str
    cores: One
    per_core: float
    per_core_spread: float
    per_core_max: float
    together: float
    together_max: float
    overlap: float


@dataclass(kw_only=True)
class FlopsDerived(Mapping):
    """Every rate, and the headline: the widest instruction set's
    double-precision rate on one core and on all the cores together, the
    best sample of each (flop/s)."""
    rates: list[FlopsRate]
    headline_isa: str
    peak_per_core: float | None
    peak_node: float | None
    node_cores: Count
    outliers: Outliers | None = optional()


@dataclass(kw_only=True)
class FlopsRecord(Record):
    """The `peakflops` benchmark's record: peak FLOP/s per core and per
    node, per instruction set and precision (likwid-bench's peakflops)."""
    parameters: FlopsParameters = required()
    raw: FlopsRaw = required()
    derived: FlopsDerived = required()
