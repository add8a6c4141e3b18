"""The cache simulator against known answers: hand-worked traces, exact
Markov chains, closed forms, and physical facts of the chase kernel."""
import itertools
import math

import cachesim as cs
import numpy as np
import pytest

# ------------------------------------------------------------------ old kernel


@pytest.mark.parametrize("cache", [cs.Cache(16 << 10, 4), cs.Cache(64 << 10, 8), cs.Cache(32 << 10, 2, line=128)])
@pytest.mark.parametrize("array_kib", [8, 24, 48, 96])
def test_closed_form_matches_true_lru(cache, array_kib):
    machine = cs.Machine("one level", (cache,), memory_latency=100.0)
    virt, phys = cs.line_addresses(array_kib << 10, 1024, machine.page_size, np.random.default_rng(array_kib))
    misses = cs.lru_misses(phys, cache)
    expected = (cache.latency * (len(phys) - misses) + 100.0 * misses) / len(phys)
    closed = cs.traversal_cycles(machine, array_kib << 10, 1024, rng=np.random.default_rng(array_kib))
    assert closed == pytest.approx(expected)


def test_sweep_grid_is_the_papers():
    sizes = cs.sweep_sizes(max_size=6 << 20)
    assert sizes[:3].tolist() == [1024, 2048, 4096]
    assert (2 << 20) in sizes and (3 << 20) in sizes and sizes[-1] == 6 << 20


def test_octave_grid():
    sizes = cs.octave_sizes(max_size=24 << 20)
    assert sizes[0] == 1024 and sizes[4] == 2048 and sizes[8] == 4096
    assert np.all(sizes % 64 == 0) and np.all(np.diff(sizes) > 0) and sizes[-1] <= 24 << 20
    assert sizes.size == 4 * 14 + 3          # 14 octaves from 1 KiB to 16 MiB, then 3 points to 24 MiB
    assert np.allclose(sizes[1:] / sizes[:-1], 2 ** 0.25, rtol=0.03)
    assert cs.octave_sizes(machine=cs.DEMPSEY)[-1] <= 4 << 20


# ------------------------------------------------------------ one set by hand


def test_lru_trace_by_hand():
    # 2 ways: A B fill; A hits; C evicts B (least recent); A hits; B evicts C.
    assert cs.simulate_set("lru", 2, "ABACAB").tolist() == [False, False, True, False, True, False]
    # A cycle of K lines hits from its second round on; of K+1 lines, never.
    assert not cs.simulate_set("lru", 4, "ABCD" * 3)[:4].any() and cs.simulate_set("lru", 4, "ABCD" * 3)[4:].all()
    assert not cs.simulate_set("lru", 4, "ABCDE" * 4).any()


def test_tree_plru_cycle_of_five_lines_in_four_ways_by_hand():
    """Bits (root, left node, right node); 0 points left. Accessing way w sets
    the bits on its path to point away from it; invalid ways fill lowest first.

    round 1: A B C D fill ways 0-3, bits (0,0,0); E: victim way 0 (A), bits (1,1,0)
    round 2: A: victim way 2 (C), bits (0,1,1); B HITS in way 1, bits (1,0,1);
             C: victim way 3 (D), bits (0,0,0); D: way 0 (E), bits (1,1,0);
             E: way 2 (A), bits (0,1,1)
    round 3 on: every access misses (a round of misses repeats: K consecutive
    misses visit every way).
    """
    hits = cs.simulate_set("plru", 4, "ABCDE" * 6).reshape(6, 5)
    expected = np.zeros((6, 5), dtype=bool)
    expected[1, 1] = True
    assert (hits == expected).all()


def test_tree_plru_is_not_lru():
    # After A B C D C A, LRU evicts B (least recent) but the tree points to D:
    # root -> right (A was used last on the left), right node -> D (C was used).
    plru = cs.simulate_set("plru", 4, "ABCDCAEBD")
    lru = cs.simulate_set("lru", 4, "ABCDCAEBD")
    assert plru.tolist() == [False] * 4 + [True, True, False, True, False]
    assert lru.tolist() == [False] * 4 + [True, True, False, False, False]
    # With 2 ways the tree is one bit: exactly LRU.
    rng = np.random.default_rng(0)
    stream = rng.integers(0, 5, 300).tolist()
    assert (cs.simulate_set("plru", 2, stream) == cs.simulate_set("lru", 2, stream)).all()


def test_plru_needs_power_of_two_ways():
    with pytest.raises(ValueError, match="power-of-two"):
        cs.Cache(12 << 20, 12, policy="plru")
    with pytest.raises(ValueError, match="policy"):
        cs.Cache(1 << 20, 8, policy="fifo")
    m = cs.DUNNINGTON.with_policy("plru", otherwise="lru")
    assert [c.policy for c in m.caches] == ["plru", "lru", "lru"]
    with pytest.raises(ValueError, match="power-of-two"):
        cs.DUNNINGTON.with_policy("plru")


def test_random_victim_is_uniform_and_invalid_ways_fill_first():
    trials = 8000
    for x in "ABCD":   # after A B C D E, each of A..D was evicted with probability 1/4
        hits = cs.simulate_sets("random", 4, "ABCDE" + x, trials=trials, seed=ord(x))
        assert not hits[:, :5].any()                  # cold, and E found the set full
        rate = 1 - hits[:, 5].mean()
        assert abs(rate - 0.25) < 4 * math.sqrt(0.25 * 0.75 / trials)
    # Never an eviction while an invalid way is left: K lines never miss again.
    assert cs.simulate_sets("random", 4, "ABCD" * 5, trials=500)[:, 4:].all()


def exact_random_miss_rate(lines, ways):
    """Steady miss rate of a random-replacement set cycling over `lines`
    lines, from the exact Markov chain on the set of resident lines."""
    states = list(itertools.combinations(range(lines), ways))
    index = {s: i for i, s in enumerate(states)}
    steps = []
    for x in range(lines):
        p = np.zeros((len(states), len(states)))
        for s, i in index.items():
            if x in s:
                p[i, i] = 1.0
            else:
                for victim in s:
                    p[i, index[tuple(sorted(set(s) - {victim} | {x}))]] += 1.0 / ways
        steps.append(p)
    round_matrix = np.linalg.multi_dot(steps)
    w, v = np.linalg.eig(round_matrix.T)
    pi = np.real(v[:, np.argmin(abs(w - 1))])
    pi /= pi.sum()
    miss = 0.0
    for x, p in enumerate(steps):
        miss += sum(pi[i] for s, i in index.items() if x not in s)
        pi = pi @ p
    return miss / lines


@pytest.mark.parametrize("ways,lines", [(2, 3), (2, 4), (4, 5), (4, 6), (4, 8), (8, 9)])
def test_random_replacement_matches_the_exact_markov_chain(ways, lines):
    exact = exact_random_miss_rate(lines, ways)
    if lines == ways + 1:
        assert exact == pytest.approx(2 / (ways + 1))
    trials = 6000
    sim = cs.set_miss_rate("random", lines, ways, trials=trials, seed=lines)
    # the standard error over 6000 sets is about 0.0003
    assert abs(sim - exact) < 0.003


def test_set_miss_rate():
    for k in (4, 8, 16):
        assert cs.set_miss_rate("lru", k, k) == 0.0 and cs.set_miss_rate("lru", k + 1, k) == 1.0
        # tree-PLRU settles on missing everywhere on any cycle longer than K
        assert cs.set_miss_rate("plru", k, k) == 0.0
        assert [cs.set_miss_rate("plru", d, k) for d in (k + 1, k + 2, 2 * k, 3 * k)] == [1.0] * 4
        assert cs.set_miss_rate("random", k, k) == 0.0
        rates = [cs.set_miss_rate("random", x, k, seed=x) for x in (k + 1, k + 2, 2 * k, 3 * k, 6 * k)]
        assert 0 < rates[0] < 1 and np.all(np.diff(rates) > 0) and rates[-1] < 1


def mean_field(lines, ways, shift=0):
    """Fixed point of m = 1 - (1 - 1/K)^((x - shift) m) from m = 1."""
    m = 1.0
    for _ in range(2000):
        m = 1 - (1 - 1 / ways) ** ((lines - shift) * m)
    return m


def test_mean_field_brackets_random_replacement():
    """m = 1 - (1-1/K)^(x m) overestimates the simulated miss rate (by 0.14 at
    K=4, x=5, down to 0.003 at K=16, x=3K); with (x-1) m in the exponent it
    underestimates. Up to x = 2K both gaps exceed 0.005."""
    for k in (4, 8, 16):
        for x in sorted({k + 1, round(1.25 * k), round(1.5 * k), 2 * k}):
            sim = cs.set_miss_rate("random", x, k, seed=x)
            assert mean_field(x, k, 1) + 0.003 < sim < mean_field(x, k) - 0.003, (k, x)
            if x == 2 * k:
                assert mean_field(x, k) - sim < 0.06


# ------------------------------------------------------------- shortcuts agree

SMALL = cs.Machine("small", (cs.Cache(1 << 10, 4, latency=2, physical=False),
                             cs.Cache(8 << 10, 4, latency=10, line=128),
                             cs.Cache(32 << 10, 8, latency=30)), memory_latency=100)
SMALL2 = cs.Machine("small, 2-way L1 with 128-byte lines", (cs.Cache(1 << 10, 2, latency=2, physical=False, line=128),
                                                           cs.Cache(8 << 10, 2, latency=10, line=256),
                                                           cs.Cache(32 << 10, 16, latency=30)), memory_latency=100)


@pytest.mark.parametrize("machine", [SMALL, SMALL2], ids=lambda m: m.name)
@pytest.mark.parametrize("policy", ["lru", "plru"])
def test_shortcuts_equal_the_general_simulation(machine, policy):
    """The LRU closed forms (one access per line per round: more than K lines
    miss always; several: the stack-distance form) and the tree-PLRU cyclic
    patterns give exactly what simulating every set access by access gives."""
    m = machine.with_policy(policy)
    for placement, line in (("random", 64), ("contiguous", 64), ("random", 128)):
        for size in (1024, 3072, 8192, 12288, 32768, 65536, 1 << 17):
            fast = cs.chase_levels(m, size, placement=placement, line=line, seed=size, warmup=3, measured=2)
            slow = cs.chase_levels(m, size, placement=placement, line=line, seed=size, warmup=3, measured=2,
                                   shortcuts=False)
            assert (fast.levels == slow.levels).all(), (placement, line, size)


def test_random_shortcuts_agree_statistically():
    m = SMALL.with_policy("random")
    for size in (3072, 12288, 65536):
        served = [np.bincount(cs.chase_levels(m, size, seed=s, shortcuts=sc).measured().ravel(), minlength=4)
                  for sc in (True, False) for s in range(4)]
        fast, slow = (np.sum(served[i:i + 4], axis=0) / np.sum(served[i:i + 4]) for i in (0, 4))
        assert np.abs(fast - slow).max() < 0.02, size


def test_plru_all_miss_bound():
    """D >= K*K + K lines on a pure cycle: every access misses from the
    second round (the shortcut's claim), checked by direct simulation."""
    for k in (2, 4, 8):
        d = [k * k + k, k * k + k + 1, k * k + 2 * k + 3]
        for hits in cs._cyclic_sets("plru", k, d, 6, None):
            assert not hits[1:].any()


def test_random_all_miss_threshold():
    # (1 - 1/K)^(D - 2K + 1) <= 1e-9 at the threshold and not one line before
    for k in (2, 4, 8, 12, 16):
        d = cs.random_all_miss_lines(k)
        assert (1 - 1 / k) ** (d - 2 * k + 1) <= 1e-9 < (1 - 1 / k) ** (d - 2 * k)


# ------------------------------------------------------------- the chase kernel


def test_levels_of_one_chase():
    c = cs.chase_levels(SMALL, 1024, placement="contiguous", warmup=3, measured=2)
    assert c.levels.shape == (5, 16) and c.warmup == 3
    assert (c.measured() == 0).all()                                     # all in L1 once warm
    assert sorted(c.virt.tolist()) == list(range(0, 1024, 64))
    assert np.all(c.phys % 4096 == c.virt % 4096)
    # Cold round: L2's lines are 128 bytes, so of the two 64-byte lines of
    # each, the first visited comes from memory and the second hits in L2.
    first_round = {}
    for v, level in zip(c.virt.tolist(), c.levels[0].tolist()):
        first_round.setdefault(v // 128, []).append(level)
    assert all(levels == [3, 1] for levels in first_round.values())


THREE = cs.Machine("three levels", (cs.Cache(4 << 10, 4, latency=3, physical=False),
                                    cs.Cache(32 << 10, 8, latency=12),
                                    cs.Cache(256 << 10, 16, latency=40)), memory_latency=200)
# L2 and L3 ways (4 KiB, 16 KiB) are no larger than a 2 MiB huge page; with
# 4 KiB pages L3's way spans 4 pages.


@pytest.mark.parametrize("policy", cs.POLICIES)
def test_no_misses_while_it_fits(policy):
    """Contiguous physical memory (any page size), or random placement of huge
    pages at least a way large: a level never misses while S <= its size."""
    m = THREE.with_policy(policy)
    for placement, page in (("contiguous", 4096), ("contiguous", 2 << 20), ("random", 2 << 20)):
        for level, cache in enumerate(m.caches):
            for size in (cache.size // 2, cache.size * 3 // 4, cache.size):
                c = cs.chase_levels(m, size, placement=placement, page_size=page, seed=size)
                assert c.measured().max() <= level, (placement, page, level, size)


L2_ONLY = cs.Machine("1 MiB L2", (cs.Cache(16 << 10, 4, latency=3, physical=False),
                                  cs.Cache(1 << 20, 8, latency=12)), memory_latency=200)


@pytest.mark.parametrize("policy", cs.POLICIES)
def test_random_pages_make_misses_below_the_size(policy):
    """A 1 MiB 8-way physically indexed L2 (128 KiB ways: 32 page colours)
    with random 4 KiB pages: at 3/4 of its size some page colours hold more
    than 8 pages, and the level misses; contiguous pages never do."""
    m = L2_ONLY.with_policy(policy)
    misses = [np.mean(cs.chase_levels(m, 768 << 10, placement="random", seed=s).measured() == 2) for s in range(4)]
    assert np.mean(misses) > 0.01
    assert (cs.chase_levels(m, 768 << 10, placement="contiguous").measured() <= 1).all()


def test_lru_misses_follow_the_page_colour_binomial():
    """Under LRU a line misses in L2 exactly when its page colour holds more
    than K pages: for a line, P(1 + Binomial(NP - 1, 1/colours) > K)."""
    pages, colours, k = 192, 32, 8
    p = 1 / colours
    expected = sum(math.comb(pages - 1, j) * p ** j * (1 - p) ** (pages - 1 - j) for j in range(k, pages))
    got = [np.mean(cs.chase_levels(L2_ONLY, pages * 4096, seed=s).measured() == 2) for s in range(40)]
    assert np.mean(got) == pytest.approx(expected, abs=4 * np.std(got) / math.sqrt(len(got)))


@pytest.mark.parametrize("policy", cs.POLICIES)
@pytest.mark.parametrize("placement", ["random", "contiguous"])
def test_latency_curve_rises_to_memory(policy, placement):
    m = THREE.with_policy(policy)
    sizes = cs.octave_sizes(max_size=4 << 20)
    cycles = cs.chase_sweep(m, sizes, placement=placement, noise=0.0, seed=1)
    assert cycles[0] == pytest.approx(3.0)
    assert np.all(np.diff(cycles) >= -0.01 * cycles[1:])        # non-decreasing within 1%
    assert cycles[-1] == pytest.approx(200.0, rel=0.005)         # 16 times the L3: memory
    assert cycles[sizes <= 4 << 10].max() == pytest.approx(3.0)  # all in the VIPT L1


def test_chase_sweep_noise_and_passes():
    sizes = cs.octave_sizes(max_size=64 << 10)
    a = cs.chase_sweep(SMALL, sizes, noise=0.0, seed=3)
    b = cs.chase_sweep(SMALL, sizes, noise=0.0, seed=3)
    noisy = cs.chase_sweep(SMALL, sizes, noise=0.05, seed=3)
    assert (a == b).all() and a.shape == sizes.shape
    assert 0.01 < np.std(noisy / a - 1) < 0.1
    one = [cs.chase_sweep(SMALL, sizes, noise=0.0, seed=3, passes=1)]
    assert not np.allclose(one[0], a)                          # passes average placements
    with pytest.raises(ValueError, match="multiples of the line"):
        cs.chase_sweep(SMALL, [1000])
    with pytest.raises(ValueError, match="placement"):
        cs.chase_sweep(SMALL, [1024], placement="coloured")


@pytest.mark.parametrize("policy", cs.POLICIES)
def test_warmup_is_enough(policy):
    """Doubling the default warm-up changes nothing: exactly for LRU; within
    0.2% for tree-PLRU; for random replacement no more than the differences
    between two seeds."""
    m = THREE.with_policy(policy)
    w = cs.warmup_rounds(m)
    assert w == {"lru": 3, "plru": 10, "random": 5}[policy]
    sizes = cs.octave_sizes(min_size=16 << 10, max_size=1 << 20)
    base = cs.chase_sweep(m, sizes, noise=0.0, seed=5, passes=2)
    longer = cs.chase_sweep(m, sizes, noise=0.0, seed=5, passes=2, warmup=2 * w)
    if policy == "lru":
        assert (base == longer).all()
    elif policy == "plru":
        assert np.abs(longer / base - 1).max() < 0.002
    else:
        other_seed = cs.chase_sweep(m, sizes, noise=0.0, seed=6, passes=2)
        assert np.abs(longer / base - 1).mean() < 2 * np.abs(other_seed / base - 1).mean() + 0.002


def test_settle_rounds():
    assert cs.settle_rounds(cs.Cache(1 << 20, 16, policy="lru")) == 1
    assert cs.settle_rounds(cs.Cache(1 << 20, 16, policy="random")) == 3
    # cold tree-PLRU sets of K+1 lines keep some hits for several rounds
    assert [cs.settle_rounds(cs.Cache(1 << 20, k, policy="plru")) for k in (2, 4, 8, 16)] == [1, 2, 3, 8]
    assert cs.warmup_rounds(cs.DUNNINGTON) == 3


def test_paper_machines_run():
    """Every paper machine, every policy it can take: the L1 size is a cliff
    under LRU with contiguous pages, memory latency is reached at twice the
    last level under LRU."""
    for m in cs.PAPER_MACHINES:
        line = max(c.line for c in m.caches)     # one access per line (see below for less)
        sizes = cs.octave_sizes(machine=m, line=line)
        lru = cs.chase_sweep(m, sizes, placement="contiguous", noise=0.0, passes=1, line=line)
        l1 = m.caches[0]
        assert lru[sizes <= l1.size].max() == pytest.approx(l1.latency)
        assert lru[np.flatnonzero(sizes > l1.size)[0]] > l1.latency
        assert lru[-1] == pytest.approx(m.memory_latency)


def test_two_accesses_per_cache_line():
    """Montvale's 128-byte L2 and L3 lines under a 64-byte chase: the second
    access to a line in a round hits when fewer than K other lines of its set
    came in between, so at twice the L3 many accesses still hit in a cache."""
    sizes = np.array([18 << 20])
    cycles = cs.chase_sweep(cs.MONTVALE, sizes, placement="contiguous", noise=0.0, passes=1)
    assert 20 < cycles[0] < 180
    with pytest.raises(ValueError, match="multiple of the chase line"):
        cs.chase_sweep(cs.MONTVALE, sizes, line=96)
