"""Which working sets the bandwidth benchmark measures: one well inside
each cache level of the core that runs them (likwid-bench's practice: half
the level), and memory by STREAM's rule (4 x the last-level caches the run
uses), all from hwloc's caches; or the sizes the user gave."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._format import format_size
from ..topology import Topology

#: A level's working set is this share of its size: well inside it, leaving
#: room for the code, the stack and the lines of other levels' policies.
LEVEL_SHARE = 0.5
#: STREAM's rule: arrays of at least this many times the last-level caches.
MEMORY_MULTIPLE = 4
#: The memory working set without any cache reported (bytes).
NO_CACHE_MEMORY = 64 << 20
MIB = 1 << 20


@dataclass(frozen=True)
class Level:
    """One working set to measure: its label ("L1", "L2", ..., "memory",
    or the size the user gave) and its bytes (all arrays together)."""
    label: str
    size: int


def level_sizes(topology: Topology, pu: int) -> list[Level]:
    """Half of each data cache level serving `pu` (but above the level
    below, so the set does not fit there), then memory."""
    out: list[Level] = []
    below = 0
    for cache in topology.data_caches_of(pu):
        size = int(cache.size * LEVEL_SHARE)
        if size <= below:          # a level hardly larger than the one below: halfway between them
            size = (below + cache.size) // 2
        if size > below:
            out.append(Level(f"L{cache.level}", size))
            below = cache.size
    out.append(Level("memory", memory_size(topology, [pu])))
    return out


def memory_size(topology: Topology, pus: list[int]) -> int:
    """MEMORY_MULTIPLE times the last-level caches serving `pus` (each such
    cache once), rounded up to a MiB: the working set that no cache holds."""
    last: dict = {}
    for pu in pus:
        caches = topology.data_caches_of(pu)
        if caches:
            last[(caches[-1].level, caches[-1].pus)] = caches[-1].size
    if not last:
        return NO_CACHE_MEMORY
    size = MEMORY_MULTIPLE * sum(last.values())
    return -(-size // MIB) * MIB


def given_sizes(sizes: list[int]) -> list[Level]:
    """The user's sizes, labelled by themselves, in the order given."""
    return [Level(format_size(s), int(s)) for s in sizes]


def default_team(topology: Topology, cores: list[int] | None) -> list[int]:
    """The PUs that run memory together: those given, else the first PU of
    every core this process may use (one per core: two hardware threads of
    one core share its load and store ports)."""
    if cores is not None:
        return list(cores)
    allowed = set(topology.pu_indexes)
    first = [min(p for p in core.pus if p in allowed) for core in topology.cores if allowed & set(core.pus)]
    return first or topology.pu_indexes[:1]


def plan_levels(options: Any, topology: Topology, team: list[int]) -> tuple[list[Level], int]:
    """The working sets of the team's first core (options.sizes, else
    level_sizes), and the team's per core for memory (0 without a team):
    memory_size of the team, or the largest size given, shared out."""
    levels = given_sizes(options.sizes) if options.sizes else level_sizes(topology, team[0])
    if len(team) < 2:
        return levels, 0
    total = max(options.sizes) if options.sizes else memory_size(topology, team)
    return levels, total // len(team)
