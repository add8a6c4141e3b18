"""Run the mcalibrator sweep on this machine (Servet 2010, Fig. 1).

The timed loops are in C (hpcbench._core.traverse); this module chooses the
sizes, binds the thread, repeats, and keeps every raw sample.

Repetition design: the whole list of sizes is swept `passes` times, each
pass allocating every array anew. A noisy burst from another tenant then
touches one pass of a few sizes instead of a contiguous stretch of the curve,
and each pass draws a new virtual-to-physical page placement, so the value
per size estimates the expected miss rate that the probabilistic model
predicts. Within a pass the sizes are visited in a new random order.
Interference from other work only ever adds time, so per pass
(one placement) the minimum of `samples` timings is kept; across passes,
whose placements differ, the 20%-trimmed mean. Sizes added by refinement are
measured in new passes together with the first sweep's sizes of the same
rise, so that neighbouring points share the same conditions.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import trim_mean

from .. import _core, _validate
from .._errors import OptionError
from .._format import format_size
from .._protocol import check_ranges
from .._memory import SAFE_MEMORY_SHARE, page_mode, safe_memory_limit
from ..topology import Topology, bound_to
from ._analysis import refinement_sizes
from ._options import CacheOptions

ORDERS = {"sequential": _core.ORDER_SEQUENTIAL, "random": _core.ORDER_RANDOM, "windowed": _core.ORDER_WINDOWED}
_D = CacheOptions()
#: "auto" order picks windowed when the sequential traversal of the largest
#: array is faster than this fraction of the random one: a prefetcher follows
#: the constant stride and the curve would show no memory level.
PREFETCH_RATIO = 0.5


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


def sweep_sizes(min_size: int, max_size: int, stride: int) -> np.ndarray:
    """The paper's grid: doubling from min_size up to 2 MiB, then 1 MiB steps."""
    sizes, s = [], min_size
    while s < (2 << 20) and s <= max_size:
        sizes.append(s)
        s *= 2
    s = max(-(-s // (1 << 20)) * (1 << 20), 2 << 20)
    while s <= max_size:
        sizes.append(s)
        s += 1 << 20
    return np.array([x for x in sizes if x % stride == 0], dtype=np.int64)


def check_parameters(min_size: int, max_size: int, stride: int, passes: int, samples: int, order: str, pages: str,
                     min_accesses: int, window: int = _D.window) -> tuple[int, int, int]:
    """Validate measure()'s arguments; raises OptionError naming the parameter.

    The traversal's own rules (the stride, an array a multiple of it that
    int offsets can span, the accesses and samples per size, the window) are
    the C kernel's, stated once in its check (_core.traverse_check) and
    applied here to the smallest and the largest array. What this adds is
    the sweep's: the range, the memory it may take, the passes, and the
    names of orders and page kinds."""
    check_ranges(CacheOptions, passes=passes, samples=samples)
    if order not in ("auto",) + tuple(ORDERS):
        raise OptionError("order", f"must be auto, sequential, random or windowed, got {order!r}")
    kernel_order = ORDERS["windowed" if order == "auto" else order]   # auto may choose windowed

    def kernel_rules(name: str, size: int) -> None:
        with _validate.c_rules({"array_bytes": name, "stride_bytes": "stride", "window_bytes": "window",
                                "page_mode": "pages"}):
            _core.traverse_check(size, stride, order=kernel_order, min_accesses=min_accesses, samples=samples,
                                 page_mode=page_mode(pages), window_bytes=window)

    kernel_rules("min_size", min_size)
    if max_size < min_size:
        raise OptionError("max_size", f"must not be below min_size ({min_size} bytes), got {max_size}")
    limit = safe_memory_limit()
    if max_size > limit:
        raise OptionError("max_size", f"must fit in {SAFE_MEMORY_SHARE:.0%} of available memory "
                                      f"({format_size(limit)}), got {format_size(max_size)}")
    kernel_rules("max_size", max_size)
    count = sweep_sizes(min_size, max_size, stride).size
    if count < 3:
        raise OptionError("max_size", f"must leave at least 3 sizes in the sweep from {min_size} bytes, "
                                      f"got {max_size} ({count} sizes)")
    return int(min_size), int(max_size), int(stride)


def check_pu(pu: int, topology: Topology) -> int:
    """The PU to bind the sweep to must be one hwloc lists for this process."""
    if pu not in topology.pu_indexes:
        raise OptionError("pu", f"must be one of this machine's PUs {topology.pu_indexes}, got {pu!r}")
    return int(pu)


def robust_mean(per_pass: np.ndarray, trim: float = 0.2) -> np.ndarray:
    """Mean over the last axis without the `trim` share at each end (SciPy's trimmed mean)."""
    return np.asarray(trim_mean(per_pass, trim, axis=-1))


def _neighbours_extra(sizes, i, extra):
    """True if a refined size lies between sizes[i] and one of its neighbours."""
    lo = sizes[i - 1] if i > 0 else sizes[i]
    hi = sizes[i + 1] if i + 1 < sizes.size else sizes[i]
    return bool(np.any((extra > lo) & (extra < hi)))


def per_size(samples: np.ndarray) -> np.ndarray:
    """(sizes, passes, samples) -> one value per size: the minimum of each
    pass, then the trimmed mean across the passes a size has (passes a size
    did not get are NaN)."""
    out = np.empty(samples.shape[0])
    for i, row in enumerate(samples):
        mins = row.min(axis=1)
        out[i] = robust_mean(mins[np.isfinite(mins)][None, :])[0]
    return out


def choose_order(max_size: int, stride: int, pages: str, min_accesses: int) -> tuple[str, dict]:
    """Time the largest array both ways; see PREFETCH_RATIO."""
    common = dict(min_accesses=min_accesses, warmup=1, samples=3, page_mode=page_mode(pages))
    seq = float(np.median(_core.traverse(max_size, stride, order=_core.ORDER_SEQUENTIAL, **common)[0]))
    rnd = float(np.median(_core.traverse(max_size, stride, order=_core.ORDER_RANDOM, seed=7, **common)[0]))
    order = "windowed" if seq < PREFETCH_RATIO * rnd else "sequential"
    return order, {"sequential_cycles": seq, "random_cycles": rnd, "size": max_size}


def _measure_sizes(sizes, stride, order, pages, passes, samples, min_accesses, warmup, seed, progress, label,
                   window):
    shape = (len(sizes), passes, samples)
    cyc, ns = np.empty(shape), np.empty(shape)
    acc = np.zeros(len(sizes), dtype=np.int64)
    order_rng = np.random.default_rng(seed)
    for p in range(passes):
        # A new random order of the sizes every pass: a burst of interference
        # then hits scattered sizes instead of bending a stretch of the curve.
        for i in map(int, order_rng.permutation(len(sizes))):
            size = sizes[i]
            t, n, a = _core.traverse(int(size), stride, order=ORDERS[order], seed=seed + 7919 * p + i,
                                     min_accesses=min_accesses, warmup=warmup, samples=samples,
                                     page_mode=page_mode(pages), window_bytes=window)
            cyc[i, p], ns[i, p], acc[i] = t, n, a
        if progress:
            progress(f"{label}: pass {p + 1}/{passes} done")
    return cyc, ns, acc


def measure(min_size: int = _D.min_size, max_size: int | None = _D.max_size, stride: int = _D.stride,
            order: str = _D.order, passes: int = _D.passes, samples: int = _D.samples,
            min_accesses: int = _D.min_accesses, warmup: int = _D.warmup, pu: int | None = _D.pu,
            pages: str = _D.pages, refine: bool = _D.refine, seed: int = _D.seed, window: int = _D.window,
            topology: Topology | None = None, progress: Callable[[str], None] | None = None) -> CacheSweep:
    """Sweep array sizes and time dependent loads through them.

    Sizes (bytes) double from min_size up to 2 MiB, then grow by 1 MiB up to
    max_size (default: about twice the largest cache hwloc reports). The
    calling thread is bound to `pu` (default: the first PU it may use) and
    the binding is restored afterwards. order: "sequential" (Servet's constant
    stride), "random" (one random cycle through the same stride-spaced slots)
    or "auto" (random only where a prefetcher follows the stride). pages:
    "normal" (default: base pages, as the probabilistic model assumes),
    "huge" or "system". refine adds sizes inside each rise of the first sweep.
    Returns a CacheSweep; `sizes, cycles = measure()` also works.
    """
    topology = topology or Topology.load()
    if max_size is None:
        max_size = default_max_size(topology)
    min_size, max_size, stride = check_parameters(min_size, max_size, stride, passes, samples, order,
                                                  pages, min_accesses, window)
    _validate.non_negative_int("warmup", warmup)
    if pu is None:
        pu = _core.thread_binding()[0]
    check_pu(pu, topology)
    sizes = sweep_sizes(min_size, max_size, stride)

    with bound_to(pu):
        probe = None
        if order == "auto":
            order, probe = choose_order(int(sizes[-1]), stride, pages, min_accesses)
        cyc, ns, acc = _measure_sizes(sizes, stride, order, pages, passes, samples, min_accesses, warmup,
                                      seed, progress, "cache sweep", window)
        refined = np.zeros(sizes.size, dtype=bool)
        if refine:
            extra = refinement_sizes(sizes, per_size(cyc), stride=stride)
            if extra.size:
                # Base sizes inside the refined ranges are measured again in
                # the same passes; their two sets of passes are pooled.
                again = np.array([i for i in range(sizes.size) if _neighbours_extra(sizes, i, extra)], dtype=int)
                todo = np.concatenate([extra, sizes[again]])
                c2, n2, a2 = _measure_sizes(todo, stride, order, pages, passes, samples, min_accesses,
                                            warmup, seed + 1, progress, "refinement", window)
                k = extra.size
                pooled_c = np.concatenate([cyc, np.full_like(cyc, np.nan)], axis=1)
                pooled_n = np.concatenate([ns, np.full_like(ns, np.nan)], axis=1)
                pooled_c[again, passes:], pooled_n[again, passes:] = c2[k:], n2[k:]
                extra_c = np.concatenate([c2[:k], np.full_like(c2[:k], np.nan)], axis=1)
                extra_n = np.concatenate([n2[:k], np.full_like(n2[:k], np.nan)], axis=1)
                sizes = np.concatenate([sizes, extra])
                cyc, ns = np.concatenate([pooled_c, extra_c]), np.concatenate([pooled_n, extra_n])
                acc = np.concatenate([acc, a2[:k]])
                refined = np.concatenate([refined, np.ones(k, dtype=bool)])
                keep = np.argsort(sizes, kind="stable")
                sizes, cyc, ns, acc, refined = sizes[keep], cyc[keep], ns[keep], acc[keep], refined[keep]

    params = {"min_size": min_size, "max_size": max_size, "stride": stride, "order": order,
              "order_requested": "auto" if probe else order, "order_probe": probe, "passes": passes,
              "samples": samples, "min_accesses": min_accesses, "warmup_traversals": warmup, "pu": pu,
              "pages": pages, "page_size": os.sysconf("SC_PAGE_SIZE") if pages != "huge" else 2 << 20,
              "refine": refine, "seed": seed, "window": window}
    return CacheSweep(sizes=sizes, cycles=per_size(cyc), ns=per_size(ns), refined=refined,
                      samples_cycles=cyc,
                      samples_ns=ns, accesses_per_sample=acc, parameters=params)
