"""Run the cache sweep on this machine: latency by pointer chasing and read
bandwidth by streaming loads, over prefixes of one buffer per pass.

The timed loops are in C (hpcbench._core.chase_sweep and load_sweep); this
module chooses the sizes, binds the thread, repeats, and keeps every raw
sample and what each buffer's placement was.

Repetition design: the list of sizes is swept `passes` times, each pass with
a new buffer (so a new physical placement) and the sizes in a new random
order. A burst from another tenant then touches one pass of a few sizes
instead of a contiguous stretch of the curve; and where the placement is
random, averaging passes estimates the expected miss rate that the page-set
model predicts. Interference only ever adds time, so per pass the minimum of
`samples` timings is kept; across passes, the 20%-trimmed mean (bandwidth:
the best sample per pass, the median across passes). Sizes added by
refinement are measured in new passes together with the first sweep's sizes
of the same rise, so that neighbouring points share the same conditions.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import _core, _validate
from .._errors import OptionError
from .._format import format_size
from .._memory import SAFE_MEMORY_SHARE, page_mode, safe_memory_limit
from .._protocol import check_ranges
from ..topology import Topology, bound_to
from ._grid import sweep_sizes
from ._passes import extension_limit, run_passes
from ._robust import bandwidth_per_size, per_size
from ._options import CacheOptions
from ._placement import Placement, classify, virtual_machine

ORDERS = {"sequential": _core.ORDER_SEQUENTIAL, "random": _core.ORDER_RANDOM, "windowed": _core.ORDER_WINDOWED}
ISAS = {"auto": _core.ISA_AUTO, "scalar": _core.ISA_SCALAR, "sse2": _core.ISA_SSE2, "avx2": _core.ISA_AVX2,
        "avx512": _core.ISA_AVX512}
ISA_NAMES = {v: k for k, v in ISAS.items()}
_D = CacheOptions()
#: Bytes read per bandwidth sample, at least: tens of microseconds even in L1.
LOAD_MIN_BYTES = 32 << 20
#: Load sizes are whole 64-byte blocks (the C kernel's rule).
LOAD_BLOCK = 64


@dataclass
class CacheSweep:
    """What measure() returns. Unpacks as (sizes, cycles) for scripts."""

    sizes: np.ndarray            #: bytes, increasing
    cycles: np.ndarray           #: TSC ticks per access (robust mean over passes)
    ns: np.ndarray               #: nanoseconds per access
    refined: np.ndarray          #: True for sizes added by refinement
    samples_cycles: np.ndarray   #: raw, shape (sizes, passes, samples); NaN = pass not run
    samples_ns: np.ndarray       #: raw, same shape
    accesses_per_sample: np.ndarray
    placements: list = field(default_factory=list)        #: one Placement per chase buffer
    bandwidth_sizes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: bytes/s, shape (sizes, passes, samples)
    bandwidth_samples: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0)))
    bandwidth: np.ndarray = field(default_factory=lambda: np.zeros(0))     #: bytes/s per size
    parameters: dict = field(default_factory=dict)

    def __iter__(self):
        return iter((self.sizes, self.cycles))


def default_max_size(topology: Topology) -> int:
    """About twice the largest data cache hwloc reports (64 MiB if none),
    a multiple of 1 MiB, within the safe share of available memory."""
    caches = [c.size for c in topology.caches if c.kind != "instruction"]
    target = 2 * max(caches) if caches else 64 << 20
    target = -(-target // (1 << 20)) * (1 << 20)
    return min(target, max(safe_memory_limit() // (1 << 20), 4) * (1 << 20))


def largest_cache(topology: Topology) -> int | None:
    """Bytes of the largest data or unified cache hwloc reports, if any."""
    caches = [c.size for c in topology.caches if c.kind != "instruction"]
    return max(caches) if caches else None


def default_stride(topology: Topology, pu: int | None = None) -> int:
    """One slot per line of the cache with the longest lines among those of
    `pu` (hwloc's line sizes; 64 bytes if it reports none). A cache with
    shorter lines then sees one slot in every few of its lines, in as few
    of its sets: the capacity a chase fills is still its size, so every
    edge stays where it is, while no line holds two slots (which would turn
    half the misses of a long-line cache into hits)."""
    caches = topology.data_caches_of(pu) if pu is not None else [c for c in topology.caches
                                                                 if c.kind != "instruction"]
    lines = [c.line_size for c in caches if c.line_size > 0]
    return int(max(lines)) if lines else 64


def check_parameters(min_size: int, max_size: int, stride: int, passes: int, samples: int, order: str, pages: str,
                     min_accesses: int, window: int = _D.window, grid: str = _D.grid,
                     isa: str = _D.isa) -> tuple[int, int, int]:
    """Validate measure()'s arguments; raises OptionError naming the parameter.

    The chase's own rules (the stride, sizes that are multiples of it, the
    accesses and samples per size, the window) are the C kernel's, stated
    once in its check (_core.chase_check) and applied here to the smallest
    and the largest size. What this adds is the sweep's: the range, the
    memory it may take, the passes, the grid, and the names of orders, page
    kinds and instruction sets."""
    check_ranges(CacheOptions, passes=passes, samples=samples)
    if order not in ("auto",) + tuple(ORDERS):
        raise OptionError("order", f"must be auto, sequential, random or windowed, got {order!r}")
    if grid not in ("fine", "servet"):
        raise OptionError("grid", f"must be fine or servet, got {grid!r}")
    if isa not in ISAS:
        raise OptionError("isa", f"must be one of {', '.join(ISAS)}, got {isa!r}")
    if not _core.load_supported(ISAS[isa]):
        raise OptionError("isa", f"must be an instruction set this CPU supports, got {isa}")
    kernel_order = ORDERS["windowed" if order == "auto" else order]   # auto may choose windowed

    def kernel_rules(name: str, size: int) -> None:
        with _validate.c_rules({"buffer_bytes": name, "sizes": name, "stride_bytes": "stride",
                                "window_bytes": "window", "page_mode": "pages"}):
            _core.chase_check(size, [size], stride, order=kernel_order, min_accesses=min_accesses, samples=samples,
                              page_mode=page_mode(pages), window_bytes=window)

    kernel_rules("min_size", min_size)
    if max_size < min_size:
        raise OptionError("max_size", f"must not be below min_size ({min_size} bytes), got {max_size}")
    limit = safe_memory_limit()
    if max_size > limit:
        raise OptionError("max_size", f"must fit in {SAFE_MEMORY_SHARE:.0%} of available memory "
                                      f"({format_size(limit)}), got {format_size(max_size)}")
    kernel_rules("max_size", max_size)
    count = sweep_sizes(min_size, max_size, stride, grid).size
    if count < 3:
        raise OptionError("max_size", f"must leave at least 3 sizes in the sweep from {min_size} bytes, "
                                      f"got {max_size} ({count} sizes)")
    return int(min_size), int(max_size), int(stride)


def check_pu(pu: int, topology: Topology) -> int:
    """The PU to bind the sweep to must be one hwloc lists for this process."""
    if pu not in topology.pu_indexes:
        raise OptionError("pu", f"must be one of this machine's PUs {topology.pu_indexes}, got {pu!r}")
    return int(pu)


@dataclass
class _Chase:
    """The fixed settings of every chase call of one sweep."""
    stride: int
    order: str
    window: int
    min_accesses: int
    warmup: int
    samples: int
    pages: str
    vm: str | None
    long_slots: int

    def run(self, buffer_bytes: int, sizes: np.ndarray, seed: int) -> tuple:
        """Time `sizes` (in the order given) on one new buffer: (ticks,
        ns, accesses) per size in that order, and the buffer's Placement."""
        ticks, ns, accesses, frames, _known, huge = _core.chase_sweep(
            int(buffer_bytes), [int(s) for s in sizes], self.stride, order=ORDERS[self.order], seed=seed,
            window_bytes=self.window, min_accesses=self.min_accesses, warmup=self.warmup, samples=self.samples,
            page_mode=page_mode(self.pages), long_slots=self.long_slots)
        placement = classify(frames, huge, int(buffer_bytes), os.sysconf("SC_PAGE_SIZE"), self.vm)
        return ticks, ns, accesses, placement


def measure_bandwidth(sizes: np.ndarray, passes: int, samples: int, pages: str, isa: str,
                      min_bytes: int = LOAD_MIN_BYTES) -> tuple[np.ndarray, np.ndarray, str]:
    """Read bandwidth over prefixes of one buffer per pass, the sizes in a
    new random order each pass: (sizes as whole 64-byte blocks, bytes/s of
    shape (sizes, passes, samples), the instruction set used).

    A size of at least `min_bytes` is read once per sample anyway, for
    milliseconds that no interrupt moves: it is timed once per pass (its
    other samples NaN), and the kernel's verifying pass over it, just
    before, is its warm-up. Memory's sizes then cost two reads a pass, not
    five."""
    sizes = np.unique(np.maximum(np.asarray(sizes) // LOAD_BLOCK, 1) * LOAD_BLOCK)
    out = np.full((sizes.size, passes, samples), np.nan)
    rng = np.random.default_rng(len(sizes))
    used = _core.ISA_AUTO
    long = sizes >= min_bytes
    for p in range(passes):
        order = rng.permutation(sizes.size)
        for group, warmup, count in ((order[~long[order]], 1, samples), (order[long[order]], 0, 1)):
            if not group.size:
                continue
            ns, _ticks, read, used = _core.load_sweep(int(sizes[group].max()), [int(s) for s in sizes[group]],
                                                      min_bytes=min_bytes, warmup=warmup, samples=count,
                                                      page_mode=page_mode(pages), isa=ISAS[isa])
            out[group, p, :count] = read[:, None] / (ns * 1e-9)
    return sizes, out, ISA_NAMES.get(used, str(used))


def choose_order(order: str, placement: Placement) -> str:
    """`auto`: a uniformly random cycle where huge pages back the buffer on
    a machine that is not virtual (a TLB entry then covers 2 MiB, and
    random visits cost no TLB misses below the TLB's reach of a few GiB);
    random within 128 KiB windows otherwise, where a uniformly random cycle
    over base pages would add a TLB miss to most accesses and a rise of its
    own at each TLB's reach. A guest's huge page is huge to the TLB only if
    the host backs it with one too, which the guest cannot see: on a KVM
    guest of an AMD EPYC with every buffer on guest huge pages, a random
    chase still missed the first-level TLB from 384 KiB on (96 entries of
    4 KiB), a rise inside the L2 that the windowed order does not have."""
    if order != "auto":
        return order
    huge = (placement.huge_share or 0.0) >= 0.9
    return "random" if huge and not placement.virtual_machine else "windowed"


def measure(min_size: int = _D.min_size, max_size: int | None = _D.max_size, stride: int | None = _D.stride,
            order: str = _D.order, passes: int = _D.passes, samples: int = _D.samples,
            min_accesses: int = _D.min_accesses, warmup: int = _D.warmup, pu: int | None = _D.pu,
            pages: str = _D.pages, refine: bool = _D.refine, seed: int = _D.seed, window: int = _D.window,
            grid: str = _D.grid, bandwidth: bool = _D.bandwidth, isa: str = _D.isa,
            long_slots: int = _D.long_slots, extend: bool = _D.extend, topology: Topology | None = None,
            progress: Callable[[str], None] | None = None) -> CacheSweep:
    """Sweep sizes: the latency of a pointer chase through every slot of a
    prefix of one buffer, and (bandwidth=True) the read bandwidth of
    streaming loads over the same sizes.

    Sizes (bytes) from min_size to max_size (default: about twice the
    largest cache hwloc reports) on the "fine" grid (4 per octave) or the
    paper's ("servet"); slots `stride` bytes apart (default: hwloc's line
    size). The calling thread is bound to `pu` (default: the first PU it may
    use), the binding restored afterwards. pages: "huge" (default: 2 MiB
    pages where the system grants them), "normal" or "system"; order:
    "auto" (random where huge pages back the buffer outside a virtual machine, windowed otherwise),
    "random", "windowed" or "sequential". refine adds sizes inside each rise
    of the first sweep. extend: while the curve still rises at max_size,
    sweep on octave by octave past it (up to extension_limit: 4 times the
    largest cache, within the memory available). Returns a CacheSweep; `sizes, cycles = measure()`
    also works.
    """
    topology = topology or Topology.load()
    if pu is None:
        pu = _core.thread_binding()[0]
    check_pu(pu, topology)
    if stride is None:
        stride = default_stride(topology, pu)
    if max_size is None:
        max_size = default_max_size(topology)
    min_size, max_size, stride = check_parameters(min_size, max_size, stride, passes, samples, order,
                                                  pages, min_accesses, window, grid, isa)
    _validate.non_negative_int("warmup", warmup)
    sizes = sweep_sizes(min_size, max_size, stride, grid)
    # The extension's buffers must fit in memory as max_size's did.
    largest = largest_cache(topology)
    limit = extension_limit(largest, safe_memory_limit()) if extend else 0
    # The probe's order does not matter (it times one small size): windowed
    # until the probe has told what `auto` becomes.
    chase = _Chase(stride, "windowed" if order == "auto" else order, window, min_accesses, warmup, samples, pages,
                   virtual_machine(), long_slots)

    with bound_to(pu):
        # A first buffer of the full size, timed at one small size only,
        # tells the placement the order depends on.
        *_, probe = chase.run(int(sizes[-1]), sizes[:1], seed)
        chase.order = choose_order(order, probe)
        swept = run_passes(lambda todo, s: chase.run(int(np.max(todo)), todo, s), sizes, passes, samples, stride,
                           refine, seed, progress, extend_to=limit, cache_top=largest)
        base = swept.sizes[~swept.refined]
        bw_sizes, bw_samples, isa_used = (measure_bandwidth(base, passes, samples, pages, isa)
                                          if bandwidth else (np.zeros(0, dtype=np.int64), np.zeros((0, 0, 0)), ""))
        if bandwidth and progress:
            progress("cache sweep: read bandwidth measured")

    params = {"min_size": min_size, "max_size": max_size, "stride": stride, "order": chase.order,
              "order_requested": order, "passes": passes, "samples": samples, "min_accesses": min_accesses,
              "warmup_traversals": warmup, "pu": pu, "pages": pages, "page_size": os.sysconf("SC_PAGE_SIZE"),
              "refine": refine, "seed": seed, "window": window, "grid": grid, "kernel": "chase",
              "long_slots": long_slots, "extend": extend, "extend_limit": limit if limit > max_size else None,
              "extended_to": int(swept.sizes[swept.extended][-1]) if swept.extended.any() else None,
              "isa": isa_used or None}
    return CacheSweep(sizes=swept.sizes, cycles=per_size(swept.ticks), ns=per_size(swept.ns), refined=swept.refined,
                      samples_cycles=swept.ticks, samples_ns=swept.ns, accesses_per_sample=swept.accesses,
                      placements=swept.placements, bandwidth_sizes=bw_sizes, bandwidth_samples=bw_samples,
                      bandwidth=bandwidth_per_size(bw_samples) if bw_sizes.size else np.zeros(0),
                      parameters=params)
