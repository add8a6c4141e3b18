"""The record the multibsp benchmark writes (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from .._record import NON_EMPTY, Count, Mapping, One, Record, optional, required

#: a level's p or m: one number, or one per component where they differ
PerComponent = int | Annotated[list[int], NON_EMPTY]


@dataclass(kw_only=True)
class MultiBSPParameters(Mapping):
    """How the h-communications and the inner product ran: HMAX (when
    one for every level was given), supersteps per block, blocks, warm-up, repetitions, vector lengths."""
    hmax: One | None = optional()       #: --mbsp-hmax, the same for every level; absent: chosen per level
    iterations: One
    blocks: One
    warmup: Count
    reps: One
    sizes: list[int]
    pattern: str


@dataclass(kw_only=True)
class HcommSamples(Mapping):
    """Raw h-communication timings of one component: TSC ticks per
    superstep for every h and block, and each thread's DAXPY rate."""
    pus: list[int]
    ticks_per_superstep: Any            #: (hmax + 1, blocks) TSC ticks
    rate_flops_per_tick: Any            #: DAXPY rate of each thread


@dataclass(kw_only=True)
class MultiBSPRaw(Mapping):
    """Every raw timing: h-communications per level and component, and
    the inner product's ticks per vector length."""
    levels: list[list[HcommSamples]]
    inner_product: list[Any]


@dataclass(kw_only=True)
class TreeComponent(Mapping):
    """One component of the MultiBSP tree: p children, m bytes of
    shared memory, its PUs and memories, and its children."""
    p: One
    m: Count                              #: bytes of the memory its children share
    pus: list[int]
    memories: list[list[Any]]           #: (kind, bytes)
    children: list[Any]                 #: PU indexes, or a child component's PUs


@dataclass(kw_only=True)
class TreeLevel(Mapping):
    """One level of the tree (1 = just above the processors): p and m,
    one value or one per component where they differ."""
    level: One
    p: PerComponent
    m: PerComponent
    homogeneous: bool
    components: list[TreeComponent]


@dataclass(kw_only=True)
class GLFitRecord(Mapping):
    """g (flops per word) and L (flops) fitted over a range of h, and
    the RMS residual (flops)."""
    g: float                            #: flops per word
    L: float                            #: flops
    h_range: list[int]
    rms_residual: float


@dataclass(kw_only=True)
class GLFits(Mapping):
    """The g/L fit over every h, and bspbench's over h >= p (null where
    fewer than two such h were measured)."""
    all: GLFitRecord                    #: over every h
    h_ge_p: GLFitRecord | None          #: over h >= p (bspbench's range)


@dataclass(kw_only=True)
class GLComponent(Mapping):
    """g and L of one component, with its DAXPY rates (flops/s) and the
    superstep cost per h (flops)."""
    pus: list[int]
    p: int
    m: int
    memories: list[list[Any]]
    fits: GLFits
    rate: list[float]                   #: flops/s of each thread's DAXPY
    flops: list[float]                  #: flops per superstep, per h (0 .. HMAX)
    hmax: int | None = optional()       #: the sweep's largest h (files before per-level HMAX: absent)


@dataclass(kw_only=True)
class GLLevel(Mapping):
    """g and L of one level (the mean over its components) and how far
    they spread between components."""
    level: One
    p: PerComponent
    m: PerComponent
    homogeneous: bool
    g: float
    L: float
    g_spread: float | None
    L_spread: float | None
    components: list[GLComponent]
    hmax: PerComponent | None = optional()   #: its sweeps' largest h, one per component where they differ


@dataclass(kw_only=True)
class InnerProductPoint(Mapping):
    """One vector length (doubles) of the inner product: measured and
    predicted times (seconds) and their ratios; with r per memory level
    (absent from files written before it): the level the slices sit in,
    the prediction and its ratio, the prediction with the measured
    start-up, and the run taken apart (each thread's loop, the reduction
    after the last loop)."""
    n: One                              #: doubles
    predicted_s: float
    predicted_kernel_rate_s: float
    measured_s: float
    measured_with_startup_s: float
    measured_over_predicted: float
    measured_over_predicted_kernel_rate: float
    slice_level: str | None = optional()                #: memory level of the slices ("L2", "memory")
    predicted_level_rate_s: float | None = optional()   #: leaves at their level's rate
    measured_over_predicted_level_rate: float | None = optional()
    predicted_with_startup_s: float | None = optional()  #: predicted_level_rate_s + the measured start-up
    leaf_s: list[float] | None = optional()             #: median time of each thread's loop, in leaf order
    reduce_s: float | None = optional()                 #: median time from the last loop's end to the root's sum


@dataclass(kw_only=True)
class LeafRateRecord(Mapping):
    """The inner product's leaf loop in one memory level, every thread at
    once on its own slice: the level (size of one instance, threads
    sharing it), the slice, each thread's median rate (flops/s)."""
    level: str                          #: "L1", "L2", ..., "memory"
    size: Count                         #: bytes of one instance
    sharing: One                        #: threads on one instance
    slice_doubles: One                  #: doubles per thread
    pus: list[int]
    rate: list[float]                   #: flops/s of each thread (median of trials)


@dataclass(kw_only=True)
class MultiBSPDerived(Mapping):
    """The tree, the paper's notation, g and L per level, the rates and
    the inner-product validation."""
    tree: list[TreeLevel]
    notation: str
    levels: list[GLLevel]
    rate: float                         #: flops/s (DAXPY)
    inner_product_kernel_rate: float    #: flops/s of the inner product's own loop on one core
    inner_product: list[InnerProductPoint]
    peak_rate: float | None = optional()   #: flop/s, peak of one core (r; g and L are flops at it); old files: absent
    peak_isa: str | None = optional()      #: the instruction set of peak_rate's FMA chains ("avx512", ...)
    leaf_rates: list[LeafRateRecord] | None = optional()   #: r per memory level (files before it: absent)
    startup_s: float | None = optional()                   #: median start-up and join of an empty run
    sync_s: float | None = optional()                      #: median supersteps of an empty run (no leaf work)

    @property
    def r(self) -> float:
        """MultiBSP's r, the rate g and L are counted in flops at (flop/s):
        one core's peak FLOP/s, or in files from before it the DAXPY rate."""
        return self.rate if self.peak_rate is None else self.peak_rate

    @property
    def r_label(self) -> str:
        """What r is, in words: "peak FLOP/s (avx512 FMA)" or "DAXPY"."""
        return "DAXPY" if self.peak_rate is None else f"peak FLOP/s ({self.peak_isa or '?'} FMA)"


@dataclass(kw_only=True)
class MultiBSPRecord(Record):
    """The `multibsp` benchmark's record: the node's MultiBSP tree with
    g and L per level (MBSPDiscover)."""
    parameters: MultiBSPParameters = required()
    raw: MultiBSPRaw = required()
    derived: MultiBSPDerived = required()
