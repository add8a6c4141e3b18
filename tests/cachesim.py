"""A simulator of set-associative LRU cache hierarchies traversed by mcalibrator.

It produces the cycles-per-access curve that Servet's kernel would measure on
a machine whose caches are known, so the analysis can be tested against known
answers. Two pieces:

* `lru_misses` runs a true LRU cache access by access (slow, exact);
* `traversal_cycles` uses the closed form for a cyclic traversal under LRU: a
  line hits at the first level whose set holds at most K of the traversed
  lines, and misses everywhere else. A test checks the two agree.

L1 is indexed by virtual address; lower levels by physical address, with
every virtual page placed on a random physical page, as Linux does without
page colouring.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Cache:
    size: int          # bytes
    ways: int
    line: int = 64     # bytes
    latency: float = 4.0  # cycles of a hit at this level
    physical: bool = True

    @property
    def sets(self) -> int:
        return self.size // (self.ways * self.line)


@dataclass(frozen=True)
class Machine:
    name: str
    caches: tuple
    memory_latency: float
    page_size: int = 4096

    def sizes(self) -> list:
        return [c.size for c in self.caches]


# The paper's four machines (Servet 2010, section IV). Latencies are typical
# of each generation; the analysis must not depend on them.
DEMPSEY = Machine("Dempsey", (
    Cache(16 << 10, 8, latency=4, physical=False),
    Cache(2 << 20, 8, latency=20)), memory_latency=300)
DUNNINGTON = Machine("Dunnington", (
    Cache(32 << 10, 8, latency=3, physical=False),
    Cache(3 << 20, 12, latency=12),
    Cache(12 << 20, 12, latency=45)), memory_latency=250)
ATHLON_3200 = Machine("Athlon 3200", (
    Cache(64 << 10, 2, latency=3, physical=False),
    Cache(512 << 10, 16, latency=20)), memory_latency=180)
MONTVALE = Machine("Itanium2 Montvale", (
    Cache(16 << 10, 4, latency=1, physical=False),
    Cache(256 << 10, 8, latency=6, line=128),
    Cache(9 << 20, 12, latency=14, line=128)), memory_latency=200)

PAPER_MACHINES = (DEMPSEY, DUNNINGTON, ATHLON_3200, MONTVALE)


def sweep_sizes(min_size=1024, max_size=None, machine=None):
    """mcalibrator's sizes: doubling to 2 MiB, then 1 MiB steps."""
    if max_size is None:
        max_size = 2 * max(machine.sizes())
    sizes, s = [], min_size
    while s < (2 << 20) and s <= max_size:
        sizes.append(s)
        s *= 2
    s = max(s, 2 << 20)
    while s <= max_size:
        sizes.append(s)
        s += 1 << 20
    return np.array(sizes, dtype=np.int64)


def line_addresses(array_bytes, stride, page_size, rng, physical_pages=1 << 22):
    """Virtual and physical addresses of the slots a traversal touches."""
    virt = np.arange(0, array_bytes, stride, dtype=np.int64)
    npages = -(-array_bytes // page_size)
    frames = rng.choice(physical_pages, size=npages, replace=False)
    phys = frames[virt // page_size].astype(np.int64) * page_size + virt % page_size
    return virt, phys


def traversal_cycles(machine, array_bytes, stride=1024, rng=None):
    """Mean cycles per access of a cyclic traversal, after warm-up
    (stride >= every line size)."""
    rng = rng or np.random.default_rng()
    virt, phys = line_addresses(array_bytes, stride, machine.page_size, rng)
    latency = np.full(virt.size, float(machine.memory_latency))
    resolved = np.zeros(virt.size, dtype=bool)
    for cache in machine.caches:
        addr = phys if cache.physical else virt
        sets = (addr // cache.line) % cache.sets
        # Lines per set among those that reach this level; the stride is at
        # least a line, so every slot is a distinct line.
        reach = ~resolved
        per_set = np.bincount(sets[reach], minlength=cache.sets)
        hits = reach & (per_set[sets] <= cache.ways)
        latency[hits] = cache.latency
        resolved |= hits
    return float(latency.mean())


def sweep(machine, sizes=None, stride=1024, noise=0.01, seed=0, placements=5):
    """Cycles per access for every size, with multiplicative noise: the mean
    over `placements` independent page placements, as hpcbench's measurement
    averages passes that each allocate anew."""
    rng = np.random.default_rng(seed)
    sizes = sweep_sizes(machine=machine) if sizes is None else np.asarray(sizes)
    cycles = np.array([np.mean([traversal_cycles(machine, int(s), stride, rng)
                                  for _ in range(placements)]) for s in sizes])
    cycles *= 1.0 + noise * rng.standard_normal(cycles.size)
    return sizes, cycles


def lru_misses(addresses, cache, rounds=3):
    """Misses in the last round of `rounds` cyclic passes over `addresses`,
    simulated access by access on one true LRU cache."""
    sets = [OrderedDict() for _ in range(cache.sets)]
    misses = 0
    for _ in range(rounds):
        misses = 0
        for a in addresses:
            line = int(a) // cache.line
            s = sets[line % cache.sets]
            if line in s:
                s.move_to_end(line)
            else:
                misses += 1
                s[line] = True
                if len(s) > cache.ways:
                    s.popitem(last=False)
    return misses
