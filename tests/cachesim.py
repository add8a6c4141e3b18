"""A cache-hierarchy simulator: the ground truth the cache-size estimator is tested against.

Two kernels are modelled.

The new kernel (`chase_sweep`, `chase_levels`): one buffer of B bytes per pass
(B = the largest size of the sweep), its virtual pages placed on physical
frames either `contiguous` (consecutive frames from a random page-aligned
frame) or `random` (distinct frames drawn uniformly from a large physical
memory, as Linux without page colouring does). For every size S of the pass, a
dependent-load chase visits every line of the first S bytes in one uniformly
random cycle (a new cycle per size and pass), `warmup` rounds and then
`measured` rounds; the time per access over the measured rounds is the
result. Every size starts with empty caches; the warm-up rounds make that
irrelevant (see `warmup_rounds`).

Each level is a set-associative cache indexed by virtual (VIPT L1) or physical
address with "lru", "plru" (tree pseudo-LRU, power-of-two ways only) or
"random" replacement; invalid ways are always filled first, lowest way first.
The hierarchy is non-inclusive: level i+1 sees exactly the misses of level i,
in time order, and a line that misses is filled into every level it passed
through. An access costs the hit latency of the first level that hits, or the
memory latency.

Every cache set is independent, so the simulation runs all sets (of all sizes
of a pass, batched) in lock step with NumPy: round by round, step j processes
the j-th access of the round of every set that has one (`_lockstep`). Exact
shortcuts avoid simulating sets whose fate is known (every one is tested
against the general simulation):

* a set that ever holds at most K distinct lines misses only on each line's
  first access (any policy: nothing is ever evicted);
* a set that receives every access of its cycle in every round (at a first
  level, or below a level that missed on all of them) with D > K lines, one
  access per cache line per round: under LRU it misses on every access after
  the first round (closed form); under tree-PLRU the hit pattern depends only
  on D and is computed once per (K, D) (for D >= K*K + K it is all misses: K
  consecutive misses on a full tree-PLRU set visit every way, and at most
  K - 1 of the other lines can hit between two accesses to a line); under
  random replacement with D >= `random_all_miss_lines(K)` a hit has
  probability below 1e-9 and the set is taken to miss on every access;
* the same under LRU with several accesses per cache line per round (a chase
  line smaller than the cache line): an access hits iff fewer than K distinct
  other lines came since the previous access to its line (stack distance).

API: `Cache`, `Machine` (`with_policy`), the paper's machines, size grids
`sweep_sizes` (the paper's) and `octave_sizes` (4 points per octave);
`chase_sweep` (cycles per access per size), `chase_levels` (the level serving
every access of one chase), `simulate_set(s)` (one set, any stream),
`set_miss_rate` (steady miss rate of a set on a cycle), `warmup_rounds`,
`settle_rounds`, `random_all_miss_lines`, `place_pages`.

The old kernel (`sweep`, `traversal_cycles`): mcalibrator's 1 KiB stride over
a fresh random page placement per size, under LRU, by the closed form; kept
for the estimator's existing tests. `lru_misses` is an access-by-access LRU
reference for it.
"""
from __future__ import annotations

import functools
import math
from collections import OrderedDict
from dataclasses import dataclass, replace

import numpy as np

POLICIES = ("lru", "plru", "random")

# Rounds measured after the warm-up (see `warmup_rounds` for the warm-up).
MEASURED = 2

# A hit probability below this is taken as zero (random replacement shortcut).
RANDOM_HIT_EPS = 1e-9

PHYSICAL_MEMORY = 1 << 36   # bytes of physical memory random frames are drawn from

# Lines (of all sizes of a pass) simulated together at most: bounds memory (~100 bytes a line)
BATCH_LINES = 1 << 21


@dataclass(frozen=True)
class Cache:
    size: int          # bytes
    ways: int
    line: int = 64     # bytes
    latency: float = 4.0  # cycles of a hit at this level
    physical: bool = True  # indexed by physical address (False: a VIPT L1)
    policy: str = "lru"    # "lru", "plru" (tree pseudo-LRU) or "random"

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, got {self.policy!r}")
        if self.ways < 1 or self.line < 1 or self.size < 1 or self.size % (self.ways * self.line):
            raise ValueError(f"cache size {self.size} is not a positive multiple of ways * line "
                             f"({self.ways} * {self.line})")
        if self.policy == "plru" and self.ways & (self.ways - 1):
            raise ValueError(f"tree pseudo-LRU needs a power-of-two number of ways, got {self.ways}; "
                             "use 'lru' or 'random' for this cache")

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

    def with_policy(self, policy: str, otherwise: str | None = None) -> Machine:
        """The same machine with every level's replacement policy set to
        `policy`; levels that cannot take it (tree-PLRU with ways not a power
        of two) get `otherwise` if given (else ValueError)."""
        def one(c):
            if otherwise is not None and policy == "plru" and c.ways & (c.ways - 1):
                return replace(c, policy=otherwise)
            return replace(c, policy=policy)
        return replace(self, caches=tuple(one(c) for c in self.caches))


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


# ----------------------------------------------------------------- size grids

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


def octave_sizes(min_size=1024, max_size=None, machine=None, per_octave=4, line=64):
    """`per_octave` geometric points per octave from `min_size` up to `max_size`
    (default twice the machine's largest cache), each rounded to a multiple of
    `line`; strictly increasing."""
    if max_size is None:
        max_size = 2 * max(machine.sizes())
    n = int(math.floor(per_octave * math.log2(max_size / min_size) + 1e-9))
    raw = min_size * 2.0 ** (np.arange(n + 1) / per_octave)
    sizes = np.unique(np.maximum(np.rint(raw / line), 1).astype(np.int64) * line)
    return sizes[sizes <= max_size]


# ------------------------------------------------------------ one set, any policy

def _plru_tables(ways):
    """Tree-PLRU with the K-1 bits of a heap-ordered tree (node 0 the root,
    children 2i+1 on the left and 2i+2 on the right; bit 0 means "victim on the
    left"). Returns (mask, value, victim): an access to way w sets the bits on
    its path to point away from it, state = (state & ~mask[w]) | value[w];
    victim[state] is the way found by following the bits (None when the tree
    has more than 16 bits: `_plru_victim` walks it)."""
    mask = np.zeros(ways, dtype=np.int64)
    value = np.zeros(ways, dtype=np.int64)
    for w in range(ways):
        node = ways - 1 + w
        while node:
            parent = (node - 1) // 2
            mask[w] |= 1 << parent
            if node == 2 * parent + 1:     # w is on the left: point right
                value[w] |= 1 << parent
            node = parent
    victim = None
    if ways - 1 <= 16:
        victim = _plru_victim(np.arange(1 << (ways - 1), dtype=np.int64), ways)
    return mask, value, victim


def _plru_victim(state, ways):
    """The way tree-PLRU evicts in each state (vectorised over states)."""
    node = np.zeros_like(state)
    for _ in range(ways.bit_length() - 1):
        node = 2 * node + 1 + ((state >> node) & 1)
    return node - (ways - 1)


def _stable_order(keys):
    """np.argsort(keys, kind="stable") for non-negative integer keys, by
    16-bit radix passes (several times faster than a merge sort)."""
    keys = np.asarray(keys, dtype=np.int64)
    order = np.arange(keys.size)
    top = int(keys.max(initial=0))
    shift = 0
    while True:
        digit = ((keys[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
        if top >> shift == 0:
            return order


def _lockstep(policy, ways, lines, start, count, rounds, n_ids, rng, out, base, stride, reach=None):
    """Simulate independent K-way sets, initially empty, in lock step.

    In every one of `rounds` rounds set g is accessed, in this order, by the
    lines lines[start[g]:start[g] + count[g]] (ids < n_ids, each line in one
    set only; lines None: line e is entry e). The access of entry e in round
    r is known by its flat index f = base[e] + r * stride (base None: e + r *
    stride): it takes place only if reach[f] (reach None: always), and a miss
    is recorded as out[f] = True. Numbering lines and flat indices in entry
    order keeps the memory accesses of a step close together."""
    order = np.argsort(-np.asarray(count, dtype=np.int64), kind="stable")
    st = np.asarray(start, dtype=np.int64)[order]
    cn = np.asarray(count, dtype=np.int64)[order]
    if cn.size == 0 or cn[0] == 0:
        return
    # active[j]: the sets (a prefix, the most accessed first) with a j-th access per round
    active = np.searchsorted(-cn, -np.arange(cn[0]), side="left")
    nsets, k = cn.size, ways
    resident = np.full(n_ids + 1, -1, dtype=np.int64)   # way holding each line, or -1; n_ids = no line
    owner = np.full(nsets * k, n_ids, dtype=np.int64)    # line in way w of set g at g * k + w
    if policy == "lru":
        stamp = np.full((nsets, k), -1, dtype=np.int64)  # last use; -1 = invalid
    elif policy in ("plru", "random"):
        fill = np.zeros(nsets, dtype=np.int64)           # ways filled so far (lowest first)
        filling = True
        if policy == "plru":
            mask, value, victim_table = _plru_tables(k)
            state = np.zeros(nsets, dtype=np.int64)
    else:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    clock = 0
    for r in range(rounds):
        for j in range(cn[0]):
            a = active[j]
            e = st[:a] + j
            f = (e if base is None else base[e]) + r * stride
            x = e if lines is None else lines[e]
            way = resident[x]
            miss = way < 0
            if reach is not None:
                ok = reach[f]
                miss &= ok
            mi = np.flatnonzero(miss)
            if mi.size:
                out[f[mi]] = True
                xm = x[mi]
                if policy == "lru":
                    v = np.argmin(stamp[mi], axis=1)     # an invalid way (lowest) first, else the LRU
                else:
                    if policy == "plru":
                        s = state[mi]
                        v = victim_table[s] if victim_table is not None else _plru_victim(s, k)
                    else:
                        v = rng.integers(0, k, mi.size)   # uniform among the K ways
                    if filling:                          # an invalid way (lowest) first
                        fl = fill[mi]
                        fill[mi] = fl + 1
                        v = np.where(fl < k, fl, v)
                slot = mi * k + v
                resident[owner[slot]] = -1
                owner[slot] = xm
                resident[xm] = v
                if policy != "random":
                    way[mi] = v
            if policy == "lru":
                if reach is None:
                    stamp[np.arange(a), way] = clock
                else:
                    h = np.flatnonzero(ok)
                    stamp[h, way[h]] = clock
            elif policy == "plru":
                new = (state[:a] & ~mask[way]) | value[way]
                state[:a] = new if reach is None else np.where(ok, new, state[:a])
            clock += 1
        if policy != "lru" and filling and fill.min() >= k:
            filling = False


def simulate_sets(policy, ways, stream, trials=1, seed=0):
    """Hits (True) and misses of `trials` independent K-way sets, initially
    empty, each accessed in the order of `stream` (any hashable line
    labels): a bool array [trial, access]. The trials differ only by the
    random victims of random replacement."""
    labels = list(stream)
    ids = {lab: i for i, lab in enumerate(dict.fromkeys(labels))}
    one = np.array([ids[lab] for lab in labels], dtype=np.int64)
    n, d = one.size, len(ids)
    lines = (one[None, :] + d * np.arange(trials)[:, None]).reshape(-1)   # each trial its own lines
    miss = np.zeros(trials * n, dtype=bool)
    _lockstep(policy, ways, lines, np.arange(trials) * n, np.full(trials, n), 1, trials * d,
              np.random.default_rng(seed), miss, None, 0)
    return ~miss.reshape(trials, n)


def simulate_set(policy, ways, stream, seed=0):
    """Hits (True) and misses of one K-way set, initially empty, accessed in
    the order of `stream` (any hashable line labels)."""
    return simulate_sets(policy, ways, stream, 1, seed)[0]


def _cyclic_sets(policy, ways, lines_per_set, rounds, rng):
    """Sets each accessed cyclically over its own distinct lines for `rounds`
    rounds; lines_per_set is an array. Returns the hits as a list of
    (rounds, D) arrays, one per set."""
    d = np.asarray(lines_per_set, dtype=np.int64)
    n = int(d.sum())
    start = np.concatenate(([0], np.cumsum(d)[:-1]))
    miss = np.zeros((rounds, n), dtype=bool)
    _lockstep(policy, ways, None, start, d, rounds, n, rng, miss.reshape(-1), None, n)
    return [~miss[:, s:s + dd] for s, dd in zip(start, d)]


def set_miss_rate(policy, lines, ways, warmup=None, measured=None, trials=None, seed=0):
    """Steady-state miss rate of one K-way set traversed cyclically over
    `lines` distinct lines: the misses of the `measured` rounds (default 8)
    after `warmup` rounds (default twice `settle_rounds`, at least 8), by the
    simulator (over `trials` independent sets for "random", default 4096;
    LRU and tree-PLRU are deterministic)."""
    if policy == "plru" and ways & (ways - 1):
        raise ValueError(f"tree pseudo-LRU needs a power-of-two number of ways, got {ways}")
    if warmup is None:
        warmup = max(8, 2 * settle_rounds(Cache(ways * 64, ways, policy=policy)))
    measured = 8 if measured is None else measured
    if trials is None:
        trials = 4096 if policy == "random" else 1
    rounds = warmup + measured
    hits = _cyclic_sets(policy, ways, np.full(trials, lines), rounds, np.random.default_rng(seed))
    return 1.0 - float(np.mean([h[warmup:].mean() for h in hits]))


def random_all_miss_lines(ways, eps=RANDOM_HIT_EPS):
    """Lines D from which a K-way random-replacement set traversed cyclically
    hits with probability below `eps` per access: between two accesses to a
    line at least D - 2K + 1 misses find the set full (at most K - 1 of the
    other lines can hit, at most K - 1 fill an invalid way), each evicting the
    line with probability 1/K."""
    if ways == 1:
        return 2
    return 2 * ways - 1 + math.ceil(math.log(eps) / math.log1p(-1.0 / ways))


def _plru_cyclic_misses(ways, rounds):
    """Misses of a cold tree-PLRU set accessed cyclically over D distinct
    lines, for D = K+1 .. K*K+K-1: array [D - K - 1, round, rank in the cycle]."""
    return _plru_patterns(ways, max(16, 1 << (rounds - 1).bit_length()))[:, :rounds]


@functools.cache
def _plru_patterns(ways, rounds):
    d = np.arange(ways + 1, ways * ways + ways)
    out = np.zeros((d.size, rounds, d[-1] if d.size else 0), dtype=bool)
    for i, h in enumerate(_cyclic_sets("plru", ways, d, rounds, None)):
        out[i, :, :d[i]] = ~h
    out.flags.writeable = False
    return out


def settle_rounds(cache):
    """Rounds a cold level takes to reach its steady state on a cyclic stream.

    LRU: 1 (periodic from the second round). Random replacement: 3 (from the
    fourth round on, its per-round miss rate is within 0.6% of the limit, the
    statistical noise of 8000-20000 sets, for K = 2..16 and D = K+1..4K; the
    second round is ~10% off, the third up to 2%). Tree-PLRU: 1 + the last
    round with a hit in the cold cyclic patterns of its K (2 for 4 ways, 3 for
    8, 8 for 16: a 16-way set of 17 lines keeps hitting for 7 rounds before it
    settles on missing everywhere)."""
    if cache.policy == "lru" or cache.ways == 1 or (cache.policy == "plru" and cache.ways == 2):
        return 1
    if cache.policy == "random":
        return 3
    rounds = 16
    while True:
        pattern = _plru_cyclic_misses(cache.ways, rounds)
        hit_rounds = np.flatnonzero((~pattern & _cyclic_mask(cache.ways)).any(axis=(0, 2)))
        last = int(hit_rounds.max(initial=0))
        if last < rounds // 2:
            return 1 + last
        rounds *= 2


def _cyclic_mask(ways):
    """[D - K - 1, 1, rank]: True where rank < D (the patterns' valid part)."""
    d = np.arange(ways + 1, ways * ways + ways)
    return (np.arange(d[-1])[None, :] < d[:, None])[:, None, :]


def warmup_rounds(machine):
    """Default warm-up: max over levels j (0 = L1) of j + settle_rounds(level),
    a level's input settling one round after the level above it."""
    return max(j + settle_rounds(c) for j, c in enumerate(machine.caches))


# ------------------------------------------------------------- the new kernel

def place_pages(nbytes, page_size, placement, rng, physical_memory=PHYSICAL_MEMORY):
    """Physical frame of every virtual page of an nbytes buffer: `contiguous`
    (consecutive frames from a random one) or `random` (distinct frames drawn
    uniformly)."""
    npages = -(-int(nbytes) // page_size)
    nframes = physical_memory // page_size
    if npages > nframes:
        raise ValueError(f"a {nbytes}-byte buffer does not fit in {physical_memory} bytes of memory")
    if placement == "contiguous":
        return int(rng.integers(0, nframes - npages + 1)) + np.arange(npages, dtype=np.int64)
    if placement == "random":
        return rng.choice(nframes, size=npages, replace=False).astype(np.int64)
    raise ValueError(f"placement must be 'contiguous' or 'random', got {placement!r}")


def _check_sizes(sizes, line):
    sizes = np.atleast_1d(np.asarray(sizes, dtype=np.int64))
    if sizes.size == 0 or np.any(sizes <= 0) or np.any(sizes % line):
        raise ValueError(f"sizes must be positive multiples of the line ({line} bytes)")
    return sizes


def _check_machine(machine, line, page_size):
    for c in machine.caches:
        if c.line > page_size or page_size % c.line:
            raise ValueError(f"cache line {c.line} must divide the page size {page_size}")
        if c.line > line and c.line % line:
            raise ValueError(f"cache line {c.line} must be a multiple of the chase line {line}")


def _lru_cyclic_misses(lid, sub, start, count, ways, per_line):
    """LRU on sets each receiving the same cycle of accesses every round
    (entries start[g] .. start[g] + count[g] - 1 in time order; entry e is
    chase line sub[e] (0 .. per_line - 1) of cache line lid[e]): an access
    hits iff fewer than K distinct other lines were accessed since the
    previous access to its line (in this round or, for a line's first access
    of the round, the previous one). Returns (steady, first): misses of
    every round after the first, and the entries that are a line's first
    access of a round (also missed in the first round)."""
    n = lid.size
    g = np.repeat(np.arange(start.size), count)
    u = np.arange(n) - start[g]                            # time within the round
    m = count[g]
    entry = np.full((int(lid.max()) + 1) * per_line, -1, dtype=np.int64)
    entry[lid * per_line + sub] = np.arange(n)
    gap = m.copy()                                         # accesses since the previous one to the line
    first = np.ones(n, dtype=bool)
    for j in range(per_line):                              # the line's other chase lines
        sib = entry[lid * per_line + j]
        there = (sib >= 0) & (sub != j)
        us = u[np.where(there, sib, 0)]
        gap = np.where(there, np.minimum(gap, (u - us) % m), gap)
        first &= ~(there & (us < u))
    # distinct lines between = those whose previous access lies before the window
    window = gap - 1
    steady = window >= per_line * (ways - 1) + 1            # at least K distinct lines: a miss
    cand = np.flatnonzero(~steady)
    gc = g[cand]
    sc, mc, uc, wc, bc = start[gc], count[gc], u[cand], window[cand], gap[cand]
    distinct = np.zeros(cand.size, dtype=np.int64)
    for d in range(1, per_line * (ways - 1) + 1):
        j = sc + (uc - d) % mc
        distinct += (d <= wc) & (d + gap[j] >= bc)
    steady[cand] = distinct >= ways
    return steady, first


def _level_misses(cache, inst, idx, va, pa, line, counts, rounds, reach, rng, shortcuts):
    """Which of the accesses reaching one level (reach: [round, position],
    None at the first level: all) miss there. Positions are the visits of one
    round, in time order, of every size of the pass (inst: the size's index;
    idx: the chase line's index in the buffer)."""
    n = inst.size
    k, nsets = cache.ways, cache.sets
    addr = pa if cache.physical else va
    if cache.line & (cache.line - 1) == 0 and nsets & (nsets - 1) == 0:
        setidx = (addr >> (cache.line.bit_length() - 1)) & (nsets - 1)
    else:
        setidx = (addr // cache.line) % nsets
    group = inst * nsets + setidx
    ngroups = counts.size * nsets
    per_line = max(1, cache.line // line)         # chase lines per cache line
    if per_line == 1:
        lid = np.arange(n, dtype=np.int64)
        first = None
    else:
        lines_per_inst = -(-counts // per_line)
        lid = np.concatenate(([0], np.cumsum(lines_per_inst)[:-1]))[inst] + idx // per_line
        first = va % cache.line < line            # the first chase line of its cache line
    n_ids = int(lid.max()) + 1
    accesses = np.bincount(group, minlength=ngroups)                    # per round
    distinct = accesses if first is None else np.bincount(group[first], minlength=ngroups)
    used = accesses > 0
    none = np.zeros(ngroups, dtype=bool)
    all_hit = all_miss = memo = lru_form = none
    if shortcuts:
        # a set receiving every access of every round sees the same cycle each round
        if reach is None:
            pure = used
        else:
            pure = used & (np.bincount(group[~np.logical_and.reduce(reach, axis=0)], minlength=ngroups) == 0)
        cyclic = pure & (distinct > k) & (per_line == 1)
        all_hit = used & (distinct <= k)
        if cache.policy == "lru" or k == 1:
            all_miss = cyclic
            lru_form = pure & (distinct > k) & (per_line > 1)
        elif cache.policy == "random":
            all_miss = cyclic & (distinct >= random_all_miss_lines(k))
        else:
            all_miss = cyclic & (distinct >= k * k + k)
            memo = cyclic & ~all_miss
    sim = used & ~(all_hit | all_miss | memo | lru_form)
    if reach is None:
        reach_flat = None
        miss = np.repeat(all_miss[group][None, :], rounds, axis=0)
    else:
        reach_flat = reach.reshape(-1)
        miss = reach & all_miss[group]
    miss_flat = miss.reshape(-1)

    p = np.flatnonzero(all_hit[group])
    if p.size:   # nothing is ever evicted: each line misses on its first access only
        if reach is None:
            r0 = np.zeros(p.size, dtype=np.int64)
        else:
            r0 = np.argmax(reach[:, p], axis=0)
            ok = reach_flat[r0 * n + p]
            p, r0 = p[ok], r0[ok]
        if first is not None:
            key = r0 * n + p
            first_key = np.full(n_ids, np.iinfo(np.int64).max)
            np.minimum.at(first_key, lid[p], key)
            ok = key == first_key[lid[p]]
            p, r0 = p[ok], r0[ok]
        miss_flat[r0 * n + p] = True

    def by_set(selected):
        """The positions of the selected sets, set by set (in time order within
        each), each set's first index and number of positions."""
        p = np.flatnonzero(selected[group])
        p = p[_stable_order(setidx[p])]     # positions are by size already: sets stay in time order
        g = group[p]
        start = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        return p, start, np.diff(np.r_[start, p.size])

    if memo.any():   # tree-PLRU on a pure cycle: the pattern of a cold set with D lines
        p, start, m = by_set(memo)
        rank = np.arange(p.size) - np.repeat(start, m)
        pattern = _plru_cyclic_misses(k, rounds)
        miss[:, p] = pattern[np.repeat(m, m) - k - 1, :, rank].T

    if lru_form.any():
        p, start, m = by_set(lru_form)
        steady, once = _lru_cyclic_misses(lid[p], idx[p] % per_line, start, m, k, per_line)
        miss[:, p] = steady
        miss[0, p] |= once

    if sim.any():   # every access of every round, those not reaching the level skipped
        p, start, m = by_set(sim)
        ns = p.size
        if per_line == 1:
            lines = None
        else:     # a line is known by its first entry
            first_entry = np.empty(n_ids, dtype=np.int64)
            first_entry[lid[p][::-1]] = np.arange(ns - 1, -1, -1)
            lines = first_entry[lid[p]]
        sub = np.zeros((rounds, ns), dtype=bool)
        _lockstep(cache.policy, k, lines, start, m, rounds, ns, rng, sub.reshape(-1), None, ns,
                  None if reach is None else reach[:, p].reshape(-1))
        miss[:, p] = sub
    return miss


def _chase_pass(machine, sizes, frames, page_size, line, rng, warmup, measured, shortcuts=True):
    """One pass: every size chased over the same buffer. Returns the level
    serving each access, [round, position] (len(caches) = memory), the
    positions' size index and chase-line index, and the virtual and physical
    addresses."""
    counts = sizes // line
    rounds = warmup + measured
    inst = np.repeat(np.arange(sizes.size), counts)
    idx = np.concatenate([rng.permutation(int(c)) for c in counts]).astype(np.int64)
    va = idx * line
    pa = frames[va // page_size] * page_size + va % page_size
    # the level serving an access = the number of levels it missed
    served = np.zeros((rounds, inst.size), dtype=np.int8)
    reach = None                     # the first level sees every access
    for cache in machine.caches:
        miss = _level_misses(cache, inst, idx, va, pa, line, counts, rounds, reach, rng, shortcuts)
        np.add(served, miss, out=served, casting="unsafe")
        reach = miss
    return served, inst, idx, va, pa


@dataclass(frozen=True)
class Chase:
    """One size chased over one placement: the visited lines' addresses in
    visit order, and the level serving each access of every round
    (len(machine.caches) = memory); rounds[:warmup] are the warm-up."""
    virt: np.ndarray
    phys: np.ndarray
    levels: np.ndarray
    warmup: int

    def measured(self):
        return self.levels[self.warmup:]


def chase_levels(machine, size, placement="random", page_size=None, line=64, buffer_bytes=None, seed=0,
                 warmup=None, measured=MEASURED, shortcuts=True, physical_memory=PHYSICAL_MEMORY):
    """The level serving every access of a chase over the first `size` bytes
    of a buffer of `buffer_bytes` (default `size`) placed once."""
    page_size = page_size or machine.page_size
    warmup = warmup_rounds(machine) if warmup is None else warmup
    size = int(_check_sizes(size, line)[0])
    _check_machine(machine, line, page_size)
    rng = np.random.default_rng(seed)
    frames = place_pages(max(size, buffer_bytes or 0), page_size, placement, rng, physical_memory)
    served, _, _, va, pa = _chase_pass(machine, np.array([size]), frames, page_size, line, rng,
                                       warmup, measured, shortcuts)
    return Chase(va, pa, served, warmup)


def chase_sweep(machine, sizes, placement="random", page_size=None, line=64, passes=3, seed=0, noise=0.01,
                warmup=None, measured=MEASURED, shortcuts=True, physical_memory=PHYSICAL_MEMORY):
    """Cycles per access of the new kernel for every size: the mean over
    `passes` passes, each placing a buffer of max(sizes) bytes anew, with
    multiplicative Gaussian noise of relative deviation `noise`. `warmup`
    defaults to `warmup_rounds(machine)`; `shortcuts=False` simulates every
    set access by access (for tests). The paper's machines on the
    4-points-per-octave grid with 3 passes take 0.01 to 3.5 s of CPU."""
    page_size = page_size or machine.page_size
    warmup = warmup_rounds(machine) if warmup is None else warmup
    sizes = _check_sizes(sizes, line)
    _check_machine(machine, line, page_size)
    rng = np.random.default_rng(seed)
    latency = np.array([c.latency for c in machine.caches] + [machine.memory_latency], dtype=float)
    counts = sizes // line
    # sizes are simulated together in batches of about BATCH_LINES lines (memory)
    batch = np.cumsum(counts) // BATCH_LINES
    cycles = np.zeros(sizes.size)
    for _ in range(passes):
        frames = place_pages(int(sizes.max()), page_size, placement, rng, physical_memory)
        for b in np.unique(batch):
            chosen = np.flatnonzero(batch == b)
            served, inst, *_ = _chase_pass(machine, sizes[chosen], frames, page_size, line, rng,
                                           warmup, measured, shortcuts)
            total = np.zeros(chosen.size)
            for row in served[warmup:]:
                total += np.bincount(inst, weights=latency[row], minlength=chosen.size)
            cycles[chosen] += total / (counts[chosen] * measured)
    cycles /= passes
    return cycles * (1.0 + noise * rng.standard_normal(cycles.size))


# ------------------------------------------------------------- the old kernel

def line_addresses(array_bytes, stride, page_size, rng, physical_pages=1 << 22):
    """Virtual and physical addresses of the slots a traversal touches."""
    virt = np.arange(0, array_bytes, stride, dtype=np.int64)
    npages = -(-array_bytes // page_size)
    frames = rng.choice(physical_pages, size=npages, replace=False)
    phys = frames[virt // page_size].astype(np.int64) * page_size + virt % page_size
    return virt, phys


def traversal_cycles(machine, array_bytes, stride=1024, rng=None):
    """Mean cycles per access of mcalibrator's cyclic traversal under LRU,
    after warm-up (stride >= every line size), by the closed form."""
    if any(c.policy != "lru" for c in machine.caches):
        raise ValueError("traversal_cycles is the LRU closed form; use chase_sweep for other policies")
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
    """Cycles per access of the old kernel for every size, with multiplicative
    noise: the mean over `placements` independent page placements, as
    hpcbench's measurement averages passes that each allocate anew."""
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
