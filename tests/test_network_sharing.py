"""Which cores share a network access (Servet 3.0, 4.2): the groups the
network-access benchmark finds from ratNC and hwloc's levels (or hwloc's
network devices), ratNC per group, the record that keeps them, older
records without them, and the benchmark's structure under mpiexec on
this one machine (split into pretend nodes)."""
import json
import os

import pytest
from mapping_records import network_access
from test_mpi import MPIEXEC, ROOT, mpirun

from hpcbench._record import from_plain, to_plain
from hpcbench._results import record_from_dict
from hpcbench.network._analysis import network_sharing
from hpcbench.network._measure import _order_levels, even_order, network_devices, sharing_levels
from hpcbench.network._records import AccessRecord, NetworkSharing
from hpcbench.topology import Topology

#: HECToR's node (Servet 3.0, section 5): two Interlagos processors of 16 cores, each two NUMA regions of 8
#: cores; L2 shared by four cores, L3 (8 MB) by eight.
HECTOR = "pack:2 numa:2 l3:1(size=8MiB) l2:2(size=2MiB) l1:4(size=16KiB) core:1 pu:1"
#: ratNC as Fig. 4 describes it: no overhead from two processes per node (one per processor), more from 4 on.
HECTOR_RAT_NC = {1: 1.0, 2: 1.1, 3: 2.0, 4: 2.5, 5: 3.3, 6: 4.2, 7: 5.1, 8: 6.0}


def test_even_order_spreads_over_packages_then_numa_then_caches():
    topo = Topology.from_synthetic(HECTOR)
    order = even_order(topo.pu_indexes, sharing_levels(topo))
    assert order[:8] == [0, 16, 8, 24, 4, 20, 12, 28]       # packages, then NUMA nodes (L3), then L2s
    assert sorted(order) == list(range(32))
    assert even_order([0, 1, 2, 3, 16, 17], sharing_levels(topo)) == [0, 16, 1, 17, 2, 3]


def test_hector_shares_the_network_per_processor():
    topo = Topology.from_synthetic(HECTOR)
    sharing = network_sharing(HECTOR_RAT_NC, topo.pu_indexes, sharing_levels(topo))
    assert sharing.level == "package" and sharing.source == "ratNC"
    assert sharing.groups == [list(range(16)), list(range(16, 32))]
    assert sharing.per_group == [1, 2, 3, 4]
    assert sharing.ratios() == {1: 1.1, 2: 2.5, 3: 4.2, 4: 6.0}      # ratNC at 2, 4, 6, 8 per node
    assert "one process per NUMA node already shows overhead (ratNC[4] = 2.50 > 1.5)" in sharing.reason


@pytest.mark.parametrize("rat_nc, covered, level, why", [
    ({1: 1.0, 2: 2.0}, None, "node", "one process per package already shows overhead"),
    ({1: 1.0, 2: 1.1, 3: 1.2, 4: 1.3, 5: 3.0, 6: 4.0, 7: 5.0, 8: 6.0}, None, "NUMA node",
     "one process per L2 already shows overhead (ratNC[8] = 6.00 > 1.5)"),
    ({1: 1.0}, None, "node", "ratNC was not measured at 2 processes per node (one per package)"),
    ({1: 1.0, 2: 1.1}, [0, 1], "node", "do not cover every package"),
    ({1: 1.0, 2: 1.1}, [], "node", "do not cover every package"),       # ranks not bound to a PU each
])
def test_the_finest_level_without_overhead(rat_nc, covered, level, why):
    hector = Topology.from_synthetic(HECTOR)
    sharing = network_sharing(rat_nc, hector.pu_indexes, sharing_levels(hector), covered)
    assert sharing.level == level and why in sharing.reason, sharing.reason
    assert sharing.ratios() == {j: rat_nc[len(sharing.groups) * j] for j in sharing.per_group}


def test_a_single_package_node_shares_per_node_as_before():
    vm = Topology.from_synthetic("pack:1 l3:1(size=32MiB) l2:2(size=1MiB) l1:1(size=32KiB) core:1 pu:1")
    sharing = network_sharing({1: 1.0, 2: 2.1}, vm.pu_indexes, sharing_levels(vm))
    assert sharing.level == "node" and sharing.groups == [[0, 1]] and sharing.ratios() == {1: 1.0, 2: 2.1}


def test_hwloc_network_devices_name_the_groups():
    topo = Topology.from_synthetic(HECTOR)
    nics = [("mlx5_0", list(range(16))), ("mlx5_1", list(range(16, 32)))]
    sharing = network_sharing(HECTOR_RAT_NC, topo.pu_indexes, sharing_levels(topo), devices=nics)
    assert (sharing.level, sharing.source, sharing.devices) == ("network device", "hwloc network devices",
                                                                ["mlx5_0", "mlx5_1"])
    # two NICs on one processor are one access; one locality for both is no split at all
    both = network_sharing(HECTOR_RAT_NC, topo.pu_indexes, sharing_levels(topo),
                           devices=[("a", list(range(16))), ("b", list(range(16)))])
    assert both.level == "package" and both.devices == []
    # NICs that still contend with one process each: the node
    busy = network_sharing({1: 1.0, 2: 1.9}, topo.pu_indexes, sharing_levels(topo), devices=nics)
    assert busy.level == "node"


def test_record_round_trip_and_older_files():
    topo = Topology.from_synthetic(HECTOR)
    plain = network_access(HECTOR_RAT_NC)
    old = record_from_dict(plain, "benchmarks[0]")
    assert isinstance(old, AccessRecord) and old.derived.sharing is None     # files before it: per node
    plain["derived"]["sharing"] = to_plain(network_sharing(HECTOR_RAT_NC, topo.pu_indexes, sharing_levels(topo)))
    new = record_from_dict(json.loads(json.dumps(plain)), "benchmarks[0]")
    assert new.derived.sharing.level == "package" and new.derived.sharing.ratios()[2] == 2.5
    from hpcbench.network._tidy import access_rows
    rows = {(r.quantity, r.parameter_value): r.value for r in access_rows(new)}
    assert rows[("network_access_groups", None)] == 2 and rows[("rat_nc_per_group", 2)] == 2.5
    assert not any(q == "network_access_groups" for q, _ in {(r.quantity, 0) for r in access_rows(old)})
    bad = dict(plain["derived"]["sharing"], groups=[[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="must not hold a PU twice"):
        from_plain(NetworkSharing, bad, "sharing")
    gap = dict(plain["derived"]["sharing"], rat_nc={"1": 1.1})
    with pytest.raises(ValueError, match="one entry per step"):
        from_plain(NetworkSharing, gap, "sharing")


@pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH")
@pytest.mark.mpi
@pytest.mark.parametrize("n", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_benchmark_records_the_sharing_under_mpiexec(n):
    proc = mpirun(n, os.path.join(ROOT, "tests", "mpi_network_sharing_check.py"), timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    derived = out["record"]["derived"]
    sharing = derived["sharing"]
    pus = Topology.load().pu_indexes
    assert sorted(p for g in sharing["groups"] for p in g) == sorted(pus)
    assert sharing["per_group"] == list(range(1, len(sharing["per_group"]) + 1))
    k = len(sharing["groups"])
    assert sharing["rat_nc"] == {str(j): derived["rat_nc"][str(k * j)] for j in sharing["per_group"]}
    assert [len(node["ranks"]) for node in out["layout"]] == [n // 2, n // 2]
    assert any("network access shared per" in line for line in out["summary"])
    record_from_dict(out["record"], "benchmarks[0]")     # what the benchmark wrote loads back


def test_network_devices_from_an_hwloc_xml_with_io():
    """hwloc's OS devices (an XML saved with I/O): the OpenFabrics HCAs, one
    per package, name the groups; the benchmark spreads its ranks over them
    first."""
    topo = Topology.from_xml(os.path.join(ROOT, "tests", "data", "two-nics.xml"))
    assert network_devices(topo) == [("ib0", [0, 1]), ("ib1", [2, 3])]      # eth2 left out: the HCAs are the fabric
    assert _order_levels(topo)[0] == ("network device", [[0, 1], [2, 3]])
    sharing = network_sharing({1: 1.0, 2: 1.1, 3: 1.9, 4: 2.4}, topo.pu_indexes, sharing_levels(topo),
                              devices=network_devices(topo))
    assert (sharing.level, sharing.devices, sharing.ratios()) == ("network device", ["ib0", "ib1"], {1: 1.1, 2: 2.4})
    assert network_devices(Topology.from_synthetic(HECTOR)) == []       # a synthetic topology has no I/O
