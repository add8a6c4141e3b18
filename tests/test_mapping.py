"""hpcbench.mapping on known answers: the Servet papers' machines as
records (Dunnington, Finis Terrae), the emulated cluster's ratNC, hwloc-distrib
as a peer, a direct re-implementation of the rules on random machines, and
every input a user can get wrong."""
import dataclasses
import itertools
import shutil
import subprocess

import numpy as np
import pytest
from mapping_records import (
    FT_BUSES,
    FT_CELLS,
    cache_groups,
    comm,
    dunnington_results,
    emulated_cluster_results,
    finis_terrae_results,
    memory,
    network_access,
    results,
    shared_caches,
)
from paper_machines import dunnington, finis_terrae

from hpcbench._record import from_plain, to_plain
from hpcbench.mapping import ProcessMapping, launch, map_processes, mapping_figure
from hpcbench.mapping._advice import advise_per_node
from hpcbench.mapping._inputs import collect
from hpcbench.mapping._tree import tree_from_summary
from hpcbench.mapping._weights import weights_for
from hpcbench.topology import Topology


def group_of(pu, groups):
    return next(i for i, g in enumerate(groups) if pu in g)


def sharing(pus, groups) -> int:
    """Pairs of these PUs in one group (a bus shared, say)."""
    return sum(group_of(a, groups) == group_of(b, groups) for a, b in itertools.combinations(pus, 2))


# ------------------------------------------------------------ the paper machines

def test_dunnington_memory_bound_spreads_over_the_l3_groups():
    mapping = map_processes(dunnington_results(), 8, "memory")
    pus = [c.pu for c in mapping.choices]
    l3 = cache_groups(dunnington(), 3)
    assert len({group_of(p, l3) for p in pus[:4]}) == 4          # the first four: one per hexacore
    assert sharing(pus[:8], cache_groups(dunnington(), 2)) == 0   # eight: no L2 shared
    assert {s.kind for s in mapping.sources if s.rule != "network"} == {"measured"}


def test_dunnington_communication_intensive_packs_the_lowest_latency_groups():
    mapping = map_processes(dunnington_results(), 6, "communication")
    pus = [c.pu for c in mapping.choices]
    assert pus[:2] == [0, 12]                          # core 12 shares core 0's L2 (Servet 2010, Fig. 8a)
    assert sorted(pus) == [0, 1, 2, 12, 13, 14]         # then the rest of that L3 before any other processor
    second = mapping.choices[1]
    assert {u.rule for u in second.updates} == {"rule 1", "rule 2", "rule 3"}
    assert next(u for u in second.updates if u.rule == "rule 3").delta < 0 < second.tied


def test_finis_terrae_memory_bound_avoids_shared_buses():
    mapping = map_processes(finis_terrae_results(), 8, "memory")
    pus = [c.pu for c in mapping.choices]
    assert group_of(pus[0], FT_CELLS) != group_of(pus[1], FT_CELLS)       # two cells first
    assert sharing(pus[:4], FT_BUSES) == 0                                 # four: one per bus
    assert pus[:4] == [0, 8, 4, 12]
    assert [sharing(pus[:k], FT_BUSES) for k in range(5, 9)] == [1, 2, 3, 4]   # then evenly
    why = mapping.choices[4].updates
    assert {u.part for u in why if u.rule == "rule 2"} == {"bandwidth x0.45", "bandwidth x0.75"}


def test_finis_terrae_communication_intensive_fills_a_node_first():
    mapping = map_processes(finis_terrae_results(nodes=2), 20, "communication")
    hosts = [c.host for c in mapping.choices]
    assert hosts[:16] == ["ft0"] * 16 and hosts[16:] == ["ft1"] * 4
    assert sharing([c.pu for c in mapping.choices[:4]], FT_BUSES) == 0   # rules 1-2 still order a node's cores
    # ft1 has no records of its own: the first node's stand in, and the file says so
    rule1 = [s for s in mapping.sources if s.rule == "rule 1"]
    assert {tuple(s.hosts): s.detail for s in rule1}[("ft1",)] == "shared-caches on ft0 (nodes assumed alike)"


@pytest.mark.parametrize("kind", ["memory", "communication"])
def test_emulated_ratnc_two_gives_one_process_per_node_until_nodes_run_out(kind):
    mapping = map_processes(emulated_cluster_results({1: 1.0, 2: 2.0}), 8, kind)
    hosts = [c.host for c in mapping.choices]
    assert hosts == ["hpcb0", "hpcb1", "hpcb2", "hpcb3"] * 2
    assert all(any(u.rule == "network" for u in c.updates) for c in mapping.choices[4:])
    assert [s.kind for s in mapping.sources if s.rule == "network"] == ["measured"]
    # below the threshold the network rule stays out
    calm = map_processes(emulated_cluster_results({1: 1.0, 2: 1.2}), 8, kind)
    assert not any(u.rule == "network" for c in calm.choices for u in c.updates)


def test_network_rule_spreads_evenly_past_the_threshold():
    # ratNC[2] under 1.5, [3] over: two per node first, then a third evenly
    mapping = map_processes(finis_terrae_results(nodes=2, rat_nc={1: 1.0, 2: 1.2, 3: 1.9, 4: 2.5}), 8, "memory")
    counts = [sum(c.host == h for c in mapping.choices[:k]) for k in (4, 6, 8) for h in ("ft0", "ft1")]
    assert counts == [2, 2, 3, 3, 4, 4]
    assert "ratNC was measured up to 4" not in " ".join(mapping.notes)
    beyond = map_processes(finis_terrae_results(nodes=2, rat_nc={1: 1.0, 2: 1.2, 3: 1.9, 4: 2.5}), 12, "memory")
    assert any("measured up to 4 processes per node" in n for n in beyond.notes)


# ------------------------------------------------------------ hwloc-distrib

def hwloc_distrib(synthetic: str, n: int, restrict: list) -> list:
    mask = hex(sum(1 << p for p in restrict))
    out = subprocess.run(["hwloc-distrib", "--input", synthetic, "--restrict", mask, "--single", "--taskset",
                          str(n)], capture_output=True, text=True, check=True, timeout=60).stdout.split()
    return [int(m, 16).bit_length() - 1 for m in out]


@pytest.mark.skipif(shutil.which("hwloc-distrib") is None, reason="hwloc-distrib (Debian package hwloc) missing")
@pytest.mark.parametrize("allowed, n", [(list(range(6)), 2), (list(range(6)) + list(range(8, 14)), 4)])
def test_finis_terrae_buses_hwloc_distrib_does_not_see(allowed, n):
    """A partly allocated Finis Terrae node (the setting of Servet's first
    mapping paper): hwloc sees cells and packages but not the buses that
    pairs of packages share, so hwloc-distrib puts two processes on one bus
    while a free bus is left; the measured memory overhead avoids that."""
    synthetic = "numa:2 pack:4 l3:2(size=9MiB) l2:1(size=256KiB) l1:1(size=16KiB) core:1 pu:1"
    assert Topology.from_synthetic(synthetic).summary()["core_pus"] == finis_terrae().summary()["core_pus"]
    peer = hwloc_distrib(synthetic, n, allowed)
    ours = [c.pu for c in map_processes(finis_terrae_results(), n, "memory", pus=allowed).choices]
    print(f"allowed {allowed}, {n} processes: hwloc-distrib {peer}, hpcbench {ours}")
    assert set(peer) <= set(allowed) and set(ours) <= set(allowed)
    assert sharing(peer, FT_BUSES) > 0 and sharing(ours, FT_BUSES) == 0


# ------------------------------------------------------------ fallbacks and sources

def test_missing_records_fall_back_to_hwloc_and_say_so():
    mapping = map_processes(emulated_cluster_results({1: 1.0, 2: 2.0}), 2, "memory")
    by_rule = {s.rule: s for s in mapping.sources}
    assert by_rule["rule 1"].kind == by_rule["rule 2"].kind == by_rule["rule 3"].kind == "hwloc"
    assert "no shared-caches record" in by_rule["rule 1"].detail
    assert "no memory record" in by_rule["rule 2"].detail
    assert "no comm record" in by_rule["rule 3"].detail
    only_nodes = dunnington_results(with_comm=False)
    by_rule = {s.rule: s for s in map_processes(only_nodes, 2, "memory").sources}
    assert by_rule["rule 1"].kind == "measured" and by_rule["rule 3"].kind == "hwloc"
    assert by_rule["network"].kind == "not applied"


def test_measured_groups_beat_hwloc():
    # a virtual machine whose hwloc claims one L3 for both cores, measured private:
    topo = Topology.from_synthetic("pack:1 l3:1(size=32MiB) l2:2(size=1MiB) l1:1(size=32KiB) core:1 pu:1")
    measured = results(topo, ["vm"], [shared_caches("vm", topo, {3: [[0], [1]]})])
    second = map_processes(measured, 2, "memory").choices[1]
    assert not any(u.rule == "rule 1" for u in second.updates)
    claimed = results(topo, ["vm"], [memory("vm", topo, [])])
    second = map_processes(claimed, 2, "memory").choices[1]
    assert [(u.rule, u.part) for u in second.updates if u.rule == "rule 1"] == [("rule 1", "L3")]


def test_tree_from_summaries_old_and_new():
    tree = tree_from_summary(finis_terrae().summary())
    assert [p.name for p in tree.levels] == ["package", "NUMA node"]     # private caches group nothing
    old = {k: v for k, v in dunnington().summary().items() if k not in ("pu_order", "package_pus", "core_pus")}
    tree = tree_from_summary(old)                 # files written before the summary kept packages
    assert sorted(tree.pus.tolist()) == list(range(24))
    assert [p.name for p in tree.levels] == ["L2", "L3"]


# ------------------------------------------------------------ the selection itself

def reference(inputs, nprocs, w):
    """Servet's selection written out directly: every weight recomputed
    from every earlier choice, each rule applied from its inputs."""
    cores = [(n, i) for n, node in enumerate(inputs.nodes) for i in range(len(node.tree.pus))
             if inputs.allowed[n][i]]
    chosen, counts = [], {}
    rat = inputs.rat_nc
    top = max(rat) if rat else 0
    for _ in range(nprocs):
        def weight(core):
            n, i = core
            node, total = inputs.nodes[n], 0.0
            for m, j in chosen:
                if m == n:
                    for p in node.caches + node.memory:
                        total += w.sharing * (p.group[i] == p.group[j])
                    lat = node.latency.row(j)[i]
                else:
                    lat = inputs.between
                if lat < (1 - inputs.tolerance) * inputs.latency_max:
                    total -= w.latency * (inputs.latency_max - lat) / inputs.latency_max
            if rat:
                on_node = sum(m == n for m, _ in chosen)
                over = [k for k in range(1, on_node + 1) if rat[min(k + 1, top)] > 1.5]
                total += w.network * len(over)
            return total
        left = [c for c in cores if c not in chosen]
        weights = [weight(c) for c in left]
        low = min(weights)
        pick = next(c for c, x in zip(left, weights) if x <= low + 1e-9 * max(1, abs(low)))
        chosen.append(pick)
        counts[pick[0]] = counts.get(pick[0], 0) + 1
    return [(inputs.nodes[n].host, int(inputs.nodes[n].tree.pus[i])) for n, i in chosen]


@pytest.mark.parametrize("seed", range(9))
def test_fast_selection_equals_the_rules_written_out(seed):
    rng = np.random.default_rng(seed)
    synthetic = ["pack:2 l3:1(size=8MiB) l2:2(size=1MiB) l1:1 core:1 pu:2",
                 "numa:2 pack:2 l3:2(size=9MiB) l2:1 l1:1 core:1 pu:1", "pack:1 l3:2 l2:2 core:2 pu:1"][seed % 3]
    topo = Topology.from_synthetic(synthetic)
    pus = sorted(topo.pu_indexes)
    hosts = [f"n{i}" for i in range(int(rng.integers(1, 4)))]
    groups = [list(g) for g in np.array_split(rng.permutation(pus), int(rng.integers(1, 4)))]
    recs = [memory(hosts[0], topo, [(0.5, [sorted(map(int, g)) for g in groups])])]
    if seed % 2:
        recs.append(network_access({1: 1.0, 2: float(rng.uniform(1.2, 2.2)), 3: 2.5}))
    if seed >= 3:           # measured latencies: random within nodes, and per pair of nodes
        placement = [(h, 100 * k, pu) for k, h in enumerate(hosts) for pu in pus[:len(pus) - k]]
        far = {pair: float(rng.uniform(2, 4)) for pair in itertools.combinations(hosts, 2)}
        slow = 1 if seed < 6 else 6     # seeds 6-8: within a node slower than between (rule 3 across nodes)
        near = {pair: slow * float(rng.choice([0.5, 1.0, 1.5])) for pair in itertools.combinations(range(len(pus)), 2)}

        def latency(a, b):
            (ha, _, pa), (hb, _, pb) = placement[a], placement[b]
            return 1e-6 * (far[tuple(sorted((ha, hb)))] if ha != hb else near[tuple(sorted((pa, pb)))])
        recs.append(comm(placement, latency))
    res = results(topo, hosts, recs)
    for kind in ("memory", "communication"):
        n = int(rng.integers(1, len(pus) * len(hosts) + 1))
        fast = [(c.host, c.pu) for c in map_processes(res, n, kind).choices]
        assert fast == reference(collect(res), n, weights_for(kind)), (synthetic, kind, n)


def test_deterministic_and_plain_data():
    res = finis_terrae_results(nodes=2, rat_nc={1: 1.0, 2: 1.6})
    a, b = map_processes(res, 24, "communication"), map_processes(res, 24, "communication")
    assert to_plain(a) == to_plain(b)
    back = from_plain(ProcessMapping, to_plain(a))
    assert back == a and back.choices[3].why() == a.choices[3].why()
    assert sorted(c.rank for c in a.choices) == list(range(24))
    ranks = a.by_rank()
    assert [c.host for c in ranks] == sorted(c.host for c in ranks)       # node by node
    for host in ("ft0", "ft1"):
        mine = [c for c in ranks if c.host == host]
        assert [c.order for c in mine] == sorted(c.order for c in mine)     # in the order chosen


# ------------------------------------------------------------ per-node advice

def test_per_node_advice_from_ratnc():
    hector = {1: 1.0, 2: 1.1, 3: 2.0, 4: 2.5, 5: 3.3, 6: 4.2, 7: 5.1, 8: 6.0}  # throughput peaks at 2
    advice = advise_per_node(hector, 256)
    assert advice.per_node == 2 and advice.fewer_is_faster and advice.nodes_needed == 128
    assert advice.throughput["8"] == pytest.approx(8 / 6.0)
    emulated = advise_per_node({1: 1.0, 2: 1.83}, 8)          # 2 per node still move more bytes
    assert emulated.per_node == 2 and not emulated.fewer_is_faster
    flat = advise_per_node({1: 1.0, 2: 2.02}, 8)              # within 5%: the larger count
    assert flat.per_node == 2 and not flat.fewer_is_faster
    assert advise_per_node({1: 1.0}, 4) is None
    mapping = map_processes(emulated_cluster_results({1: 1.0, 2: 2.5}), 4, "communication")
    assert mapping.per_node.per_node == 1 and mapping.per_node.fewer_is_faster


# ------------------------------------------------------------ launcher files

def test_launcher_files():
    mapping = map_processes(emulated_cluster_results({1: 1.0, 2: 2.0}), 6, "communication")
    rankfile = launch(mapping, "rankfile", "job.rf", "./a.out 3")
    header, *lines = rankfile.text.splitlines()
    assert header.startswith("# hpcbench map") and "rankfile for 6 processes" in header   # launchers skip '#' lines
    assert lines == ["rank 0=hpcb0 slot=0", "rank 1=hpcb0 slot=1", "rank 2=hpcb1 slot=0",
                                          "rank 3=hpcb1 slot=1", "rank 4=hpcb2 slot=0", "rank 5=hpcb3 slot=0"]
    assert rankfile.command == ("mpirun -np 6 --rankfile job.rf --mca rmaps_rank_file_physical 1 --use-hwthread-cpus "
                                "./a.out 3")
    srun = launch(mapping, "srun", "my hosts", srun_mpi="pmix")
    assert srun.text.splitlines()[1:] == ["hpcb0", "hpcb0", "hpcb1", "hpcb1", "hpcb2", "hpcb3"]
    assert "SLURM_HOSTFILE='my hosts' srun --mpi=pmix --ntasks=6 --distribution=arbitrary --cpu-bind=map_cpu:0,1 " \
        in srun.command
    with pytest.raises(ValueError, match="one of pmix, pmi2, none, got 'pmi3'"):
        launch(mapping, "srun", srun_mpi="pmi3")
    hydra = launch(mapping, "hydra", "h")
    assert hydra.text.split("\n", 1)[1] == "hpcb0:2\nhpcb1:2\nhpcb2:1\nhpcb3:1\n"
    assert hydra.command.startswith("mpiexec -f h -n 6 -bind-to user:0,1 ")
    listing = launch(mapping, "list").text.splitlines()
    assert listing[2].split()[:4] == ["0", "hpcb0", "0", "0"] and "weight" in listing[3]


def test_one_pu_list_or_a_clear_refusal():
    mapping = map_processes(finis_terrae_results(nodes=2), 3, "memory")      # ft0: 0, 8; ft1: 0
    assert launch(mapping, "srun").command.count("map_cpu:0,8 ") == 1
    odd = dataclasses.replace(mapping, choices=[dataclasses.replace(c, pu=4) if c.host == "ft1" else c
                                                for c in mapping.choices])
    for fmt in ("srun", "hydra"):
        with pytest.raises(ValueError, match="use --format rankfile"):
            launch(odd, fmt)
    assert "slot=4" in launch(odd, "rankfile").text


# ------------------------------------------------------------ bad input

@pytest.mark.parametrize("n, kind, extra, message", [
    (0, "memory", {}, "at least 1"), (-3, "memory", {}, "at least 1"), (True, "memory", {}, "at least 1"),
    (2.5, "memory", {}, "at least 1"), (17, "memory", {}, "do not fit on the 16 cores"),
    (3, "compute", {}, "must be one of memory, communication"),
    (5, "memory", {"pus": [0, 1, 2, 3]}, "do not fit on the 4 cores"),
    (2, "memory", {"pus": [0, 99]}, "got 99"), (2, "memory", {"hosts": ["a", "a"]}, "must not repeat"),
    (2, "memory", {"hosts": ["a b"]}, "without spaces"),
])
def test_bad_input_is_one_line(n, kind, extra, message):
    with pytest.raises(ValueError, match=message) as e:
        map_processes(finis_terrae_results(), n, kind, **extra)
    assert "\n" not in str(e.value)


def test_no_record_a_rule_needs():
    topo = finis_terrae()
    bare = results(topo, ["x"], [])
    with pytest.raises(ValueError, match="none of the records the mapping reads"):
        map_processes(bare, 2, "memory")
    with pytest.raises(ValueError, match="format must be one of"):
        launch(map_processes(finis_terrae_results(), 2, "memory"), "slurm")


def test_figure():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    mapping = map_processes(finis_terrae_results(nodes=2), 6, "memory", pus=list(range(14)))
    fig = mapping_figure(mapping)
    assert len(fig.axes) == 2
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any(t.startswith("P0\nr0") for t in texts) and "NUMA node" in texts
    assert "bandwidth x0.45 (rule 2)" in texts          # the buses hwloc does not see, from the memory record
    assert [lv.name for lv in mapping.nodes[0].measured] == ["bandwidth x0.45 (rule 2)"]


@pytest.mark.parametrize("libraries, plugin", [
    ("7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4\n"
     "7f02-7f03 r-xp 0 08:01 2 /usr/lib/x86_64-linux-gnu/libopen-pal.so.40.30.2\n", "pmix"),     # Open MPI
    ("7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libmpich.so.12.1.11\n", "pmi2"),        # MPICH
    ("7f00-7f01 r-xp 0 08:01 1 /opt/intel/mpi/lib/release/libmpi.so.12\n", "pmi2"),              # an MPICH ABI
    ("", "pmix"),                                                                                    # nothing seen
])
def test_the_srun_plugin_follows_the_mpi_library(tmp_path, libraries, plugin):
    """srun starts Open MPI jobs through PMIx only (Debian's 4.1 aborts with
    pmi2 and none), MPICH ones through PMI-2: the launcher line names it."""
    from hpcbench._launch import srun_mpi_plugin
    maps = tmp_path / "maps"
    maps.write_text(libraries)
    assert srun_mpi_plugin(str(maps)) == plugin
