"""Which teams the stream benchmark measures, on hwloc synthetic topologies:
one core, one of each domain cores share (by growing size, none twice),
all cores; one PU per core."""
import pytest

from hpcbench._errors import OptionError
from hpcbench.stream import plan_teams
from hpcbench.topology import Topology


def plan(description, pus=None):
    return [(t.group, list(t.pus)) for t in plan_teams(Topology.from_synthetic(description), pus)]


def test_two_packages_of_two_l3_each_with_numa_nodes():
    # 2 packages x 2 L3 x 4 cores x 2 PUs: 16 cores, PUs 0..31 (two per core, consecutive).
    got = plan("pack:2 [numa(memory=8GiB)] l3:2(size=16MiB) l2:4(size=1MiB) core:1 pu:2")
    assert got == [("one core", [0]), ("one L3", [0, 2, 4, 6]), ("one NUMA node", [0, 2, 4, 6, 8, 10, 12, 14]),
                   ("node", [0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30])]


def test_a_domain_of_as_many_cores_as_the_one_before_is_left_out():
    # The package is the L3 here: one team of 4 cores, then the node of 8 (two packages).
    got = plan("pack:2 l3:1(size=8MiB) core:4 pu:1")
    assert got == [("one core", [0]), ("one L3", [0, 1, 2, 3]), ("node", [0, 4, 1, 5, 2, 6, 3, 7])]


def test_one_package_sharing_one_l3_is_one_core_and_the_node():
    assert plan("pack:1 l3:1(size=32MiB) l2:2(size=1MiB) core:1 pu:1") == [("one core", [0]), ("node", [0, 1])]


def test_one_core_is_one_team():
    assert plan("pack:1 core:1 pu:2") == [("one core", [0])]


def test_given_pus_keep_one_per_core_and_their_domains():
    got = plan("pack:2 l3:1(size=8MiB) core:4 pu:2", [1, 0, 3, 9, 8])   # 0 and 1 are one core, 8 and 9 another
    assert got == [("one core", [1]), ("one L3", [1, 3]), ("node", [1, 9, 3])]


@pytest.mark.parametrize("pus, rule", [([0, 0], "must not list a PU twice"), ([], "must hold at least one PU"),
                                       ([99], "must be PUs this process may use"), (["0"], "PU OS indexes")])
def test_bad_pus_are_one_rule(pus, rule):
    with pytest.raises(OptionError, match=rule) as e:
        plan("pack:1 core:2 pu:1", pus)
    assert e.value.parameter == "cores"
