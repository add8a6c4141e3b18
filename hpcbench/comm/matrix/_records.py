"""The record the matrix benchmark writes (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from ..._outliers import Outliers
from ..._record import NON_EMPTY, Count, Mapping, NonNegative, One, Record, optional, require, required
from .._records import MeshRecord

#: raw samples (ns): nested lists of numbers
Samples = Any
Dims = Annotated[list[One], NON_EMPTY]


@dataclass(kw_only=True)
class MatrixParameters(Mapping):
    """How the matrix benchmark ran: ranks, the mesh (rows x cols and its
    layout), the dimensions swept, the precision and time cap of each
    kernel and dimension, the passes that share the cap, what a sample is,
    what the broadcasts send and what is verified."""
    ranks: One
    rows: One
    cols: One
    layout: str
    dims: Dims
    kernels: Annotated[list[str], NON_EMPTY]
    rse_target: float
    cap_s: float
    passes: One
    statistic: str
    broadcast: str
    setup: str
    verification: str


@dataclass(kw_only=True)
class KernelSamples(Mapping):
    """One kernel as measured: per dimension, the slowest rank's time of
    every application (ns), each rank's median (ns), the untimed warm-up,
    the precision reached, and the row or column a broadcast sent."""
    kernel: str
    dims: Dims
    samples: Samples
    rank_median: Samples
    warmup: list[Count]
    rse: list[float | None]
    index: list[Count] | None = optional()   #: broadcasts only

    def _validate(self, path: str) -> None:
        for name in ("samples", "rank_median", "warmup", "rse") + (("index",) if self.index is not None else ()):
            require(len(getattr(self, name)) == len(self.dims), f"{path}.{name}",
                    f"must have one entry per dimension ({len(self.dims)})")


@dataclass(kw_only=True)
class MatrixRaw(Mapping):
    """Every kernel's raw timings, in the order they ran."""
    kernels: list[KernelSamples]


@dataclass(kw_only=True)
class GrowthRecord(Mapping):
    """t(n) = t0 + coefficient n^exponent fitted over the dimensions (t0 in
    seconds), from regime_at on t0_after + coefficient_after n^exponent
    where the times change regime (a protocol switch; null where they do
    not), the interval of exponents the data allow, the thesis' exponent,
    and the verdict: agrees, differs, undecided or too few dimensions."""
    expected: One
    exponent: NonNegative | None
    low: NonNegative | None
    high: NonNegative | None
    t0: NonNegative | None
    coefficient: NonNegative | None
    verdict: str
    regime_at: One | None
    t0_after: NonNegative | None
    coefficient_after: NonNegative | None


@dataclass(kw_only=True)
class KernelResult(Mapping):
    """One kernel per dimension: median, minimum and 90th percentile of the
    slowest rank's time (seconds), and how the median grows with n."""
    kernel: str
    dims: Dims
    median: list[NonNegative]
    minimum: list[NonNegative]
    p90: list[NonNegative]
    growth: GrowthRecord
    outliers: Outliers

    def _validate(self, path: str) -> None:
        for name in ("median", "minimum", "p90"):
            require(len(getattr(self, name)) == len(self.dims), f"{path}.{name}",
                    f"must have one entry per dimension ({len(self.dims)})")


@dataclass(kw_only=True)
class MatrixDerived(Mapping):
    """The mesh the matrix lay on and every kernel's times and growth."""
    mesh: MeshRecord
    kernels: list[KernelResult]


@dataclass(kw_only=True)
class MatrixRecord(Record):
    """The `matrix` benchmark's record: CoMet's matrix kernels over the
    mesh of every rank, timed against the matrix dimension."""
    parameters: MatrixParameters = required()
    raw: MatrixRaw = required()
    derived: MatrixDerived = required()
