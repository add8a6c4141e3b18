"""The NUMA cells measured: the C kernel (_core.numa_cell) on a team of one
node's cores over a buffer bound to one node, and the checks made before
anything runs (the kernel's own rules, stated once in C; the memory there is).

Bandwidth is bytes read (each member reads its slice once per repetition;
no write, so no write-allocate traffic), all members' bytes over the time
from the first start to the last end of a repetition, in bytes/s. Latency
is ns per dependent load of one core.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from .. import _core, _validate
from .._errors import OptionError
from .._format import format_size
from .._memory import page_mode, safe_memory_limit
from ..topology import Topology
from ._options import NumaOptions
from ._plan import NumaPlan

_D = NumaOptions()
#: The buffer is at least this many times the caches that could hold it.
CACHE_MULTIPLE = 4
#: The chase's visiting order: random within windows of this many bytes,
#: windows in random order (as the cache sweep over base pages), so the
#: latency is the memory's and not a page walk's on every load.
WINDOW_BYTES = 128 << 10


def chase_bytes(topology: Topology) -> int:
    """Bytes one core chases: 4 times the largest data cache hwloc reports,
    at least 64 MiB (the memory benchmark's array size)."""
    from ..memory import default_array_bytes
    return default_array_bytes(topology)


def team_cache_bytes(topology: Topology, pus: Sequence[int]) -> int:
    """The most cache the team `pus` holds at one level: per level, the sizes
    of the data caches that any of them uses, added; the largest sum."""
    team, sums = set(pus), dict[int, int]()
    for c in topology.caches:
        if c.kind != "instruction" and team & set(c.pus):
            sums[c.level] = sums.get(c.level, 0) + c.size
    return max(sums.values(), default=0)


def default_buffer_bytes(topology: Topology, plan: NumaPlan | None = None) -> int:
    """The buffer the teams read: the chase's size (4 x the largest cache,
    at least 64 MiB), or 4 times the most cache a team of the plan holds at
    one level where that is more (a node of many last-level caches), so that
    no member's slice fits in its share; rounded up to a MiB."""
    teams = plan.readers.values() if plan is not None else [topology.pu_indexes]
    need = max([chase_bytes(topology)] + [CACHE_MULTIPLE * team_cache_bytes(topology, t) for t in teams])
    return -(-need // (1 << 20)) * (1 << 20)


def round_buffer(size: int, members: int) -> int:
    """`size` rounded down to whole 64-byte lines per member (at least two)."""
    unit = 64 * members
    return max(size // unit, 2) * unit


def check_numa(size: int, members: int, repetitions: int = _D.repetitions, accesses: int = _D.accesses,
               pages: str = _D.pages) -> None:
    """The kernel's rules (sizes, counts, page kind), named as the options."""
    with _validate.c_rules({"buffer_bytes": "size", "page_mode": "pages", "samples": "repetitions"}):
        _core.numa_check(members, size, repetitions, samples=repetitions, accesses=accesses,
                         page_mode=page_mode(pages))


def check_memory(size: int, topology: Topology, plan: NumaPlan, limit: int | None = None) -> None:
    """One buffer at a time: it must fit in the safe share of the memory
    available now and in the memory of every chosen node (where hwloc
    knows it). OptionError ("size") otherwise, before anything runs."""
    limit = safe_memory_limit() if limit is None else limit
    if size > limit:
        raise OptionError("size", f"must fit in the {format_size(limit)} that may be used now, got "
                                  f"{format_size(size)}")
    for node in topology.numa_nodes:
        if node.os_index in plan.nodes and 0 < node.memory < size:
            raise OptionError("size", f"must fit in NUMA node {node.os_index}'s {format_size(node.memory)}, got "
                                      f"{format_size(size)}")


class CellSamples(NamedTuple):
    """One cell's raw samples: each repetition's aggregate read bandwidth
    (bytes/s), each chase sample's ns per load, and where the pages were."""
    bandwidth: np.ndarray
    latency_ns: np.ndarray
    bytes_per_repetition: int
    isa: int
    strict: bool
    location_chunks: int
    misplaced_chunks: int


def aggregate_per_repetition(total_bytes: float, start_ns: np.ndarray, end_ns: np.ndarray) -> np.ndarray:
    """Per repetition (columns), all members' bytes over the first start to
    the last end (arrays members x repetitions)."""
    span = np.max(end_ns, axis=0) - np.min(start_ns, axis=0)
    return total_bytes / (span * 1e-9)


def measure_cell(readers: Sequence[int], node: int, size: int, repetitions: int = _D.repetitions,
                 accesses: int = _D.accesses, pages: str = _D.pages, seed: int = _D.seed,
                 chased: int | None = None) -> CellSamples:
    """Read bandwidth of `readers` together over a buffer of `size` bytes
    bound to NUMA node `node`, and latency of readers[0] over its first
    `chased` bytes (None: all of it)."""
    size = round_buffer(size, len(readers))
    chased = size if chased is None else min(size, max(chased // 64, 2) * 64)
    _ns, start, end, latency, slice_bytes, isa, strict, chunks, misplaced = _core.numa_cell(
        list(readers), node, size, repetitions, samples=repetitions, accesses=accesses, order=_core.ORDER_WINDOWED,
        window_bytes=WINDOW_BYTES, seed=seed, page_mode=page_mode(pages), chase_bytes=chased)
    total = slice_bytes * len(readers)
    return CellSamples(aggregate_per_repetition(total, start, end), latency, total, isa, bool(strict), chunks,
                       misplaced)


def measure_plan(plan: NumaPlan, size: int, chased: int, repetitions: int = _D.repetitions,
                 accesses: int = _D.accesses, pages: str = _D.pages, seed: int = _D.seed,
                 progress: Callable[[str], None] | None = None) -> dict[tuple[int, int], CellSamples]:
    """Every cell of the plan, rows first: reads of `size` bytes, a chase
    over the first `chased`."""
    out = {}
    for i, j in plan.cells:
        if progress:
            progress(f"numa: cores of node {i} on memory of node {j}")
        out[(i, j)] = measure_cell(plan.readers[i], j, size, repetitions, accesses, pages, seed, chased)
    return out
