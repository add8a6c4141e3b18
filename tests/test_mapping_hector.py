"""Servet 3.0's network rule where the network access is shared per
processor: HECToR (section 5: nodes of two Interlagos processors, 16 cores
each in two NUMA regions of 8; L2 shared by 4 cores, L3 by 8; no
memory-access overhead; one intra-node latency; ratNC of Fig. 4: no
overhead from two processes per node, one per processor, more from four).
Section 6.2: "the Servet mapping allocates only one process per processor
up to 256 processes [on 128 nodes]. It evenly increases the number of
processes per processor for larger experiments; for instance, two
processes per processor but only one per shared L3 cache for the
experiment with 512 processes." Here on 4 nodes: one per processor up to
8, one per L3 up to 16, evenly beyond; for both kinds of code, for
latencies that let rule 3 pull hard or not at all, and whatever ratNC[3]
(a count that mixes shared and unshared processors)."""
import math
from collections import Counter

import numpy as np
import pytest
from mapping_records import comm, memory, network_access, results, shared_caches
from test_network_sharing import HECTOR, HECTOR_RAT_NC

from hpcbench._record import to_plain
from hpcbench.mapping import map_processes
from hpcbench.mapping._inputs import collect
from hpcbench.mapping._weights import weights_for
from hpcbench.network._analysis import network_sharing
from hpcbench.network._measure import sharing_levels
from hpcbench.topology import Topology

NODES = 4
TOPOLOGY = Topology.from_synthetic(HECTOR)
INTER_NODE = 1.5e-6


def hector_results(on_node: float = 0.3, rat_nc: dict = HECTOR_RAT_NC, sharing: bool = True, nodes: int = NODES,
                   topo: Topology = TOPOLOGY):
    """HECToR's records: caches as hwloc says, no memory overhead, every
    intra-node pair at `on_node` x the inter-node latency, ratNC as given;
    the network-access record says which cores share an access (as the
    benchmark writes it), or not (a file written before it did)."""
    hosts = [f"h{i}" for i in range(nodes)]
    placement = [(hosts[0], 0, pu) for pu in topo.pu_indexes] + [(hosts[1], 100, 0)]

    def latency(a, b):
        return INTER_NODE if placement[a][0] != placement[b][0] else on_node * INTER_NODE
    access = network_access(rat_nc)
    if sharing:
        access["derived"]["sharing"] = to_plain(network_sharing(rat_nc, topo.pu_indexes, sharing_levels(topo)))
    return results(topo, hosts, [shared_caches(hosts[0], topo), memory(hosts[0], topo, []), comm(placement, latency),
                                 access])


def counts(choices, size: int) -> list:
    """Processes in every group of `size` consecutive PUs of every node (16: a processor, 8: an L3)."""
    c = Counter((x.host, x.pu // size) for x in choices)
    return [c.get((f"h{n}", g), 0) for n in range(NODES) for g in range(32 // size)]


@pytest.mark.parametrize("kind", ["communication", "memory"])
@pytest.mark.parametrize("on_node", [0.3, 0.6, 0.9])           # rule 3 pulls hard, less, not at all (above 0.8)
@pytest.mark.parametrize("rat_nc3", [2.0, 1.4])
def test_one_process_per_processor_then_per_l3_then_evenly(kind, on_node, rat_nc3):
    mapping = map_processes(hector_results(on_node, {**HECTOR_RAT_NC, 3: rat_nc3}), 32 * NODES, kind)
    choices = mapping.choices
    for n in range(1, 2 * NODES + 1):
        assert max(counts(choices[:n], 16)) == 1, n                 # one per processor up to 2 x nodes
    assert counts(choices[:2 * NODES], 16) == [1] * 2 * NODES
    for n in range(2 * NODES + 1, 4 * NODES + 1):
        assert max(counts(choices[:n], 8)) == 1, n                  # then one per L3
    assert counts(choices[:4 * NODES], 8) == [1] * 4 * NODES
    for n in range(1, 32 * NODES + 1):                               # evenly beyond, per processor, L3 and L2
        for size in (16, 8, 4):
            per_group = counts(choices[:n], size)
            assert max(per_group) - min(per_group) <= 1, (n, size)
    # the placements themselves: both processors of a node before the next node, then the other L3s
    per_processor = [(f"h{i}", pu) for i in range(NODES) for pu in (0, 16)]
    per_l3 = [(f"h{i}", pu) for pu in (8, 24) for i in range(NODES)]
    assert [(c.host, c.pu) for c in choices[:4 * NODES]] == per_processor + per_l3


def test_the_why_and_the_sources_say_per_processor():
    mapping = map_processes(hector_results(), 2 * NODES + 1, "communication")
    network = next(s for s in mapping.sources if s.rule == "network")
    assert network.detail.startswith("ratNC per package [1] 1.10, [2] 2.50, [3] 4.20, [4] 6.00 (2 package groups "
                                     "sharing a network access each, from ratNC); per node [1] 1.00, [2] 1.10")
    ninth = mapping.choices[2 * NODES]
    parts = {(u.rule, u.part): u for u in ninth.updates}
    assert parts[("network", "ratNC per package")].delta == 10 and parts[("network", "ratNC")].delta == 10
    beyond = map_processes(hector_results(), 10 * NODES, "communication")
    assert any("measured up to 4 processes per package (8 processes per node)" in n for n in beyond.notes)


@pytest.mark.parametrize("kind", ["communication", "memory"])
def test_files_without_the_groups_are_mapped_per_node_as_before(kind):
    """A network-access record written before it named the groups: the
    network rule acts per node, as it did (4 per node on the first node
    when rule 3 pulls hard: the placement issue 27 reported)."""
    old = map_processes(hector_results(0.3, sharing=False), 2 * NODES, kind)
    assert [(c.host, c.pu) for c in old.choices[:4]] == [("h0", 0), ("h0", 8), ("h0", 16), ("h0", 24)]
    assert not any(u.part.startswith("ratNC per") for c in old.choices for u in c.updates)
    assert next(s for s in old.sources if s.rule == "network").detail.startswith("ratNC [1] 1.00, [2] 1.10")


def test_groups_that_do_not_fit_the_nodes_fall_back_per_node():
    other = Topology.from_synthetic("pack:4 l3:2(size=8MiB) l2:2(size=2MiB) l1:4(size=16KiB) core:1 pu:1")  # 64 PUs
    res = hector_results(topo=TOPOLOGY)
    mapping = map_processes(res, 4, "communication", topology=other)
    assert any("do not cover the PUs of the nodes mapped" in n for n in mapping.notes)


def reference(inputs, nprocs, w):
    """Servet's selection with the rule per group written out: every weight
    recomputed from every earlier choice (rules 1-3 as test_mapping's
    reference; the network rule per group and per node as _rules.py states)."""
    groups = inputs.groups
    g_of = groups.partition.group
    count, rat = len(groups.partition.groups), groups.rat_nc
    top = max(rat)

    def over(j):
        return rat[min(j, top)] > 1.5
    cores = [(n, i) for n, node in enumerate(inputs.nodes) for i in range(len(node.tree.pus)) if inputs.allowed[n][i]]
    chosen: list = []
    for _ in range(nprocs):
        def weight(core):
            n, i = core
            node, total = inputs.nodes[n], 0.0
            for m, j in chosen:
                lat = inputs.between
                if m == n:
                    total += sum(w.sharing * (p.group[i] == p.group[j]) for p in node.caches + node.memory)
                    lat = node.latency.row(j)[i]
                if lat < (1 - inputs.tolerance) * inputs.latency_max:
                    total -= w.latency * (inputs.latency_max - lat) / inputs.latency_max
            on_node = sum(m == n for m, _ in chosen)
            in_group = sum(m == n and g_of[j] == g_of[i] for m, j in chosen)
            total += w.network * sum(over(math.ceil((k + 1) / count)) for k in range(1, on_node + 1))
            total += w.network * sum(over(j + 1) for j in range(1, in_group + 1))
            return total
        left = [c for c in cores if c not in chosen]
        weights = [weight(c) for c in left]
        low = min(weights)
        chosen.append(next(c for c, x in zip(left, weights) if x <= low + 1e-9 * max(1, abs(low))))
    return [(inputs.nodes[n].host, int(inputs.nodes[n].tree.pus[i])) for n, i in chosen]


@pytest.mark.parametrize("seed", range(6))
def test_fast_selection_equals_the_rule_per_group_written_out(seed):
    rng = np.random.default_rng(seed)
    synthetic = ["pack:2 l3:1(size=8MiB) l2:2(size=1MiB) l1:1 core:1 pu:2",
                 "pack:2 numa:2 l3:1(size=9MiB) l2:2 l1:1 core:1 pu:1", "pack:4 l3:1 l2:2 core:1 pu:1"][seed % 3]
    topo = Topology.from_synthetic(synthetic)
    n = len(topo.pu_indexes)
    rat = {1: 1.0, **{k: float(rng.uniform(0.9, 1.4)) for k in range(2, len(topo.packages) + 1)},
           **{k: float(rng.uniform(1.2, 3.0)) for k in range(len(topo.packages) + 1, n + 1)}}
    res = hector_results(float(rng.uniform(0.2, 0.9)), rat, nodes=NODES, topo=topo)
    inputs = collect(res)
    assert inputs.groups is not None and len(inputs.groups.partition.groups) >= 2
    for kind in ("memory", "communication"):
        nprocs = int(rng.integers(1, n * NODES + 1))
        fast = [(c.host, c.pu) for c in map_processes(res, nprocs, kind).choices]
        assert fast == reference(inputs, nprocs, weights_for(kind)), (synthetic, kind, nprocs)
