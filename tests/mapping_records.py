"""Results files of machines with known answers, as the mapping reads them:
the shared-caches, memory, comm and network-access records of the Servet
papers' machines (Dunnington, Finis Terrae) and of the emulated cluster,
built from the shipped examples with the measured parts replaced by the
papers' figures and read back through the record types (so they are what
`hpcbench.load` would return)."""
import copy
import itertools
import json
import os

from paper_machines import dunnington, finis_terrae

from hpcbench import Results
from hpcbench._results import record_from_dict
from hpcbench.topology import Topology

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hpcbench", "examples")


def _template(example: str, name: str) -> dict:
    with open(os.path.join(EXAMPLES, example)) as f:
        return copy.deepcopy(next(b for b in json.load(f)["benchmarks"] if b["name"] == name))


def _pairs_within(groups) -> list:
    return [list(p) for g in groups for p in itertools.combinations(sorted(g), 2)]


def cache_groups(topo: Topology, level: int) -> list:
    return sorted(sorted(c.pus) for c in topo.caches if c.level == level and c.kind != "instruction")


def shared_caches(host: str, topo: Topology, groups_by_level: dict | None = None) -> dict:
    """A shared-caches record whose measured groups are `groups_by_level`
    ({level: groups}; default hwloc's, i.e. a measurement that agrees)."""
    rec = _template("node-example.json", "shared-caches")
    pus = sorted(topo.pu_indexes)
    rec["node"] = host
    rec["parameters"]["pus"] = pus
    levels = []
    for lv in sorted({c.level for c in topo.caches}):
        hw = cache_groups(topo, lv)
        groups = (groups_by_level or {}).get(lv, hw)
        levels.append({"level": lv, "cache_size": 1 << 20, "corun_size": 1 << 19, "threshold": 2.0,
                       "expected_ratio": 3.0, "decidable": True, "ratios": [], "sharing_pairs": _pairs_within(groups),
                       "groups": groups, "hwloc_groups": hw, "disagreements": []})
    rec["derived"]["levels"] = levels
    rec["raw"]["levels"] = []
    return rec


def memory(host: str, topo: Topology, levels: list) -> dict:
    """A memory record with overhead `levels`: [(relative bandwidth, groups)]."""
    rec = _template("node-example.json", "memory")
    rec["node"] = host
    rec["parameters"]["pus"] = sorted(topo.pu_indexes)
    ref = 5e9
    rec["derived"]["overhead"] = {
        "reference": ref, "tolerance": 0.1, "unaffected": [], "inconsistencies": [],
        "levels": [{"bandwidth": ref * rel, "relative": rel, "pairs": _pairs_within(groups), "groups": groups}
                   for rel, groups in levels]}
    return rec


def comm(placement: list, latency_of) -> dict:
    """A comm record: `placement` [(host, node, pu)] per rank; latency_of(a,
    b) the one-way latency (s) of ranks a, b; layers group equal latencies."""
    rec = _template("comm-example.json", "comm")
    rec["parameters"]["ranks"] = len(placement)
    rec["derived"]["placement"] = [{"rank": r, "host": h, "node": n, "pus": [pu]}
                                   for r, (h, n, pu) in enumerate(placement)]
    pairs = list(itertools.combinations(range(len(placement)), 2))
    latencies = {p: latency_of(*p) for p in pairs}
    rec["raw"]["layers"]["latencies"] = [{"pair": list(p), "latency": v} for p, v in latencies.items()]
    layer = rec["derived"]["layers"][0]
    layers = []
    for value in sorted(set(latencies.values())):
        members = [list(p) for p, v in latencies.items() if v == value]
        layers.append(dict(copy.deepcopy(layer), latency=value, pairs=members, name="?", names={"?": len(members)},
                           representative=members[0]))
    rec["derived"]["layers"] = layers
    return rec


def network_access(rat_nc: dict) -> dict:
    """A network-access record with this ratNC ({k: ratio}, ratio[1] = 1)."""
    rec = _template("network-example.json", "network-access")
    d = rec["derived"]
    ks = sorted(rat_nc)
    d["per_node"] = ks
    d["nodes_used"] = {str(k): max(2, 4 // k) for k in ks}
    d["bandwidth"] = {str(k): 1e8 / rat_nc[k] for k in ks}
    d["rat_nc"] = {str(k): float(rat_nc[k]) for k in ks}
    over = [k for k in ks if rat_nc[k] > 1.5]
    d["mapping_rule"]["processes_per_node_over_threshold"] = over
    d["mapping_rule"]["first_over_threshold"] = over[0] if over else None
    rec["raw"]["samples"] = {str(k): [[1.0]] for k in ks}
    return rec


def results(topo: Topology, hosts: list, records: list) -> Results:
    """A Results of these records, its context naming the hosts and the
    nodes' topology."""
    context = {"hosts": hosts, "topology": topo.summary()}
    return Results(context, [record_from_dict(r, f"benchmarks[{i}]") for i, r in enumerate(records)])


# The papers' machines -------------------------------------------------------

def dunnington_results(with_comm: bool = True) -> Results:
    """One Dunnington node (Servet 2010, Figs. 8a, 9a, 10a): caches as hwloc
    says; one memory overhead level for every pair; latency lowest for cores
    sharing an L2 (core 0 and 12), then the L3 of a hexacore, then between
    processors."""
    topo = dunnington()
    l2, l3 = cache_groups(topo, 2), cache_groups(topo, 3)

    def latency(a, b):
        if any(a in g and b in g for g in l2):
            return 0.4e-6
        return 0.7e-6 if any(a in g and b in g for g in l3) else 1.5e-6
    records = [shared_caches("dunnington", topo), memory("dunnington", topo, [(0.6, [list(range(24))])])]
    if with_comm:
        records.append(comm([("dunnington", 0, pu) for pu in range(24)], latency))
    return results(topo, ["dunnington"], records)


FT_BUSES = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]
FT_CELLS = [list(range(8)), list(range(8, 16))]


def finis_terrae_results(nodes: int = 1, rat_nc: dict | None = None) -> Results:
    """Finis Terrae nodes (Servet 2010, Figs. 8b, 9a, 10a): private caches;
    memory overhead on the buses (cores 0-3, 4-7, ...: bandwidth x0.45) and
    in the cells (x0.75); intra-node messages twice as fast as inter-node
    ones; measured on the first node (the others are alike)."""
    topo = finis_terrae()
    hosts = [f"ft{i}" for i in range(nodes)]
    placement = [(h, 16 * i, pu) for i, h in enumerate(hosts) for pu in range(16)]

    def latency(a, b):
        return 1.1e-6 if placement[a][0] == placement[b][0] else 2.2e-6
    records = [shared_caches(hosts[0], topo), memory(hosts[0], topo, [(0.45, FT_BUSES), (0.75, FT_CELLS)]),
               comm(placement, latency)]
    if rat_nc:
        records.append(network_access(rat_nc))
    return results(topo, hosts, records)


def emulated_cluster_results(rat_nc: dict, nodes: int = 4) -> Results:
    """The emulated cluster of tools/netcluster.py: nodes of this VM's kind
    (2 cores, private L1/L2, one L3), ratNC as given, nothing else measured."""
    topo = Topology.from_synthetic("pack:1 l3:1(size=32MiB) l2:2(size=1MiB) l1:1(size=32KiB) core:1 pu:1")
    return results(topo, [f"hpcb{i}" for i in range(nodes)], [network_access(rat_nc)])
