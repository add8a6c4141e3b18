"""Slow nodes and links of a network map, and bisection figures, on
synthetic matrices with known answers (hpcbench.netmap._analysis, the rule
of hpcbench._robust)."""
import json
import math

import numpy as np
import pytest

from hpcbench._results import record_from_dict
from hpcbench.netmap import bisection_figures, slow_links, slow_nodes
from hpcbench.netmap._benchmark import bisection_record, map_record
from hpcbench.netmap._measure import MapSamples
from hpcbench.netmap._options import BisectionOptions, NetworkMapOptions

RATE = 25e6          # bytes/s of every link
SIZE = 1 << 20


def _seconds(n, rate=RATE, noise=0.03, seed=0, slow_pairs=(), slow_node=None, factor=0.5, k=5):
    """n x n x k seconds of SIZE-byte flows at `rate`, with a few percent of noise;
    the listed ordered pairs, and every pair of `slow_node`, at `factor` x rate."""
    rng = np.random.default_rng(seed)
    bw = np.full((n, n), rate)
    for a, b in slow_pairs:
        bw[a, b] *= factor
    if slow_node is not None:
        bw[slow_node, :] *= factor
        bw[:, slow_node] *= factor
    seconds = SIZE / bw[:, :, None] * (1 + noise * rng.random((n, n, k)))
    for i in range(n):
        seconds[i, i] = np.nan
    return seconds


def _latency(n, seed=0, slow_node=None):
    rng = np.random.default_rng(seed + 100)
    lat = 50e-6 * (1 + 0.05 * rng.random((n, n, 5)))
    lat = (lat + lat.transpose(1, 0, 2)) / 2
    if slow_node is not None:
        lat[slow_node, :] *= 3
        lat[:, slow_node] *= 3
    for i in range(n):
        lat[i, i] = np.nan
    return lat


def _record(seconds, latency):
    labels = [f"node{i}" for i in range(seconds.shape[0])]
    samples = MapSamples(bandwidth_loaded=seconds, latency_loaded=latency, bandwidth_alone=seconds.copy(),
                         latency_alone=latency.copy())
    return map_record("network-map", NetworkMapOptions(), labels, True, samples)


@pytest.mark.parametrize("seed", range(5))
def test_a_healthy_map_has_no_finding(seed):
    record = _record(_seconds(8, seed=seed), _latency(8, seed=seed))
    assert record.slow_nodes == [] and record.slow_links == []


def test_one_slow_link_is_named_both_ways_and_nothing_else():
    record = _record(_seconds(8, slow_pairs=[(2, 5), (5, 2)]), _latency(8))
    assert record.slow_nodes == []
    assert {(s.source, s.destination) for s in record.slow_links} == {("node2", "node5"), ("node5", "node2")}
    link = record.slow_links[0]
    assert link.relative == pytest.approx(0.5, abs=0.03)
    assert "against a median of" in link.evidence and "worse" in link.evidence


def test_one_slow_link_one_way_is_named_one_way():
    record = _record(_seconds(8, slow_pairs=[(3, 1)]), _latency(8))
    assert [(s.source, s.destination) for s in record.slow_links] == [("node3", "node1")]


def test_a_slow_node_is_named_and_its_links_are_not():
    record = _record(_seconds(8, slow_node=6), _latency(8))
    assert [n.node for n in record.slow_nodes] == ["node6"]
    assert record.slow_links == []


def test_a_node_slow_in_latency_only_is_named():
    record = _record(_seconds(8), _latency(8, slow_node=1))
    assert [n.node for n in record.slow_nodes] == ["node1"]
    assert record.slow_nodes[0].matrix.startswith("latency")


def test_a_slow_link_beside_a_slow_node_is_still_found():
    record = _record(_seconds(8, slow_node=0, slow_pairs=[(3, 4)]), _latency(8))
    assert [n.node for n in record.slow_nodes] == ["node0"]
    assert [(s.source, s.destination) for s in record.slow_links] == [("node3", "node4")]


def test_small_differences_are_not_findings():
    """A link 10 % slower on a map with almost no spread: beyond the MADs, below the 15 % floor."""
    record = _record(_seconds(8, noise=0.001, slow_pairs=[(1, 2)], factor=0.9), _latency(8))
    assert record.slow_links == []


def test_two_members_judge_nothing():
    assert slow_nodes({"bandwidth_loaded": np.array([[np.nan, 1.0], [0.1, np.nan]])}) == []
    assert slow_links({"bandwidth_loaded": np.array([[np.nan, 1.0], [0.1, np.nan]])}, set()) == []


def test_bisection_figures_known_answers():
    # 2 bisections x 4 flows x 2 iterations: flows at 10, 20, 30, 40 MB/s; the second bisection all at 40
    rates = np.array([[10e6, 20e6, 30e6, 40e6], [40e6, 40e6, 40e6, 40e6]])
    seconds = np.repeat((SIZE / rates)[:, :, None], 2, axis=2)
    f = bisection_figures(SIZE, seconds)
    assert f.median == pytest.approx(40e6)
    assert f.mean == pytest.approx(np.mean([10e6, 20e6, 30e6, 40e6, 40e6, 40e6, 40e6, 40e6]))
    assert f.worst == pytest.approx(10e6)
    assert list(f.totals) == pytest.approx([100e6, 160e6])


def test_records_round_trip_through_plain_data():
    record = _record(_seconds(4, slow_pairs=[(0, 1)], factor=0.3), _latency(4))
    rates = np.full((3, 4, 2), SIZE / RATE)
    bis = bisection_record("bisection", BisectionOptions(bisections=3), [f"node{i}" for i in range(4)],
                           [[(0, 1), (2, 3)]] * 3, rates)
    plain = json.loads(json.dumps({"benchmarks": [record.to_dict(), bis.to_dict()]}))    # NaN -> null, as a file
    back = {name: record_from_dict(plain["benchmarks"][i]) for i, name in enumerate(["network-map", "bisection"])}
    assert back["network-map"].slow_links[0].source == "node0"
    assert math.isnan(np.array(back["network-map"].derived.bandwidth_loaded, dtype=float)[0, 0])
    assert back["bisection"].pair_bandwidth == pytest.approx(RATE)


def test_suspects_are_the_links_out_of_line_not_a_slow_nodes_cells():
    from hpcbench.netmap._analysis import bandwidth as to_bandwidth
    from hpcbench.netmap._analysis import median_cells, suspect_cells
    matrices = {"bandwidth_loaded": to_bandwidth(SIZE, _seconds(8, slow_pairs=[(2, 5)])),
                "bandwidth_alone": to_bandwidth(SIZE, _seconds(8, slow_node=6)),
                "latency_loaded": median_cells(_latency(8))}
    found = suspect_cells(matrices)
    assert found["bandwidth_loaded"] == {(2, 5)}
    assert "bandwidth_alone" not in found and "latency_loaded" not in found


def test_a_second_measurement_keeps_the_better_of_the_two():
    from hpcbench.netmap._analysis import keep_better
    first = _seconds(4, slow_pairs=[(0, 1), (2, 3)])
    second = _seconds(4, seed=9)                          # the slowdown of (0, 1) was transient; (2, 3)'s is not
    second[2, 3] = first[2, 3] * 1.1
    kept = keep_better(first, second, {(0, 1), (2, 3)})
    assert np.array_equal(kept[0, 1], second[0, 1])
    assert np.array_equal(kept[2, 3], first[2, 3])
    assert np.array_equal(kept[1, 0], first[1, 0])          # a cell not suspected keeps its first samples
    assert keep_better(first, None, {(0, 1)}) is first


def test_latency_counts_from_half_again_the_median():
    """Latencies differ with the path: a pair 30 % slower to answer is no finding, one 2x slower is."""
    for factor, named in ((1.3, []), (2.0, [("node1", "node4"), ("node4", "node1")])):
        lat = _latency(8)
        lat[1, 4] *= factor
        lat[4, 1] *= factor
        record = _record(_seconds(8), lat)
        assert sorted((s.source, s.destination) for s in record.slow_links) == named


def test_a_file_whose_matrices_or_findings_do_not_fit_its_members_is_refused():
    from hpcbench._record import SchemaError
    record = _record(_seconds(4, slow_pairs=[(0, 1)], factor=0.3), _latency(4)).to_dict()
    plain = json.loads(json.dumps(record))
    plain["derived"]["slow_links"][0]["source"] = "elsewhere"
    with pytest.raises(SchemaError, match="must name members of the map"):
        record_from_dict(plain)
    seconds = np.full((3, 4, 2), SIZE / RATE)
    bis = json.loads(json.dumps(bisection_record("bisection", BisectionOptions(bisections=3),
                                                 [f"node{i}" for i in range(4)], [[(0, 1), (2, 3)]] * 3,
                                                 seconds).to_dict()))
    bis["derived"]["pair_samples"][1] = bis["derived"]["pair_samples"][1][:3]
    with pytest.raises(SchemaError, match="3 bisections x 4 flows"):
        record_from_dict(bis)
