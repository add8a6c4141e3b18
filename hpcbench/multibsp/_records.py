"""The record the multibsp benchmark writes (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._record import Mapping, Record

#: a level's p or m: one number, or one per component where they differ
PerComponent = int | list[int]


@dataclass(kw_only=True)
class MultiBSPParameters(Mapping):
    hmax: int
    iterations: int
    blocks: int
    warmup: int
    reps: int
    sizes: list[int]
    pattern: str


@dataclass(kw_only=True)
class HcommSamples(Mapping):
    pus: list[int]
    ticks_per_superstep: Any            #: (hmax + 1, blocks) TSC ticks
    rate_flops_per_tick: Any            #: DAXPY rate of each thread


@dataclass(kw_only=True)
class MultiBSPRaw(Mapping):
    levels: list[list[HcommSamples]]
    inner_product: list[Any]


@dataclass(kw_only=True)
class TreeComponent(Mapping):
    p: int
    m: int                              #: bytes of the memory its children share
    pus: list[int]
    memories: list[list[Any]]           #: (kind, bytes)
    children: list[Any]                 #: PU indexes, or a child component's PUs


@dataclass(kw_only=True)
class TreeLevel(Mapping):
    level: int
    p: PerComponent
    m: PerComponent
    homogeneous: bool
    components: list[TreeComponent]


@dataclass(kw_only=True)
class GLFitRecord(Mapping):
    g: float                            #: flops per word
    L: float                            #: flops
    h_range: list[int]
    rms_residual: float


@dataclass(kw_only=True)
class GLFits(Mapping):
    all: GLFitRecord                    #: over every h
    h_ge_p: GLFitRecord | None          #: over h >= p (bspbench's range)


@dataclass(kw_only=True)
class GLComponent(Mapping):
    pus: list[int]
    p: int
    m: int
    memories: list[list[Any]]
    fits: GLFits
    rate: list[float]                   #: flops/s of each thread's DAXPY
    flops: list[float]                  #: flops per superstep, per h


@dataclass(kw_only=True)
class GLLevel(Mapping):
    level: int
    p: PerComponent
    m: PerComponent
    homogeneous: bool
    g: float
    L: float
    g_spread: float | None
    L_spread: float | None
    components: list[GLComponent]


@dataclass(kw_only=True)
class InnerProductPoint(Mapping):
    n: int                              #: doubles
    predicted_s: float
    predicted_kernel_rate_s: float
    measured_s: float
    measured_with_startup_s: float
    measured_over_predicted: float
    measured_over_predicted_kernel_rate: float


@dataclass(kw_only=True)
class MultiBSPDerived(Mapping):
    tree: list[TreeLevel]
    notation: str
    levels: list[GLLevel]
    rate: float                         #: flops/s (DAXPY)
    inner_product_kernel_rate: float    #: flops/s of the inner product's own loop on one core
    inner_product: list[InnerProductPoint]


@dataclass(kw_only=True)
class MultiBSPRecord(Record):
    parameters: MultiBSPParameters
    raw: MultiBSPRaw
    derived: MultiBSPDerived
