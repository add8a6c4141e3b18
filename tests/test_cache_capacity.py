"""The capacity bounds (hpcbench/cache/_capacity.py): what the best
placement of a sweep's passes says of a cache's size, whatever the
placement and the replacement policy, on curves with known answers and on
the simulator's machines."""
import cachesim as cs
import numpy as np
import pytest

from hpcbench.cache import PassPlan, estimate_levels, run_passes
from hpcbench.cache._capacity import CapacityBounds, bounds_below, capacity_bounds, choose, envelope, geometry_sizes
from hpcbench.cache._grid import sweep_sizes
from hpcbench.cache._robust import per_size

KiB, MiB = 1 << 10, 1 << 20
SIZES = np.arange(512, 2049, 64) * KiB        # 512 KiB .. 2 MiB in 64 KiB steps


def test_envelope_is_the_lowest_sample_of_any_pass():
    samples = np.full((3, 4, 2), np.nan)
    samples[0, :2] = [[5.0, 4.0], [6.0, 3.5]]
    samples[1, 3, 1] = 9.0
    best = envelope(samples)
    assert best[0] == 3.5 and best[1] == 9.0 and np.isnan(best[2])


def test_an_evenly_coloured_lru_cache_holds_exactly_its_size():
    """LRU over evenly coloured pages: nothing misses up to 1 MiB, everything
    beyond. The bytes held peak at 1 MiB, and half the accesses miss just
    above it."""
    best = np.where(MiB >= SIZES, 8.0, 24.0)
    memory = (4 * MiB, 8 * MiB)
    sizes = np.append(SIZES, [4 * MiB, 8 * MiB])
    best = np.append(best, [24.0, 24.0])
    b = capacity_bounds(sizes, best, (512 * KiB, 960 * KiB), memory)
    assert (b.held, b.held_at) == (MiB, MiB)
    assert MiB < b.half_miss < 1088 * KiB
    assert (b.hit, b.miss) == (8.0, 24.0)


def test_a_policy_that_keeps_what_fits_holds_the_size_at_every_larger_size():
    """An optimal policy on evenly coloured pages misses 1 - C/S of the
    accesses beyond the size C: the bytes that hit stay C, and half miss
    at 2 C. Neither bound depends on the latencies chosen."""
    capacity = MiB
    share = np.clip(1 - capacity / SIZES, 0, 1)
    sizes = np.append(SIZES, [6 * MiB, 8 * MiB])
    for hit, miss in [(8.0, 24.0), (3.0, 300.0)]:
        best = np.append(hit + share * (miss - hit), [miss, miss])
        b = capacity_bounds(sizes, best, (512 * KiB, 960 * KiB), (6 * MiB, 8 * MiB))
        assert b.held == capacity
        assert b.half_miss == pytest.approx(2 * capacity, rel=0.01)


def test_a_level_without_a_plateau_after_it_takes_the_cost_of_its_misses_as_given():
    """bounds_below, for the lower level of a split rise: the curve of the
    policy that keeps what fits (1 MiB), with a deeper level's misses
    adding time from 1.5 MiB on and no plateau at 24 ticks anywhere. Told
    that misses cost 24 ticks, the capacity held is the size, and the extra
    time can only lower it at larger sizes, never raise it."""
    capacity, hit, miss = MiB, 8.0, 24.0
    share = np.clip(1 - capacity / SIZES, 0, 1)
    deeper = np.where(1536 * KiB < SIZES, 40.0 * (SIZES - 1536 * KiB) / MiB, 0.0)
    best = hit + share * (miss - hit) + deeper
    b = bounds_below(SIZES, best, (512 * KiB, 960 * KiB), miss, SIZES[-1])
    assert (b.held, b.held_at) == (capacity, capacity)
    assert b.half_miss < 2 * capacity and b.admits(capacity)
    assert (b.hit, b.miss) == (hit, miss)
    assert bounds_below(SIZES, best, (512 * KiB, 960 * KiB), hit, SIZES[-1]) is None


def test_no_bounds_without_both_plateaus_or_a_slower_next_level():
    best = np.full(SIZES.size, 8.0)
    assert capacity_bounds(SIZES, best, (512 * KiB, 960 * KiB), (4 * MiB, 8 * MiB)) is None
    assert capacity_bounds(SIZES, best, (512 * KiB, 960 * KiB), (1536 * KiB, 2 * MiB)) is None


def test_geometry_sizes():
    assert geometry_sizes((16,), 64, 700 * KiB, 1200 * KiB) == [MiB]
    assert geometry_sizes((12, 16), 64, 600 * KiB, 2 * MiB) == [768 * KiB, MiB, 1536 * KiB, 2 * MiB]
    assert geometry_sizes((20,), 64, MiB, 1.3 * MiB) == [1280 * KiB]
    assert geometry_sizes((), 64, 1, 1 << 40) == []


def bounds(held, half):
    return CapacityBounds(held=int(held), held_at=int(held), half_miss=None if half is None else int(half),
                          hit=8.0, miss=24.0)


def test_one_geometry_size_between_the_bounds_is_the_size():
    # What a KVM guest's 1 MiB 16-way L2 showed: the fit said 1.25 MiB.
    size, method, why = choose(1280 * KiB, bounds(812 * KiB, 1194 * KiB), (16,), 64)
    assert (size, method) == (MiB, "capacity") and "16-way" in why


def test_the_fit_stands_where_the_bounds_admit_it_and_no_one_geometry_does():
    assert choose(1000 * KiB, bounds(800 * KiB, 1200 * KiB), (), 64)[:2] == (1000 * KiB, "probabilistic")
    # Two geometry sizes within the bounds: the fit decides (a 9 MiB cache of 12 ways has 6144 sets).
    assert choose(9 * MiB, bounds(5.7 * MiB, 10 * MiB), (8, 12), 128)[:2] == (9 * MiB, "probabilistic")


def test_a_fit_the_bounds_rule_out_gives_way_to_the_nearest_geometry():
    assert choose(12 * MiB, bounds(5.7 * MiB, 10 * MiB), (8, 12), 128)[:2] == (8 * MiB, "capacity")


def test_with_no_geometry_between_the_bounds_the_capacity_held_is_reported():
    size, method, why = choose(1536 * KiB, bounds(700 * KiB, 900 * KiB), (16,), 64)
    assert (size, method) == (700 * KiB, "capacity") and "capacity held" in why


def test_a_size_just_below_what_was_held_is_admitted_within_the_noise_margin():
    b = bounds(MiB, 2 * MiB)
    assert b.admits(0.96 * MiB) and not b.admits(0.9 * MiB) and b.admits(2.05 * MiB) and not b.admits(2.2 * MiB)


# The simulator: random pages, every policy. The bounds are physical facts,
# so the true size must lie between them in every case; and the size the
# analysis reports is within 10 %.
CASES = [("Dempsey", "lru"), ("Dempsey", "random"), ("Athlon 3200", "plru"), ("Athlon 3200", "random"),
         ("Dunnington", "lru"), ("Itanium2 Montvale", "lru")]
MACHINES = {m.name: m for m in cs.PAPER_MACHINES}


def simulated(machine, placement, passes=5, seed=1):
    line = max(c.line for c in machine.caches)
    top = -(-2 * max(machine.sizes()) // MiB) * MiB

    def run_pass(todo, pass_seed):
        order = np.argsort(todo)
        cycles = np.empty(todo.size)
        cycles[order] = cs.chase_sweep(machine, todo[order], placement=placement, passes=1, seed=pass_seed,
                                       line=line)
        return cycles[:, None], cycles[:, None] / 2.5, np.ones(todo.size), placement

    swept = run_passes(run_pass, sweep_sizes(1024, top, line, "fine"), PassPlan(passes, 1, line, True, seed))
    return swept, line


@pytest.mark.slow       # simulated sweeps of the paper's machines: up to 4 s each
@pytest.mark.parametrize("name,policy", CASES)
def test_on_random_pages_the_true_size_lies_between_the_bounds(name, policy):
    machine = MACHINES[name].with_policy(policy, otherwise="lru")
    swept, line = simulated(machine, "random")
    ways = tuple(sorted({c.ways for c in machine.caches[1:]}))
    levels = estimate_levels(swept.sizes, per_size(swept.ticks), refined=swept.refined, placement="unknown",
                             page_size=machine.page_size, best=envelope(swept.ticks), ways=ways, line=line)
    assert len(levels) == len(machine.caches)
    for lv, want in zip(levels[1:], machine.sizes()[1:]):
        # Bounds need the next level's plateau: the last level's rise may
        # still be climbing at the sweep's largest size (twice the cache).
        assert lv.held is not None or lv.level == len(levels), lv
        assert lv.held is None or lv.held <= want, (lv, want)
        assert lv.half_miss is None or want <= lv.half_miss * 1.05, (lv, want)
        assert abs(lv.size - want) <= 0.10 * want, (lv, want)
        assert lv.method in ("capacity", "probabilistic") and lv.model_size is not None


def test_best_must_match_the_sizes():
    with pytest.raises(ValueError, match="best must have one value per size"):
        estimate_levels([1024, 2048, 4096], [1.0, 2.0, 3.0], best=[1.0, 2.0])
