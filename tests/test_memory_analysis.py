"""Memory-overhead analysis on synthetic bandwidths with known answers."""
import numpy as np
import pytest
from paper_machines import dunnington, finis_terrae, finis_terrae_relative_bandwidth

from hpcbench.memory import analyze_memory_overhead, analyze_scalability, pair_bandwidth
from hpcbench.topology import plan_pairs

REFERENCE = 5e9


def synthetic(plan, relative_of, seed=0):
    rng = np.random.default_rng(seed)
    out = {}
    for p in plan.tested:
        ref = REFERENCE * rng.lognormal(0, 0.02)
        rel = relative_of(*p) * rng.lognormal(0, 0.02)
        out[p] = (ref, ref * rel, rel)
    return out


@pytest.mark.parametrize("mode", ["all", "auto"])
def test_dunnington_uniform_overhead(mode):
    plan = plan_pairs(dunnington(), mode=mode)
    result = analyze_memory_overhead(synthetic(plan, lambda a, b: 0.6), plan)
    assert len(result.levels) == 1
    assert result.levels[0].groups == [list(range(24))]
    assert result.levels[0].relative == pytest.approx(0.6, rel=0.05)
    assert result.reference == pytest.approx(REFERENCE, rel=0.05)


def test_finis_terrae_bus_and_cell():
    plan = plan_pairs(finis_terrae(), mode="all")
    result = analyze_memory_overhead(synthetic(plan, finis_terrae_relative_bandwidth), plan)
    assert len(result.levels) == 2
    bus, cell = result.levels
    assert bus.groups == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]
    assert cell.groups == [list(range(8)), list(range(8, 16))]
    assert bus.bandwidth < cell.bandwidth
    assert len(result.unaffected) == 64    # pairs across cells


def test_finis_terrae_auto_reports_what_hwloc_cannot_see():
    # hwloc sees cells (NUMA nodes) but not buses: auto mode must say so.
    plan = plan_pairs(finis_terrae(), mode="auto", sample=20, seed=1)
    result = analyze_memory_overhead(synthetic(plan, finis_terrae_relative_bandwidth), plan)
    assert result.inconsistencies
    assert "same hwloc relation" in result.inconsistencies[0]


def test_paper_example_groups():
    from hpcbench.topology import Topology
    plan = plan_pairs(Topology.from_synthetic("pack:1 core:6 pu:1"), mode="all")
    slow = {(0, 1), (0, 2), (3, 4), (3, 5)}
    result = analyze_memory_overhead(synthetic(plan, lambda a, b: 0.5 if (a, b) in slow else 1.0), plan)
    assert [lv.groups for lv in result.levels] == [[[0, 1, 2], [3, 4, 5]]]


def test_levels_do_not_depend_on_measuring_order():
    plan = plan_pairs(finis_terrae(), mode="all")
    data = synthetic(plan, finis_terrae_relative_bandwidth)
    shuffled = dict(reversed(list(data.items())))
    a = analyze_memory_overhead(data, plan)
    b = analyze_memory_overhead(shuffled, plan)
    assert [lv.groups for lv in a.levels] == [lv.groups for lv in b.levels]


def test_no_overhead():
    plan = plan_pairs(finis_terrae(), mode="all")
    result = analyze_memory_overhead(synthetic(plan, lambda a, b: 1.0), plan)
    assert result.levels == [] and len(result.unaffected) == 120


def test_pair_bandwidth_and_bad_tolerance():
    alone = np.full((3, 2, 5), 10e9)
    together = np.full((3, 2, 5), 6e9)
    together[0] = 1e9                     # one bad round: the median over rounds ignores it
    ref, bw, rel = pair_bandwidth(alone, together)
    assert (ref, bw, rel) == (10e9, 6e9, pytest.approx(0.6))
    plan = plan_pairs(finis_terrae(), mode="auto")
    with pytest.raises(ValueError, match="tolerance"):
        analyze_memory_overhead({}, plan, tolerance=1.5)


def test_scalability_totals():
    runs = [np.full((1, 4), 10e9), np.full((2, 4), 7e9), np.array([[5e9] * 4, [5e9] * 4, [4e9] * 4])]
    points = analyze_scalability(runs)
    assert [p["cores"] for p in points] == [1, 2, 3]
    assert points[1]["total"] == pytest.approx(14e9)
    assert points[2]["slowest_core"] == 4e9 and points[2]["total"] == pytest.approx(14e9)
