"""Shared-cache analysis on synthetic co-run ratios with known answers."""
import numpy as np
import pytest
from paper_machines import dunnington, finis_terrae

from hpcbench.cache import co_run_ratio
from hpcbench.cache._shared import PAPER_THRESHOLD, analyze_shared_caches, choose_corun_size, decision_threshold
from hpcbench.topology import plan_pairs
from hpcbench.topology._pairs import hwloc_shares_cache

SHARED_RATIO = 3.0


def synthetic_ratios(truth, plan, level, seed=0):
    """Co-run ratios of a machine whose real sharing is `truth`'s: 3 for a
    shared cache, 1 otherwise, with 5% noise."""
    rng = np.random.default_rng(seed)
    return {p: (SHARED_RATIO if hwloc_shares_cache(truth, *p, level) else 1.0) * rng.lognormal(0, 0.05)
            for p in plan.tested}


@pytest.mark.parametrize("mode", ["all", "auto"])
def test_dunnington_groups(mode):
    topo = dunnington()
    plan = plan_pairs(topo, mode=mode, sample=10)
    l2 = analyze_shared_caches(2, 3 << 20, 2 << 20, synthetic_ratios(topo, plan, 2), plan, topo)
    l3 = analyze_shared_caches(3, 12 << 20, 8 << 20, synthetic_ratios(topo, plan, 3), plan, topo)
    assert [0, 12] in l2.groups and len(l2.groups) == 12
    assert [0, 1, 2, 12, 13, 14] in l3.groups and len(l3.groups) == 4
    assert l2.groups == l2.hwloc_groups and l3.groups == l3.hwloc_groups
    assert l2.disagreements == [] and l3.disagreements == []
    l1 = analyze_shared_caches(1, 32 << 10, 21 << 10, synthetic_ratios(topo, plan, 1), plan, topo)
    assert l1.groups == [[c] for c in range(24)]


def test_all_and_auto_agree_when_hwloc_is_right():
    topo = dunnington()
    groups = []
    for mode in ("all", "auto"):
        plan = plan_pairs(topo, mode=mode)
        groups.append(analyze_shared_caches(3, 12 << 20, 8 << 20, synthetic_ratios(topo, plan, 3), plan).groups)
    assert groups[0] == groups[1]


def test_finis_terrae_all_private():
    topo = finis_terrae()
    plan = plan_pairs(topo, mode="all")
    for level in (1, 2, 3):
        result = analyze_shared_caches(level, 1 << 20, 1 << 19, synthetic_ratios(topo, plan, level), plan, topo)
        assert result.groups == [[c] for c in range(16)]
        assert result.sharing_pairs == []


def test_disagreement_with_hwloc_is_reported():
    # hwloc claims one L3 per package of 6 cores; the real machine has
    # private L3s (a virtual machine reporting its host's cache).
    claimed = dunnington()
    from hpcbench.topology import Topology
    real = Topology.from_synthetic("pack:4 l3:6(size=2MiB) l2:1(size=3MiB) l1:1(size=32KiB) core:1 pu:1")
    plan = plan_pairs(claimed, mode="all")
    result = analyze_shared_caches(3, 12 << 20, 8 << 20, synthetic_ratios(real, plan, 3), plan, claimed)
    assert result.groups == [[c] for c in range(24)]
    assert len(result.disagreements) == 4 * 15   # every same-package pair
    assert "hwloc says they do" in result.disagreements[0]


def test_auto_mode_reports_a_relation_that_hides_two_behaviours():
    # Same hwloc relation for every cross-package pair, but the real machine
    # shares a cache between packages 0 and 1 only: the sample must catch it.
    topo = dunnington()
    plan = plan_pairs(topo, mode="auto", sample=60, seed=2)
    ratios = {p: 3.0 if (p[0] % 12) // 3 in (0, 1) and (p[1] % 12) // 3 in (0, 1) else 1.0 for p in plan.tested}
    result = analyze_shared_caches(4, 1 << 30, 1 << 29, ratios, plan, topo)
    assert any("same hwloc relation" in line for line in result.disagreements)


def test_corun_size_is_capped_at_the_onset():
    sizes = np.array([1, 2, 4, 8, 16, 32, 64]) * (1 << 20)
    cycles = np.array([14, 14, 14, 30, 45, 45, 45], dtype=float)
    s, expected = choose_corun_size(12 << 20, onset=4 << 20, sizes=sizes, cycles=cycles)
    assert s == 4 << 20
    assert expected == pytest.approx(30 / 14)
    s2, _ = choose_corun_size(12 << 20, onset=None)
    assert s2 == 8 << 20


def test_threshold_rule():
    assert decision_threshold(None) == (PAPER_THRESHOLD, True)
    assert decision_threshold(9.0) == (2.0, True)
    t, ok = decision_threshold(1.69)
    assert ok and t == pytest.approx(1.3)
    assert decision_threshold(1.1)[1] is False
    assert decision_threshold(1.1, requested=2.0) == (2.0, True)


def test_undecidable_level_gives_no_groups():
    topo = dunnington()
    plan = plan_pairs(topo, mode="auto")
    result = analyze_shared_caches(2, 3 << 20, 2 << 20, dict.fromkeys(plan.tested, 1.05), plan, topo,
                                   expected_ratio=1.1)
    assert not result.decidable and result.groups == [] and result.disagreements == []


def test_co_run_ratio_uses_min_samples_and_median_rounds():
    alone = np.full((3, 2, 4), 10.0)
    together = np.full((3, 2, 4), 25.0)
    together[0, 0, :] = 1000.0          # one disturbed round
    together[1, 1, 2] = 5.0 * 10.0      # one disturbed sample in another round: min ignores it
    assert co_run_ratio(alone, together) == pytest.approx(2.5)


def test_missing_ratio_is_an_error():
    topo = dunnington()
    plan = plan_pairs(topo, mode="auto")
    with pytest.raises(ValueError, match="no co-run ratio"):
        analyze_shared_caches(2, 1 << 20, 1 << 19, {}, plan, topo)
