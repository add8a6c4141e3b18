"""Rank allocation (hpcbench/predict/_allocate.py) rank by rank against
Hammond et al. 2009, section 7: round robin (rank r on node r mod nodes),
node fill (each node filled in turn), processor fill (one processor's cores
per node per pass round the nodes); machines; placements from mappings."""
from types import SimpleNamespace

import numpy as np
import pytest

from hpcbench.predict import MachineError, PlacementError
from hpcbench.predict._allocate import Machine, allocate, placement_from_mapping


def layout(placement, machine):
    """Per rank: (node, package within the node)."""
    node = np.asarray(placement.node)
    return list(zip(node.tolist(), (np.asarray(placement.package) - node * machine.packages_per_node).tolist()))


DUAL_DUAL = Machine(2, 2, 2)    # 2 nodes x 2 processors x 2 cores, Francesca's nodes


def test_round_robin_on_two_dual_core_dual_processor_nodes():
    """Ranks alternate nodes; each pass takes every node's next core: pass
    0 and 1 fill processor 0 (cores 0, 1), passes 2 and 3 processor 1."""
    p = allocate(8, DUAL_DUAL, "round-robin")
    assert layout(p, DUAL_DUAL) == [(0, 0), (1, 0), (0, 0), (1, 0), (0, 1), (1, 1), (0, 1), (1, 1)]


def test_node_fill_puts_ranks_0_to_3_on_one_node():
    p = allocate(8, DUAL_DUAL, "node-fill")
    assert layout(p, DUAL_DUAL) == [(0, 0), (0, 0), (0, 1), (0, 1), (1, 0), (1, 0), (1, 1), (1, 1)]


def test_processor_fill_puts_0_1_on_a_node_2_3_on_the_next():
    """The paper's example: ranks 0 and 1 on node 0, 2 and 3 on node 1, then
    the second processor of each node on the next pass."""
    p = allocate(8, DUAL_DUAL, "processor-fill")
    assert layout(p, DUAL_DUAL) == [(0, 0), (0, 0), (1, 0), (1, 0), (0, 1), (0, 1), (1, 1), (1, 1)]


def test_three_nodes_of_one_dual_core_processor():
    m = Machine(3, 1, 2)
    assert allocate(6, m, "round-robin").node.tolist() == [0, 1, 2, 0, 1, 2]
    assert allocate(6, m, "node-fill").node.tolist() == [0, 0, 1, 1, 2, 2]
    # One processor per node: a pass gives each node its only processor, as node fill.
    assert allocate(6, m, "processor-fill").node.tolist() == [0, 0, 1, 1, 2, 2]


def test_fewer_ranks_than_cores_use_every_node_round_robin():
    """Four quad-core single-processor nodes, 6 ranks: round robin goes
    round all four nodes; node fill and processor fill (a processor is the
    whole node here) use two."""
    m = Machine(4, 1, 4)
    assert allocate(6, m, "round-robin").node.tolist() == [0, 1, 2, 3, 0, 1]
    assert allocate(6, m, "node-fill").node.tolist() == [0, 0, 0, 0, 1, 1]
    assert allocate(6, m, "processor-fill").node.tolist() == [0, 0, 0, 0, 1, 1]
    m2 = Machine(2, 3, 2)       # 3 processors of 2 cores: blocks of 2 round 2 nodes
    assert layout(allocate(12, m2, "processor-fill"), m2) == [
        (0, 0), (0, 0), (1, 0), (1, 0), (0, 1), (0, 1), (1, 1), (1, 1), (0, 2), (0, 2), (1, 2), (1, 2)]


def test_pair_classes_follow_the_allocation():
    """Node fill on dual-dual nodes: 0-1 share a processor (on-chip), 1-2 are
    on two processors of a node, 3-4 on two nodes."""
    p = allocate(8, DUAL_DUAL, "node-fill")
    assert [p.class_name(a, b) for a, b in [(0, 1), (1, 2), (3, 4)]] == ["same cache", "other package",
                                                                         "other node"]
    rr = allocate(8, DUAL_DUAL, "round-robin")
    assert rr.class_name(0, 1) == "other node" and rr.class_name(0, 2) == "same cache"


def test_machines_parse_and_from_results():
    assert Machine.parse("240x2x2") == Machine(240, 2, 2) and Machine.parse("240x2x2").cores == 960
    assert Machine.parse("4x8") == Machine(4, 1, 8)
    # The shipped example ran on 4 hosts of one package of 2 cores.
    assert Machine.from_results("hpcbench/examples/mapping-example.json") == Machine(4, 1, 2)
    for bad in ("240x2x0", "many", "1x2x3x4"):
        with pytest.raises(MachineError, match="NODESxPACKAGESxCORES"):
            Machine.parse(bad)


@pytest.mark.parametrize("args,message", [
    ((8, DUAL_DUAL, "random"), "unknown allocation strategy 'random': one of round-robin, node-fill, processor-fill"),
    ((9, DUAL_DUAL, "node-fill"), "9 ranks do not fit the 8 cores of the 2x2x2 machine"),
    ((0, DUAL_DUAL, "node-fill"), "nranks must be a positive whole number"),
])
def test_allocation_errors_are_one_line(args, message):
    with pytest.raises(PlacementError, match=message) as err:
        allocate(*args)
    assert "\n" not in str(err.value)


def test_a_mapping_with_and_without_levels():
    """Host a: 4 PUs, L3 shared by PUs 0-1 and by 2-3, one package. Host b
    has no levels: its ranks' packages are unknown (class "same node")."""
    levels = [SimpleNamespace(name="core/L1/L2", groups=[[0], [1], [2], [3]]),
              SimpleNamespace(name="L3", groups=[[0, 1], [2, 3]]),
              SimpleNamespace(name="package", groups=[[0, 1, 2, 3]])]
    mapping = SimpleNamespace(kind="communication", nodes=[SimpleNamespace(host="a", levels=levels)],
                              choices=[SimpleNamespace(rank=r, host=h, pu=u) for r, h, u in
                                       [(4, "b", 1), (0, "a", 0), (1, "a", 1), (2, "a", 2), (3, "b", 0)]])
    p = placement_from_mapping(mapping)
    assert p.node.tolist() == [0, 0, 0, 1, 1] and p.hosts == ("a", "b")
    assert [p.class_name(a, b) for a, b in [(0, 1), (0, 2), (3, 4), (0, 3)]] == [
        "same cache", "same package", "same node", "other node"]
    assert "unknown on b" in p.source


def test_a_real_mapping_of_the_shipped_example():
    from hpcbench.mapping import map_processes
    mapping = map_processes("hpcbench/examples/mapping-example.json", 8, "memory")
    p = placement_from_mapping(mapping)
    hosts = {c.rank: c.host for c in mapping.choices}
    for a in range(8):
        for b in range(a + 1, 8):
            # One package sharing its L3 per host there: same host, same cache.
            assert p.class_name(a, b) == ("same cache" if hosts[a] == hosts[b] else "other node")
