"""Memory-overhead analysis on synthetic bandwidths with known answers."""
import numpy as np
import pytest
from paper_machines import dunnington, finis_terrae, finis_terrae_relative_bandwidth

from hpcbench.memory import analyze_scalability, pair_aggregate, pair_bandwidth, run_aggregate
from hpcbench.memory._analysis import (
    OVERSTATED,
    UNEVEN_CORES,
    aggregate_bandwidth,
    analyze_memory_overhead,
    uneven_cores_warning,
)
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


BYTES = 2 * (128 << 20)      # bytes per copy of 128 MiB arrays


def timed(durations_ms, skew_ns=0.0, gap_ns=1e5):
    """Hand-made starts and ends (members, repetitions) in ns: member m's
    copies last durations_ms[m] ms, member m starts m * skew_ns late, and
    each repetition starts gap_ns after the previous one's last end."""
    d = np.asarray(durations_ms, dtype=float)
    d = d[:, None] if d.ndim == 1 else d
    members, reps = d.shape[0], max(d.shape[1], 3)
    d = np.broadcast_to(d, (members, reps)) * 1e6
    start, end = np.empty((members, reps)), np.empty((members, reps))
    t = 0.0
    for r in range(reps):
        start[:, r] = t + skew_ns * np.arange(members)
        end[:, r] = start[:, r] + d[:, r]
        t = end[:, r].max() + gap_ns
    return start, end, BYTES / (d * 1e-9)     # and each member's own rate, bytes/s


def test_aggregate_of_equal_cores_is_the_sum_of_their_rates():
    start, end, rates = timed([10.0, 10.0, 10.0, 10.0])
    aggregate = aggregate_bandwidth(BYTES, start, end)
    assert aggregate.shape == (start.shape[1],)
    assert aggregate == pytest.approx(rates.sum(axis=0))
    assert aggregate == pytest.approx(4 * BYTES / 10e-3)


def test_aggregate_with_one_core_twice_as_slow_counts_the_slow_core_s_span():
    start, end, rates = timed([10.0, 20.0])
    aggregate = run_aggregate(BYTES, start, end)
    assert aggregate == pytest.approx(2 * BYTES / 20e-3)             # all bytes over the slow core's span
    # The sum of rates, 1/10 + 1/20 of the bytes per ms, is 1.5x that.
    assert rates[:, 0].sum() / aggregate == pytest.approx(1.5)


def test_aggregate_counts_from_the_first_start():
    start, end, _ = timed([10.0, 10.0], skew_ns=1e6)                 # the second member starts 1 ms late
    assert run_aggregate(BYTES, start, end) == pytest.approx(2 * BYTES / 11e-3)


def test_aggregate_of_one_core_is_its_rate():
    start, end, rates = timed([[10.0, 12.0, 11.0]])
    assert aggregate_bandwidth(BYTES, start, end) == pytest.approx(rates[0])


def test_run_aggregate_is_the_median_over_repetitions():
    # One repetition in which the second core was held up 5x does not move
    # the median; the mean over repetitions would.
    start, end, _ = timed([[10.0, 10.0, 10.0], [10.0, 50.0, 10.0]])
    assert run_aggregate(BYTES, start, end) == pytest.approx(2 * BYTES / 10e-3)


def test_pair_aggregate_is_the_median_over_rounds():
    rounds = [timed([10.0, 10.0]), timed([10.0, 20.0]), timed([10.0, 40.0])]
    start = np.stack([s for s, _, _ in rounds])
    end = np.stack([e for _, e, _ in rounds])
    assert start.shape == (3, 2, 3)
    assert pair_aggregate(BYTES, start, end) == pytest.approx(2 * BYTES / 20e-3)


def test_scalability_points_carry_the_aggregate():
    runs = [timed([10.0]), timed([10.0, 20.0])]
    points = analyze_scalability([r for _, _, r in runs], BYTES, [s for s, _, _ in runs], [e for _, e, _ in runs])
    assert points[0].aggregate == pytest.approx(points[0].total)
    assert points[1].total == pytest.approx(BYTES / 10e-3 + BYTES / 20e-3)
    assert points[1].aggregate == pytest.approx(2 * BYTES / 20e-3) and points[1].all_cores == points[1].aggregate
    # Without the times (files from before them) there is no aggregate.
    old = analyze_scalability([r for _, _, r in runs])
    assert [p.aggregate for p in old] == [None, None] and old[1].all_cores == old[1].total


def test_uneven_cores_are_warned_with_how_much_the_sum_overstates():
    even = ("node with 2 cores", [10e9, 9e9], 19e9)
    assert uneven_cores_warning([even, ("alone", [5e9], 5e9)]) is None
    slow = ("pair 0-1", [10e9, 0.5 * 10e9], 10e9)       # the sum, 15e9, is 1.5x what the memory delivered
    line = uneven_cores_warning([even, slow])
    assert line is not None and "pair 0-1 (slowest core 0.50 x the fastest, sum 1.50 x the aggregate)" in line
    assert "node" not in line
    assert uneven_cores_warning([("edge", [10e9, UNEVEN_CORES * 10e9], 18e9)]) is None


def test_cores_taking_turns_are_warned_though_their_medians_are_even():
    # Each core fast in most repetitions, slow in the others: even medians,
    # but every repetition waited for a slow core.
    turns = ("node with 2 cores", [30e9, 29e9], 22e9)
    line = uneven_cores_warning([turns])
    assert line is not None and "sum 2.68 x the aggregate" in line
    assert uneven_cores_warning([("edge", [10e9, 10e9], 20e9 / OVERSTATED)]) is None


def test_levels_carry_the_mean_aggregate_of_their_tested_pairs():
    plan = plan_pairs(finis_terrae(), mode="all")
    data = synthetic(plan, finis_terrae_relative_bandwidth)
    aggregates = {p: 1.5 * v[1] for p, v in data.items()}
    result = analyze_memory_overhead(data, plan, aggregates=aggregates)
    assert result.levels
    for lv in result.levels:
        assert lv.aggregate == pytest.approx(1.5 * lv.bandwidth)
        assert result.to_record().levels[result.levels.index(lv)].aggregate == lv.aggregate
    assert all(lv.aggregate is None for lv in analyze_memory_overhead(data, plan).levels)
