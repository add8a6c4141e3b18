"""The cache sweep's options resolved and checked, once: this machine's
defaults filled in (the largest size, the stride) and every rule checked
against this machine, before anything is measured. The cache benchmark's
resolve (at the command line's check) and measure() (called from a
script) both come here; what they get back, CheckedCacheOptions, measure
takes as it is."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .. import _core, _validate
from .._errors import OptionError
from .._format import format_size
from .._memory import SAFE_MEMORY_SHARE, page_mode, safe_memory_limit
from .._protocol import check_ranges
from ..topology import Topology
from ._grid import sweep_sizes
from ._options import GRID_CHOICES, CacheOptions

ORDERS = {"sequential": _core.ORDER_SEQUENTIAL, "random": _core.ORDER_RANDOM, "windowed": _core.ORDER_WINDOWED}
ISAS = {"auto": _core.ISA_AUTO, "scalar": _core.ISA_SCALAR, "sse2": _core.ISA_SSE2, "avx2": _core.ISA_AVX2,
        "avx512": _core.ISA_AVX512}


@dataclass(frozen=True)
class CheckedCacheOptions(CacheOptions):
    """CacheOptions as resolve_options returns them: max_size and stride
    hold this machine's defaults where they were None, and every rule was
    checked against this machine (the PU too, where one is given; None: the
    sweep binds to the first PU it may use, and checks that one). measure()
    takes them as they are. Made by resolve_options only: a copy changed
    with dataclasses.replace is not checked again (the C kernel still
    refuses what breaks its own rules)."""

    @property
    def sweep_max(self) -> int:
        """The largest size of the base sweep (bytes)."""
        assert self.max_size is not None, "resolve_options sets max_size"
        return self.max_size

    @property
    def sweep_stride(self) -> int:
        """The distance between the slots a chase visits (bytes)."""
        assert self.stride is not None, "resolve_options sets stride"
        return self.stride


def resolve_options(options: CacheOptions, topology: Topology) -> CheckedCacheOptions:
    """`options` with max_size (default: default_max_size) and stride
    (default: default_stride of the PU given, or of every PU where none is)
    resolved, and every rule checked: the PU given, and check_parameters.
    Raises OptionError naming the option."""
    if options.pu is not None:
        check_pu(options.pu, topology)
    values: dict[str, Any] = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
    if options.max_size is None:
        values["max_size"] = default_max_size(topology)
    if options.stride is None:
        values["stride"] = default_stride(topology, options.pu)
    resolved = CheckedCacheOptions(**values)
    check_parameters(resolved)
    return resolved


def default_max_size(topology: Topology) -> int:
    """About twice the largest data cache hwloc reports (64 MiB if none),
    a multiple of 1 MiB, within the safe share of available memory."""
    largest = largest_cache(topology)
    target = 2 * largest if largest else 64 << 20
    target = -(-target // (1 << 20)) * (1 << 20)
    return min(target, max(safe_memory_limit() // (1 << 20), 4) * (1 << 20))


def largest_cache(topology: Topology) -> int | None:
    """Bytes of the largest data or unified cache hwloc reports, if any."""
    caches = [c.size for c in topology.caches if c.kind != "instruction"]
    return max(caches) if caches else None


def default_stride(topology: Topology, pu: int | None = None) -> int:
    """One slot per line of the cache with the longest lines among those of
    `pu` (of every PU where None; hwloc's line sizes; 64 bytes if it
    reports none). A cache with shorter lines then sees one slot in every
    few of its lines, in as few of its sets: the capacity a chase fills is
    still its size, so every edge stays where it is, while no line holds
    two slots (which would turn half the misses of a long-line cache into
    hits)."""
    caches = topology.data_caches_of(pu) if pu is not None else [c for c in topology.caches
                                                                 if c.kind != "instruction"]
    lines = [c.line_size for c in caches if c.line_size > 0]
    return int(max(lines)) if lines else 64


def check_pu(pu: int, topology: Topology) -> int:
    """The PU to bind the sweep to must be one hwloc lists for this process."""
    if pu not in topology.pu_indexes:
        raise OptionError("pu", f"must be one of this machine's PUs {topology.pu_indexes}, got {pu!r}")
    return int(pu)


def check_parameters(options: CheckedCacheOptions) -> None:
    """Check the sweep's options; raises OptionError naming the option.

    The chase's own rules (the stride, sizes that are multiples of it, the
    accesses and samples per size, the window) are the C kernel's, stated
    once in its check (_core.chase_check) and applied here to the smallest
    and the largest size. What this adds is the sweep's: the range, the
    memory it may take, the passes, the warm-up, the grid, and the names of
    orders, page kinds and instruction sets."""
    o = options
    check_ranges(CacheOptions, passes=o.passes, samples=o.samples)
    if o.order not in ("auto",) + tuple(ORDERS):
        raise OptionError("order", f"must be auto, sequential, random or windowed, got {o.order!r}")
    if o.grid not in GRID_CHOICES:
        raise OptionError("grid", f"must be fine or servet, got {o.grid!r}")
    if o.isa not in ISAS:
        raise OptionError("isa", f"must be one of {', '.join(ISAS)}, got {o.isa!r}")
    if not _core.load_supported(ISAS[o.isa]):
        raise OptionError("isa", f"must be an instruction set this CPU supports, got {o.isa}")
    _kernel_rules(o, "min_size", o.min_size)
    if o.sweep_max < o.min_size:
        raise OptionError("max_size", f"must not be below min_size ({o.min_size} bytes), got {o.sweep_max}")
    limit = safe_memory_limit()
    if o.sweep_max > limit:
        raise OptionError("max_size", f"must fit in {SAFE_MEMORY_SHARE:.0%} of available memory "
                                      f"({format_size(limit)}), got {format_size(o.sweep_max)}")
    _kernel_rules(o, "max_size", o.sweep_max)
    count = sweep_sizes(o.min_size, o.sweep_max, o.sweep_stride, o.grid).size
    if count < 3:
        raise OptionError("max_size", f"must leave at least 3 sizes in the sweep from {o.min_size} bytes, "
                                      f"got {o.sweep_max} ({count} sizes)")
    _validate.non_negative_int("warmup", o.warmup)


def _kernel_rules(o: CheckedCacheOptions, name: str, size: int) -> None:
    """The C kernel's check of a chase over `size` bytes (the option `name`)."""
    kernel_order = ORDERS["windowed" if o.order == "auto" else o.order]   # auto may choose windowed
    with _validate.c_rules({"buffer_bytes": name, "sizes": name, "stride_bytes": "stride",
                            "window_bytes": "window", "page_mode": "pages"}):
        _core.chase_check(size, [size], o.sweep_stride, order=kernel_order, min_accesses=o.min_accesses,
                          samples=o.samples, page_mode=page_mode(o.pages), window_bytes=o.window)
