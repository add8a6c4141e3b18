"""Pair plans, relations and groups (hpcbench.topology), on the paper's machines."""
import itertools

import pytest
from paper_machines import dunnington, finis_terrae

from hpcbench.topology import components, plan_pairs, relation
from hpcbench.topology._pairs import check_pus, parse_pu_list, spread_order


def test_parse_pu_list():
    assert parse_pu_list("0-3,8,10-11") == [0, 1, 2, 3, 8, 10, 11]
    for bad in ("", "a", "3-1", "1-", "1,,2"):
        with pytest.raises(ValueError):
            parse_pu_list(bad)


def test_check_pus_rules():
    topo = dunnington()
    assert check_pus(topo, None) == list(range(24))
    with pytest.raises(ValueError, match="listed twice") as e:
        check_pus(topo, [0, 1, 0])
    assert e.value.parameter == "cores"
    with pytest.raises(ValueError, match="must be PUs this process may use .*; 99 is not one"):
        check_pus(topo, [0, 99])
    with pytest.raises(ValueError, match="at least two PUs"):
        check_pus(topo, [3])


def test_relations_follow_the_paper_numbering():
    topo = dunnington()
    # One NUMA node spans the machine.
    assert relation(topo, 0, 12) == ("L2", "L3", "numa", "package")
    assert relation(topo, 0, 1) == ("L3", "numa", "package")
    assert relation(topo, 0, 3) == ("numa",)
    assert relation(finis_terrae(), 0, 8) == ()


def test_paper_example_groups():
    # Servet 2010, III-C: pairs (0,1),(0,2),(3,4),(3,5) give {0,1,2} and {3,4,5}.
    assert components([(0, 1), (0, 2), (3, 4), (3, 5)]) == [[0, 1, 2], [3, 4, 5]]
    assert components([(0, 1)], nodes=[0, 1, 2]) == [[0, 1], [2]]


def test_all_mode_tests_every_pair():
    plan = plan_pairs(dunnington(), mode="all")
    assert len(plan.tested) == 24 * 23 // 2
    assert set(plan.tested) == set(itertools.combinations(range(24), 2))


def test_auto_mode_has_one_pair_per_relation_and_a_sample():
    topo = dunnington()
    plan = plan_pairs(topo, mode="auto", sample=5, seed=3)
    relations = {relation(topo, *p) for p in itertools.combinations(range(24), 2)}
    assert len(relations) == 3
    assert {plan.relation_of[p] for p in plan.tested[:3]} == relations
    assert len(plan.tested) == 3 + 5 and len(set(plan.tested)) == 8
    assert plan.sampled == plan.tested[3:]


def test_auto_mode_pair_count_on_a_large_node():
    # 2 packages x 4 L3 domains x 8 cores x 2 hardware threads = 128 PUs.
    from hpcbench.topology import Topology
    topo = Topology.from_synthetic("pack:2 l3:4(size=32MiB) l2:8(size=1MiB) l1:1(size=48KiB) core:1 pu:2")
    plan = plan_pairs(topo, mode="auto")
    assert len(plan.pus) == 128
    assert len(plan.tested) == len(plan.representative) + 8 <= 4 + 8
    assert len(plan.all_pairs) == 128 * 127 // 2


def test_spread_order_alternates_packages():
    order = spread_order(finis_terrae(), range(16))
    assert sorted(order) == list(range(16))
    topo = finis_terrae()
    first_two_packages = [next(i for i, p in enumerate(topo.packages) if c in p.pus) for c in order[:2]]
    assert first_two_packages[0] != first_two_packages[1]
