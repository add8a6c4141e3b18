"""hpcbench.topology on fake topologies of the paper's machines."""
import os

import pytest

from hpcbench.topology import Topology

DATA = os.path.join(os.path.dirname(__file__), "data")


def test_dunnington_from_xml():
    topo = Topology.from_xml(os.path.join(DATA, "dunnington.xml"))
    assert len(topo.packages) == 4 and len(topo.cores) == 24 and len(topo.pus) == 24
    by_level = {lv: [c for c in topo.caches if c.level == lv] for lv in (1, 2, 3)}
    assert {c.size for c in by_level[3]} == {12 << 20} and len(by_level[3]) == 4
    assert all(len(c.pus) == 6 and c.associativity == 12 for c in by_level[3])
    assert all(len(c.pus) == 2 and c.size == 3 << 20 for c in by_level[2])
    assert all(len(c.pus) == 1 and c.size == 32 << 10 and c.associativity == 8 for c in by_level[1])
    assert [c.size for c in topo.data_caches_of(0)] == [32 << 10, 3 << 20, 12 << 20]
    assert sum(n.memory for n in topo.numa_nodes) == 4 * (16 << 30)


def test_synthetic_with_numa_memory():
    topo = Topology.from_synthetic("pack:2 [numa(memory=8GiB)] l3:1(size=5MiB) core:4 pu:2")
    assert len(topo.pus) == 16 and len(topo.cores) == 8
    assert [n.memory for n in topo.numa_nodes] == [8 << 30, 8 << 30]
    assert topo.summary()["pus"] == 16


def test_this_machine():
    topo = Topology.load()
    assert topo.is_this_system and topo.pu_indexes
    assert "caches" in topo.summary()


@pytest.mark.parametrize("call,arg,message", [
    (Topology.from_xml, "/nonexistent.xml", "not found"),
    (Topology.from_synthetic, "", "non-empty"),
    (Topology.from_synthetic, "pack:x", "could not load"),
])
def test_bad_topologies(call, arg, message):
    with pytest.raises(ValueError, match=message):
        call(arg)


def test_garbage_xml(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<topology><oops")
    with pytest.raises(ValueError, match="could not load"):
        Topology.from_xml(str(bad))
