"""Cache levels from curves of simulated machines with known caches."""
import cachesim as cs
import numpy as np
import pytest

from hpcbench.cache import _analysis as analysis
from hpcbench.cache import estimate_levels


def two_stage_sweep(machine, seed):
    """What hpcbench.cache.measure does: the paper's grid, then refinement."""
    sizes, cycles = cs.sweep(machine, seed=seed)
    extra = analysis.refinement_sizes(sizes, cycles)
    s2, c2 = cs.sweep(machine, sizes=extra, seed=seed + 1000)
    all_sizes = np.r_[sizes, s2]
    order = np.argsort(all_sizes)
    refined = np.r_[np.zeros(sizes.size, bool), np.ones(s2.size, bool)][order]
    return all_sizes[order], np.r_[cycles, c2][order], refined


@pytest.mark.parametrize("machine", cs.PAPER_MACHINES, ids=lambda m: m.name)
def test_paper_machines_exact(machine):
    sizes, cycles, refined = two_stage_sweep(machine, seed=0)
    levels = estimate_levels(sizes, cycles, page_size=machine.page_size, refined=refined)
    assert [lv.size for lv in levels] == machine.sizes()
    assert [lv.level for lv in levels] == list(range(1, len(machine.caches) + 1))
    assert levels[0].method == "peak"
    assert all(lv.method == "probabilistic" for lv in levels[1:])


def test_paper_machines_accuracy_over_placements():
    """Ten random page placements per machine: at least 95% of the 100
    sizes exact, none more than 5% off."""
    exact, total = 0, 0
    for machine in cs.PAPER_MACHINES:
        for seed in range(1, 11):
            sizes, cycles, refined = two_stage_sweep(machine, seed)
            got = [lv.size for lv in estimate_levels(sizes, cycles, page_size=machine.page_size, refined=refined)]
            assert len(got) == len(machine.caches), (machine.name, seed, got)
            for g, want in zip(got, machine.sizes()):
                total += 1
                exact += g == want
                assert abs(g - want) / want <= 0.05, (machine.name, seed, got)
    assert exact / total >= 0.95


ICE_LAKE_LIKE = cs.Machine("48 KiB L1, 1.25 MiB L2", (
    cs.Cache(48 << 10, 12, latency=5, physical=False), cs.Cache(1280 << 10, 20, latency=14)), memory_latency=200)
SKYLAKE_SP_LIKE = cs.Machine("35.75 MiB L3", (
    cs.Cache(32 << 10, 8, latency=4, physical=False), cs.Cache(1 << 20, 16, latency=14),
    cs.Cache(36608 << 10, 11, latency=60)), memory_latency=250)


def test_sizes_that_are_not_powers_of_two():
    sizes, cycles, refined = two_stage_sweep(ICE_LAKE_LIKE, seed=0)
    assert [lv.size for lv in estimate_levels(sizes, cycles, refined=refined)] == [48 << 10, 1280 << 10]
    sizes, cycles, refined = two_stage_sweep(SKYLAKE_SP_LIKE, seed=0)
    got = [lv.size for lv in estimate_levels(sizes, cycles, refined=refined)]
    assert got[:2] == [32 << 10, 1 << 20]
    assert abs(got[2] - (36608 << 10)) / (36608 << 10) < 0.02


def test_the_papers_rule_as_printed_is_available():
    sizes, cycles, refined = two_stage_sweep(cs.DEMPSEY, seed=0)
    levels = estimate_levels(sizes, cycles, refined=refined, model="paper", selection="mode")
    assert levels[0].size == 16 << 10
    assert abs(levels[1].size - (2 << 20)) / (2 << 20) < 0.15


def test_single_step_rise_is_a_peak():
    # A page-coloured L2 of 256 KiB: all misses start at one size.
    sizes = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]) << 10
    cycles = np.array([3, 3, 3, 3, 3, 10, 10, 10, 10, 80, 80, 80], dtype=float)
    levels = estimate_levels(sizes, cycles)
    assert [(lv.size, lv.method) for lv in levels] == [(16 << 10, "peak"), (256 << 10, "peak")]


def test_flat_curve_has_no_levels():
    sizes = np.array([1, 2, 4, 8, 16]) << 10
    assert estimate_levels(sizes, np.full(5, 4.0)) == []


def test_monotone_fit_is_the_least_squares_non_decreasing_fit():
    y = np.array([1.0, 3.0, 2.0, 4.0, 3.5, 3.5, 6.0])
    fit = analysis.monotone_fit(y)
    assert np.all(np.diff(fit) >= 0)
    assert fit.tolist() == [1.0, 2.5, 2.5, 3.6666666666666665, 3.6666666666666665, 3.6666666666666665, 6.0]
    assert fit.sum() == pytest.approx(y.sum())  # pooling keeps the mean


def test_gradient_is_the_papers():
    assert analysis.gradient([2.0, 4.0, 4.0]).tolist() == [2.0, 1.0]


@pytest.mark.parametrize("sizes,cycles,message", [
    ([1024, 2048], [1.0, 2.0], "at least 3"),
    ([1024, 2048, 4096], [1.0, 2.0], "same length"),
    ([1024, 1024, 4096], [1.0, 2.0, 3.0], "strictly increasing"),
    ([1024, -2048, 4096], [1.0, 2.0, 3.0], "positive"),
    ([1024, 2048, 4096], [1.0, float("nan"), 3.0], "positive finite"),
])
def test_bad_input_is_one_clear_error(sizes, cycles, message):
    with pytest.raises(ValueError, match=message):
        estimate_levels(sizes, cycles)


def test_bad_page_size():
    with pytest.raises(ValueError, match="page_size must be a positive integer"):
        estimate_levels([1024, 2048, 4096], [1, 2, 3], page_size=0)
