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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core
from .._memory import page_mode, safe_memory_limit
from ..topology import Topology, bound_to
from ._grid import sweep_sizes
from ._options import CacheOptions
from ._passes import Passes, PassPlan, extension_limit, run_passes
from ._placement import Placement, classify, virtual_machine
from ._resolve import ISAS, ORDERS, CheckedCacheOptions, check_pu, largest_cache, resolve_options
from ._robust import bandwidth_per_size, per_size

ISA_NAMES = {v: k for k, v in ISAS.items()}
#: Bytes read per bandwidth sample, at least: tens of microseconds even in L1.
LOAD_MIN_BYTES = 32 << 20
#: Load sizes are whole 64-byte blocks (the C kernel's rule).
LOAD_BLOCK = 64
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass
class CacheSweep:
    """What measure() returns. Unpacks as (sizes, cycles) for scripts."""

    sizes: IntArray              #: bytes, increasing
    cycles: FloatArray           #: TSC ticks per access (robust mean over passes)
    ns: FloatArray               #: nanoseconds per access
    refined: npt.NDArray[np.bool_]  #: True for sizes added by refinement
    samples_cycles: FloatArray   #: raw, shape (sizes, passes, samples); NaN = pass not run
    samples_ns: FloatArray       #: raw, same shape
    accesses_per_sample: IntArray
    placements: list[Placement] = field(default_factory=list)        #: one Placement per chase buffer
    bandwidth_sizes: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: bytes/s, shape (sizes, passes, samples)
    bandwidth_samples: FloatArray = field(default_factory=lambda: np.zeros((0, 0, 0)))
    bandwidth: FloatArray = field(default_factory=lambda: np.zeros(0))     #: bytes/s per size
    parameters: dict[str, Any] = field(default_factory=dict)

    def __iter__(self) -> Iterator[npt.NDArray[Any]]:
        return iter((self.sizes, self.cycles))


@dataclass
class _Chase:
    """Every chase call of one sweep: its options, and the visiting order
    (`auto` becomes one once the probe has told the placement)."""

    options: CheckedCacheOptions
    order: str
    vm: str | None

    def run(self, buffer_bytes: int, sizes: IntArray, seed: int) -> tuple[Any, Any, Any, Placement]:
        """Time `sizes` (in the order given) on one new buffer: (ticks,
        ns, accesses) per size in that order, and the buffer's Placement."""
        o = self.options
        ticks, ns, accesses, frames, _known, huge = _core.chase_sweep(
            int(buffer_bytes), [int(s) for s in sizes], o.sweep_stride, order=ORDERS[self.order], seed=seed,
            window_bytes=o.window, min_accesses=o.min_accesses, warmup=o.warmup, samples=o.samples,
            page_mode=page_mode(o.pages), long_slots=o.long_slots)
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


def measure(options: CacheOptions | None = None, *, topology: Topology | None = None,
            progress: Callable[[str], None] | None = None, **keywords: Any) -> CacheSweep:
    """Sweep sizes: the latency of a pointer chase through every slot of a
    prefix of one buffer, and (bandwidth=True) the read bandwidth of
    streaming loads over the same sizes.

    options (CacheOptions), each field of which may also be given as a
    keyword (min_size=, max_size=, stride=, order=, passes=, samples=, pu=,
    pages=, refine=, extend=, grid=, bandwidth=, isa=, min_accesses=,
    warmup=, seed=, window=, long_slots=), overriding `options`; they are
    resolved and checked first (resolve_options), unless they are
    CheckedCacheOptions already and no keyword changes them.

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
    if keywords or not isinstance(options, CheckedCacheOptions):
        options = resolve_options(replace(options or CacheOptions(), **keywords), topology)
    pu = options.pu if options.pu is not None else check_pu(_core.thread_binding()[0], topology)
    sizes = sweep_sizes(options.min_size, options.sweep_max, options.sweep_stride, options.grid)
    # The extension's buffers must fit in memory as max_size's did.
    largest = largest_cache(topology)
    plan = PassPlan(options.passes, options.samples, options.sweep_stride, options.refine, options.seed,
                    extend_to=extension_limit(largest, safe_memory_limit()) if options.extend else 0,
                    cache_top=largest)
    # The probe's order does not matter (it times one small size): windowed
    # until the probe has told what `auto` becomes.
    chase = _Chase(options, "windowed" if options.order == "auto" else options.order, virtual_machine())
    with bound_to(pu):
        # A first buffer of the full size, timed at one small size only,
        # tells the placement the order depends on.
        *_, probe = chase.run(int(sizes[-1]), sizes[:1], options.seed)
        chase.order = choose_order(options.order, probe)
        swept = run_passes(lambda todo, s: chase.run(int(np.max(todo)), todo, s), sizes, plan, progress)
        bandwidth = _bandwidth(swept.sizes[~swept.refined], options, progress)
    return _sweep(swept, bandwidth, _parameters(options, swept, plan, chase.order, pu))


def _bandwidth(sizes: IntArray, options: CacheOptions,
               progress: Callable[[str], None] | None) -> tuple[IntArray, FloatArray, str]:
    """measure_bandwidth over the base sizes where options.bandwidth asks
    for it; empty arrays and no instruction set otherwise."""
    if not options.bandwidth:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0, 0)), ""
    measured = measure_bandwidth(sizes, options.passes, options.samples, options.pages, options.isa)
    if progress:
        progress("cache sweep: read bandwidth measured")
    return measured


def _parameters(options: CheckedCacheOptions, swept: Passes, plan: PassPlan, order: str, pu: int) -> dict[str, Any]:
    """The record's parameters of a sweep: what it ran with."""
    limit = plan.extend_to
    return {"min_size": options.min_size, "max_size": options.sweep_max, "stride": options.sweep_stride,
            "order": order, "order_requested": options.order, "passes": options.passes, "samples": options.samples,
            "min_accesses": options.min_accesses, "warmup_traversals": options.warmup, "pu": pu,
            "pages": options.pages, "page_size": os.sysconf("SC_PAGE_SIZE"), "refine": options.refine,
            "seed": options.seed, "window": options.window, "grid": options.grid, "kernel": "chase",
            "long_slots": options.long_slots, "extend": options.extend,
            "extend_limit": limit if limit > options.sweep_max else None,
            "extended_to": int(swept.sizes[swept.extended][-1]) if swept.extended.any() else None}


def _sweep(swept: Passes, bandwidth: tuple[IntArray, FloatArray, str], parameters: dict[str, Any]) -> CacheSweep:
    """The CacheSweep of the pooled passes and the bandwidth measured."""
    bw_sizes, bw_samples, isa_used = bandwidth
    return CacheSweep(sizes=swept.sizes, cycles=per_size(swept.ticks), ns=per_size(swept.ns), refined=swept.refined,
                      samples_cycles=swept.ticks, samples_ns=swept.ns, accesses_per_sample=swept.accesses,
                      placements=swept.placements, bandwidth_sizes=bw_sizes, bandwidth_samples=bw_samples,
                      bandwidth=bandwidth_per_size(bw_samples) if bw_sizes.size else np.zeros(0),
                      parameters={**parameters, "isa": isa_used or None})
