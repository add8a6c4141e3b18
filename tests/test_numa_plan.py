"""numa without hardware: the plan (which cores read, which core chases,
which nodes) on hwloc synthetic topologies of several NUMA nodes, the
analysis on synthetic measurements of known ratios, hwloc's distances from
an XML file that carries a SLIT (tests/data/numa/), and the time model."""
import dataclasses
import os

import numpy as np
import pytest

from hpcbench import _errors
from hpcbench.numa import analyze_numa, hwloc_distances, plan_numa
from hpcbench.numa._analysis import cell_figures, relative
from hpcbench.numa._measure import check_memory, check_numa, round_buffer
from hpcbench.numa._options import NumaOptions, node_list_arg
from hpcbench.numa._plan import one_pu_per_core
from hpcbench.topology import Topology

HERE = os.path.dirname(os.path.abspath(__file__))
SLIT_XML = os.path.join(HERE, "data", "numa", "pack2-numa2-slit.xml")
FOUR_NODES = "pack:2 numa:2 core:4 pu:1"
SMT = "pack:2 numa:1 core:2 pu:2"


def test_every_node_of_a_synthetic_machine_pairs_with_every_node():
    plan = plan_numa(Topology.from_synthetic(FOUR_NODES))
    assert plan.nodes == plan.cpu_nodes == [0, 1, 2, 3]
    assert plan.readers == {0: [0, 1, 2, 3], 1: [4, 5, 6, 7], 2: [8, 9, 10, 11], 3: [12, 13, 14, 15]}
    assert [plan.chaser(n) for n in plan.nodes] == [0, 4, 8, 12]
    assert len(plan.cells) == 16 and plan.cells[:4] == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert plan.largest_team == 4


def test_chosen_nodes_and_one_pu_per_core():
    plan = plan_numa(Topology.from_synthetic(SMT), [1])
    assert plan.nodes == [1] and plan.cells == [(1, 1)]
    assert plan.readers[1] == [4, 6]            # cores of package 1, their first hardware thread
    topo = Topology.from_synthetic(SMT)
    assert one_pu_per_core(topo, [1, 2, 3]) == [1, 2]


def test_a_node_that_does_not_exist_names_the_nodes_there_are():
    with pytest.raises(_errors.OptionError, match=r"nodes must name NUMA nodes of this machine \(0, 1, 2, 3\), "
                                                  r"got 7"):
        plan_numa(Topology.from_synthetic(FOUR_NODES), [0, 7])


def test_node_lists_parse_as_sorted_sets():
    assert node_list_arg("3,0-1,1") == [0, 1, 3]
    with pytest.raises(Exception, match="a NUMA node list is numbers"):
        node_list_arg("a")


def test_kernel_rules_are_named_as_the_options():
    with pytest.raises(_errors.OptionError, match="^size must be a multiple of 128 bytes"):
        check_numa(100, 2)
    with pytest.raises(_errors.OptionError, match="^repetitions"):
        check_numa(1 << 20, 1, repetitions=0)
    check_numa(1 << 20, 4)
    assert round_buffer((1 << 20) + 100, 3) % (64 * 3) == 0


def test_a_buffer_larger_than_the_memory_is_refused():
    topo = Topology.from_synthetic("pack:2 numa:1(memory=1GiB) core:2 pu:1")
    plan = plan_numa(topo)
    with pytest.raises(_errors.OptionError, match="size must fit in the 64 MiB"):
        check_memory(128 << 20, topo, plan, limit=64 << 20)
    with pytest.raises(_errors.OptionError, match="size must fit in NUMA node 0's 1 GiB"):
        check_memory(2 << 30, topo, plan, limit=1 << 40)
    check_memory(512 << 20, topo, plan, limit=1 << 40)


def test_cell_figures_are_the_best_rate_and_the_lowest_latency():
    assert cell_figures([1.0, 3.0, 2.0], [90.0, 80.0, 85.0]) == (3.0, 80.0)


def _synthetic(nodes, local_bw, local_ns, remote_bw_ratio, remote_ns_ratio):
    bw = {(i, j): local_bw * (1 if i == j else remote_bw_ratio[abs(i - j)]) for i in nodes for j in nodes}
    ns = {(i, j): local_ns * (1 if i == j else remote_ns_ratio[abs(i - j)]) for i in nodes for j in nodes}
    return bw, ns


def _from_slit(nodes, matrix):
    """Measurements exactly as a SLIT says: latency 10 ns per unit of distance, bandwidth inverse to it."""
    bw = {(i, j): 400e9 / matrix[i][j] for i in nodes for j in nodes}
    ns = {(i, j): 10.0 * matrix[i][j] for i in nodes for j in nodes}
    return bw, ns


def test_analysis_recovers_known_ratios():
    nodes = [0, 1, 2, 3]
    bw, ns = _synthetic(nodes, 40e9, 100.0, {1: 0.8, 2: 0.5, 3: 0.4}, {1: 1.2, 2: 1.6, 3: 2.0})
    a = analyze_numa(nodes, nodes, bw, ns)
    assert a.local_bandwidth == pytest.approx(40e9) and a.local_latency_ns == pytest.approx(100.0)
    assert a.worst_bandwidth_ratio == pytest.approx(0.4) and a.worst_latency_ratio == pytest.approx(2.0)
    assert a.bandwidth_ratio[0] == pytest.approx([1.0, 0.8, 0.5, 0.4])
    assert a.latency_ratio[2] == pytest.approx([1.6, 1.2, 1.0, 1.2])
    assert a.hwloc_ratio is None and a.disagreements == [] and not a.single_node


def test_one_node_is_the_one_local_figure():
    a = analyze_numa([0], [0], {(0, 0): 30e9}, {(0, 0): 110.0})
    assert a.single_node and a.local_bandwidth == 30e9 and a.local_latency_ns == 110.0
    assert a.worst_bandwidth_ratio is None and a.worst_latency_ratio is None
    assert a.bandwidth_ratio == [[1.0]]


def test_memory_only_nodes_are_columns_without_a_row():
    bw = {(0, 0): 40e9, (0, 1): 10e9}
    ns = {(0, 0): 100.0, (0, 1): 300.0}
    a = analyze_numa([0], [0, 1], bw, ns)
    assert a.bandwidth_ratio == [[1.0, 0.25]] and a.latency_ratio == [[1.0, 3.0]]
    assert relative([1], [0, 1], bw) == [[None, None]]      # no local cell in that row


def test_hwloc_distances_from_an_xml_slit_sit_beside_the_measured_ones():
    topo = Topology.from_xml(SLIT_XML)
    nodes, matrix = hwloc_distances(topo)
    assert nodes == [0, 1, 2, 3] and matrix[0].tolist() == [10, 12, 20, 22]
    assert hwloc_distances(Topology.from_synthetic(FOUR_NODES)) is None
    bw, ns = _from_slit(nodes, matrix)
    a = analyze_numa(nodes, nodes, bw, ns, (nodes, matrix))
    assert a.latency_ratio[3] == pytest.approx([2.2, 2.0, 1.2, 1.0])
    assert a.hwloc_ratio[0] == pytest.approx([1.0, 1.2, 2.0, 2.2])
    assert a.disagreements == []
    a = analyze_numa([0, 1], [0, 1], bw, ns, ([0, 1, 2], np.ones((3, 3)) * 10))
    assert a.hwloc_ratio == [[1.0, 1.0], [1.0, 1.0]]
    assert analyze_numa([0], [0, 5], {}, {}, (nodes, matrix)).hwloc_ratio is None    # node 5 unknown to hwloc


def test_contradictions_are_said():
    nodes = [0, 1, 2, 3]
    matrix = np.array([[10, 12, 20, 22], [12, 10, 22, 20], [20, 22, 10, 12], [22, 20, 12, 10]], dtype=float)
    bw, ns = _from_slit(nodes, matrix)
    assert analyze_numa(nodes, nodes, bw, ns, (nodes, matrix)).disagreements == []
    ns[(0, 1)], bw[(0, 3)] = 50.0, 60e9                 # remote faster than local
    ns[(0, 2)] = 300.0                                  # node 2 slower than node 3 (220 ns) for node 0's cores
    words = analyze_numa(nodes, nodes, bw, ns, (nodes, matrix)).disagreements
    assert "cores of node 0: memory of node 1 answers faster than their own (0.50x the local latency)" in words
    assert "cores of node 0: memory of node 3 delivers more than their own (1.50x the local bandwidth)" in words
    assert ("cores of node 0: hwloc puts node 2 nearer than node 3 (relative distance 2.0 < 2.2), measured 300 ns "
            "vs 220 ns") in words
    assert len(words) == 3


def test_the_time_model_counts_cells():
    from hpcbench import _estimate
    one = _estimate.numa_seconds(NumaOptions(size=128 << 20), Topology.from_synthetic("pack:1 numa:1 core:2 pu:1"))
    four = _estimate.numa_seconds(NumaOptions(size=128 << 20), Topology.from_synthetic(FOUR_NODES))
    assert 0 < one < 2 and four == pytest.approx(0.1 + 16 * (one - 0.1))
    assert _estimate.numa_seconds(dataclasses.replace(NumaOptions(size=128 << 20), nodes=[0, 1]),
                                  Topology.from_synthetic(FOUR_NODES)) == pytest.approx(0.1 + 4 * (one - 0.1))


def _record(nodes, matrix):
    """A numa record of synthetic cells that follow `matrix` (a SLIT), as the benchmark builds it."""
    from hpcbench.numa._records import NumaCell, NumaDerived, NumaParameters, NumaRaw, NumaRecord
    bw, ns = _from_slit(nodes, matrix)
    a = analyze_numa(nodes, nodes, bw, ns, (nodes, matrix))
    cells = [NumaCell(cpu_node=i, memory_node=j, readers=[4 * i, 4 * i + 1], chaser=4 * i, bytes_per_read=1 << 27,
                      bandwidth=[bw[i, j]], latency_ns=[ns[i, j]], strict=True, location_chunks=64,
                      misplaced_chunks=0) for i in nodes for j in nodes]
    derived = NumaDerived(rows=a.rows, cols=a.cols, bandwidth=a.bandwidth, latency_ns=a.latency_ns,
                          bandwidth_ratio=a.bandwidth_ratio, latency_ratio=a.latency_ratio,
                          local_bandwidth=a.local_bandwidth, local_latency_ns=a.local_latency_ns,
                          worst_bandwidth_ratio=a.worst_bandwidth_ratio, worst_latency_ratio=a.worst_latency_ratio,
                          hwloc_ratio=a.hwloc_ratio, pages_checked=True, pages_misplaced=0)
    params = NumaParameters(nodes=nodes, buffer_bytes=1 << 27, repetitions=1, accesses=1000, pages="normal",
                            order="windowed", window_bytes=131072, isa="avx512", seed=1, kernel="read; chase")
    return NumaRecord(name="numa", node="fake", status="ok", parameters=params, raw=NumaRaw(cells=cells),
                      derived=derived, warnings=[])


def test_show_report_and_tidy_of_four_nodes():
    from hpcbench import _registry
    from hpcbench._results import record_from_dict
    matrix = np.array([[10, 12, 20, 22], [12, 10, 22, 20], [20, 22, 10, 12], [22, 20, 12, 10]], dtype=float)
    record = record_from_dict(_record([0, 1, 2, 3], matrix).to_dict(), "numa")     # through the file's codec
    bench = _registry.get("numa")
    lines = bench.summary(record)
    assert lines[2].split() == ["cores", "\\", "memory", "node", "0", "node", "1", "node", "2", "node", "3"]
    assert lines[3].split() == ["node", "0", "40.0", "(1.00)", "33.3", "(0.83)", "20.0", "(0.50)", "18.2", "(0.45)"]
    assert "220.0 (2.20, hwloc 2.2)" in lines[9]
    assert lines[-2] == "  local (mean of the diagonal): 40.0 GB/s, 100.0 ns; worst remote/local: bandwidth 0.45x, " \
                        "latency 2.20x"
    heads = {h.label: h.value for h in bench.headlines(record)}
    assert heads == pytest.approx({"local read bandwidth": 40e9, "local load latency": 100e-9,
                                   "worst remote/local bandwidth": 10 / 22, "worst remote/local latency": 2.2})
    rows = {r.quantity: r.value for r in bench.tidy(record)}
    assert rows["latency_ratio cores 3 memory 0"] == pytest.approx(2.2)
    assert rows["hwloc_distance_ratio cores 1 memory 2"] == pytest.approx(2.2)
    assert rows["bandwidth cores 0 memory 2"] == pytest.approx(20e9)
    assert len(bench.tidy(record)) == 4 + 16 * 5
    assert "45% of the local bandwidth" in bench.meaning(record)[1]
    pytest.importorskip("matplotlib")
    assert len(bench.plot(record).axes) >= 2


def test_the_buffer_outgrows_the_caches_of_the_largest_team():
    from hpcbench.numa._measure import chase_bytes, default_buffer_bytes, team_cache_bytes
    one_l3 = Topology.from_synthetic("pack:1 numa:1 l3:1(size=32MiB) l2:2(size=1MiB) core:1 pu:1")
    assert default_buffer_bytes(one_l3, plan_numa(one_l3)) == chase_bytes(one_l3) == 128 << 20
    many = Topology.from_synthetic("pack:2 numa:1 l3:4(size=32MiB) l2:2(size=1MiB) core:1 pu:1")
    plan = plan_numa(many)
    assert team_cache_bytes(many, plan.readers[0]) == 4 * (32 << 20)      # four L3s per node
    assert chase_bytes(many) == 128 << 20 and default_buffer_bytes(many, plan) == 512 << 20
    small = Topology.from_synthetic("pack:1 numa:1 l2:2(size=1MiB) core:1 pu:1")
    assert default_buffer_bytes(small, plan_numa(small)) == 64 << 20      # the memory benchmark's floor


def test_disagreements_are_the_contradictions_and_misplaced_pages():
    from hpcbench import _registry
    matrix = np.array([[10, 20], [20, 10]], dtype=float)
    record = _record([0, 1], matrix)
    bench = _registry.get("numa")
    assert bench.disagreements(record) == []
    record.warnings = ["cores of node 0: memory of node 1 answers faster than their own (0.50x the local latency)",
                       "numa: 3 of 40 samples were far from their median"]
    record.derived.pages_misplaced = 2
    assert bench.disagreements(record) == [record.warnings[0], "2 chunk(s) of the bound buffers had pages on another "
                                           "node than bound: those cells measured other memory than they say"]
