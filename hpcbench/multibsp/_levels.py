"""The memory levels an inner product's slices can sit in, and which one a
slice of a given size sits in (pure functions of the topology).

MultiBSP prices a leaf's computation at one rate r per processor. A leaf's
loop over its slice runs at the rate of the memory the slice sits in: on a
2-vCPU EPYC guest the inner product's loop runs 16 Gflop/s from L1, L2 or
L3 and 8 from memory, twice DAXPY's 6 in L1 (docs/multibsp.md). So the
prediction takes r per memory level, measured with every leaf running at
once (`hpcbench._core.sumsq_rate`), and the level each leaf's slice sits in."""
from __future__ import annotations

from dataclasses import dataclass

from ..topology import Topology

#: The slice measured in memory is this many times the largest cache's share
#: of a thread: far beyond any cache, so the rate is memory's.
MEMORY_SLICE_FACTOR = 4
#: Slices measured in a cache fill this share of the thread's part of it:
#: the rest holds the stack, the team and the other data a leaf touches.
CACHE_SLICE_SHARE = 0.5


@dataclass(frozen=True)
class MemoryLevel:
    """One level of memory as the team's threads see it."""
    name: str          #: "L1", "L2", "L3", ..., "memory"
    size: int          #: bytes of one instance (the smallest, if they differ); memory: all of RAM
    sharing: int       #: team threads on one instance (the most on any instance)

    def fits(self, slice_bytes: float) -> bool:
        """Do the slices of the threads sharing one instance fit in it together?"""
        return self.name == "memory" or slice_bytes * self.sharing <= self.size


def memory_levels(topology: Topology, pus: list[int]) -> list[MemoryLevel]:
    """The data caches that serve the team `pus`, level by level, then
    memory. A level's size is its smallest instance serving a team PU; its
    sharing, the most team PUs one instance serves."""
    team = set(pus)
    by_level: dict = {}
    for c in topology.caches:
        served = team.intersection(c.pus)
        if c.kind == "instruction" or c.size <= 0 or not served:
            continue
        size, sharing = by_level.get(c.level, (c.size, 0))
        by_level[c.level] = (min(size, int(c.size)), max(sharing, len(served)))
    levels = [MemoryLevel(f"L{k}", size, sharing) for k, (size, sharing) in sorted(by_level.items())]
    ram = sum(int(n.memory) for n in topology.numa_nodes)
    return levels + [MemoryLevel("memory", ram, len(team))]


def level_of_slice(levels: list[MemoryLevel], slice_bytes: float) -> MemoryLevel:
    """The smallest level in which every thread's slice of slice_bytes fits
    (with the slices of the threads sharing it); memory if none."""
    return next(lv for lv in levels if lv.fits(slice_bytes))


def rate_slice_doubles(levels: list[MemoryLevel], index: int) -> int:
    """Doubles per thread of the slice that measures the rate of level
    `index`: CACHE_SLICE_SHARE of the thread's share of a cache (at least
    the level below's whole share, so it is not served from there), or
    MEMORY_SLICE_FACTOR times the largest cache's share for memory. A
    multiple of 4 (the loop's unrolling) and at least 64."""
    lv = levels[index]
    if lv.name == "memory":
        caches = levels[:index]
        largest = max((c.size / c.sharing for c in caches), default=1 << 20)
        doubles = MEMORY_SLICE_FACTOR * largest / 8
    else:
        share = lv.size / lv.sharing
        below = levels[index - 1].size / levels[index - 1].sharing if index > 0 else 0
        doubles = max(CACHE_SLICE_SHARE * share, below) / 8
    return max(64, int(doubles) // 4 * 4)
