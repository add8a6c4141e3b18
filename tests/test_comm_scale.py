"""Communication at scale, without MPI: the growth of collectives with the
process count, the pairs Servet's layers measure in auto mode, the ranks of
echo with contention, and the overlap checks."""
import itertools

import numpy as np
import pytest
from paper_machines import dunnington, finis_terrae

from hpcbench.comm import choose_contention_ranks, crowding, growth_fit, node_order, plan_layers
from hpcbench.comm._contention import BOTH_NODES, INSIDE_NODE, NO_NODE, ONE_NODE, SAME_NODE
from hpcbench.comm._layerplan import PairNamer
from hpcbench.comm._layers import _checks, _group
from hpcbench.comm._overlap import overlap_percent
from hpcbench.comm._records import Placement
from hpcbench.comm._sanity import ABOVE_RANGE, BELOW_COMM, BELOW_RANGE, overlap_flags
from hpcbench.comm._scaling import process_counts
from hpcbench.topology import relation

# --- collectives against the number of processes ----------------------------------------------------------


def test_process_counts():
    assert process_counts(2) == [2]
    assert process_counts(8) == [2, 4, 8]
    assert process_counts(12) == [2, 4, 8, 12]
    with pytest.raises(ValueError):
        process_counts(1)


@pytest.mark.parametrize("seed", range(10))
def test_growth_tells_log_p_from_linear(seed):
    rng = np.random.default_rng(seed)
    counts = [2, 4, 8, 16, 32]
    noise = 1 + 0.02 * rng.standard_normal(len(counts))
    tree = (1e-6 + 2e-6 * np.log2(counts)) * noise          # a tree: one step per doubling
    chain = (1e-6 + 0.5e-6 * np.array(counts)) * noise      # a root sending to each in turn
    fit = growth_fit(counts, tree)
    assert fit.model == "log P" and fit.clear, fit
    assert fit.log_slope == pytest.approx(2e-6, rel=0.15) and fit.log_rms < 0.05
    fit = growth_fit(counts, chain)
    assert fit.model == "linear" and fit.clear, fit
    assert fit.linear_slope == pytest.approx(0.5e-6, rel=0.15)


def test_growth_flat_undetermined_and_bad_points():
    assert growth_fit([2, 4, 8], [1e-6, 1.03e-6, 1.05e-6]).model == "flat"
    falls = growth_fit([2, 4], [2e-6, 1e-6])
    assert falls.model == "flat" and falls.growth == pytest.approx(-0.5)
    assert growth_fit([2, 4], [1e-6, 3e-6]).model == "undetermined"
    assert growth_fit([2], [1e-6]).model == "undetermined"
    # NaN and non-positive times are left out, not fitted.
    fit = growth_fit([2, 4, 8, 16], [1e-6, 2e-6, float("nan"), 4e-6])
    assert fit.counts == [2, 4, 16] and fit.model == "log P"


# --- Servet's layers in auto mode -----------------------------------------------------------------------------


def cluster(nodes, per_node, bound=True, pus=None):
    """Placements of `nodes` x `per_node` ranks mapped by slot (node 0 gets
    ranks 0..per_node-1), each bound to the i-th PU of `pus`."""
    pus = pus or list(range(per_node))
    out = []
    for n in range(nodes):
        for i in range(per_node):
            rank = n * per_node + i
            out.append(Placement(rank=rank, host=f"n{n}", node=n * per_node, pus=[pus[i]] if bound else pus))
    return out


def test_pair_namer_agrees_with_hwloc_relations():
    topo = dunnington()
    name = PairNamer(topo)
    p = [Placement(rank=i, host="a", node=0, pus=[pu]) for i, pu in enumerate(topo.pu_indexes)]
    expected = {(): "other package", ("package",): "same package"}
    for a, b in itertools.combinations(p, 2):
        rel = relation(topo, a.pus[0], b.pus[0])
        got = name(a, b)
        if "core" in rel:
            assert got == "same core"
        elif any(k.startswith("L") for k in rel):
            assert got == f"same {next(k for k in rel if k.startswith('L'))}"
        else:
            assert got == expected.get(rel, "same NUMA node"), (rel, got)


def test_auto_plan_on_a_cluster_of_dunningtons():
    topo = dunnington()
    placement = cluster(4, 24, pus=topo.pu_indexes)
    plan = plan_layers(placement, topo, "auto", sample=8)
    assert plan.all_pairs == 96 * 95 // 2
    classes = set(plan.class_of.values())
    # Within a node: same L2, same L3 (one hexacore), same NUMA node (the synthetic machine has one);
    # across nodes: distances 1, 2 and 3 in node order.
    assert classes == {"same L2", "same L3", "same NUMA node"} | {f"other node, distance {d}" for d in (1, 2, 3)}
    for cls, (a, b) in plan.representative.items():
        assert plan.class_of[(a, b)] == cls
        assert (a, b) == min(p for p, c in plan.class_of.items() if c == cls)      # first in rank order
    measured = plan.measured
    assert len(measured) == len(set(measured))
    # Every within-node class is measured on every node at once, in one round.
    for cls in ("same L2", "same L3", "same NUMA node"):
        rnd = next(r for r in plan.rounds if plan.representative[cls] in r)
        assert len(rnd) == 4 and len({p[0] // 24 for p in rnd}) == 4
        assert all(plan.class_of[p] == cls for p in rnd)
    # 8 random pairs beyond the classes, all checked.
    assert len([p for p in plan.checks if p not in {q for r in plan.rounds[:3] for q in r}]) >= 8
    assert set(plan.checks) <= set(measured)


def test_rounds_never_put_two_pairs_on_one_node_or_two_network_pairs_together():
    topo = finis_terrae()
    placement = cluster(3, 16)
    for mode in ("auto", "all"):
        plan = plan_layers(placement, topo, mode)
        nodes = node_order(placement)
        for rnd in plan.rounds:
            ranks = [r for p in rnd for r in p]
            assert len(ranks) == len(set(ranks))
            if any(nodes[a] != nodes[b] for a, b in rnd):
                assert len(rnd) == 1
            else:
                assert len({nodes[a] for a, _ in rnd}) == len(rnd)
    assert sorted(plan_layers(placement, topo, "all").measured) == sorted(plan.class_of)


def test_auto_plan_grows_at_most_linearly():
    topo = dunnington()
    counts = {}
    for nodes in (2, 4, 8, 16):
        counts[nodes] = len(plan_layers(cluster(nodes, 16, pus=topo.pu_indexes[:16]), topo, "auto").measured)
    # Linear in the ranks: doubling the nodes at most doubles the pairs (plus the fixed sample).
    for n in (2, 4, 8):
        assert counts[2 * n] <= 2 * counts[n], counts
    one_per_node = [len(plan_layers(cluster(n, 1), topo, "auto").measured) for n in (64, 128, 256)]
    assert one_per_node[2] <= 2 * one_per_node[1] <= 4 * one_per_node[0], one_per_node
    assert one_per_node[2] <= 256 + 8


def test_unmeasured_pairs_join_their_class_and_checks_report_a_wrong_class():
    topo = finis_terrae()
    placement = cluster(2, 4, pus=[0, 1, 8, 9])      # two cells per node
    plan = plan_layers(placement, topo, "auto", sample=3, seed=2)
    names = dict(plan.class_of)
    # Latencies: within a node 1 us, across nodes 3 us.
    lat = {p: (1e-6 if plan.class_of[p].startswith("same") or plan.class_of[p] == "other package" else 3e-6)
           for p in plan.measured}
    layers = _group(plan, lat, names, 0.2, [])
    assert sorted(p for lv in layers for p in lv.pairs) == sorted(plan.class_of)
    assert [lv.latency for lv in layers] == [1e-6, 3e-6]
    assert plan.checks and all(c.holds for c in _checks(plan, lat, layers))
    # One checked pair ten times slower than its class: reported, and it keeps its own layer.
    wrong = dict(lat)
    wrong[plan.checks[-1]] = 30e-6
    layers = _group(plan, wrong, names, 0.2, [])
    checks = _checks(plan, wrong, layers)
    assert [c.holds for c in checks] == [True] * (len(checks) - 1) + [False]
    assert layers[-1].pairs == [plan.checks[-1]]


def test_plan_rejects_bad_modes():
    with pytest.raises(ValueError):
        plan_layers(cluster(1, 2), dunnington(), "some")
    with pytest.raises(ValueError):
        plan_layers(cluster(1, 2), dunnington(), "auto", sample=-1)


# --- echo with contention -----------------------------------------------------------------------------------


def by_node(nodes, per_node):
    """--map-by node: rank r on node r % nodes (tools/netcluster.py's launch)."""
    return [Placement(rank=r, host=f"hpcb{r % nodes}", node=r % nodes, pus=[0, 1])
            for r in range(nodes * per_node)]


def test_contention_load_shares_the_echo_nodes_and_the_control_does_not():
    chosen = choose_contention_ranks(by_node(4, 2))
    assert chosen.echo_pair == (0, 1) and chosen.load_pair == (4, 5) and chosen.shared == BOTH_NODES
    assert chosen.control == (2, 3)
    chosen = choose_contention_ranks(cluster(2, 4))          # by slot: ranks 0-3 on n0, 4-7 on n1
    assert chosen.echo_pair == (0, 4) and chosen.load_pair == (1, 5) and chosen.control is None


def test_contention_fallbacks():
    assert choose_contention_ranks(cluster(1, 4)).shared == SAME_NODE
    chosen = choose_contention_ranks(by_node(4, 1))
    assert chosen.shared == NO_NODE and len({*chosen.echo_pair, *chosen.load_pair}) == 4
    # Three nodes, only the first with two ranks: the load leaves the echo initiator's node.
    three = [Placement(rank=r, host=h, node=n, pus=[r]) for r, h, n in
             ((0, "a", 0), (1, "a", 0), (2, "b", 2), (3, "c", 3))]
    chosen = choose_contention_ranks(three)
    assert chosen.echo_pair == (0, 2) and chosen.load_pair == (1, 3) and chosen.shared == ONE_NODE
    two = [Placement(rank=r, host=h, node=n, pus=[r]) for r, h, n in
           ((0, "a", 0), (1, "a", 0), (2, "a", 0), (3, "b", 3))]
    assert choose_contention_ranks(two).shared == INSIDE_NODE
    with pytest.raises(ValueError):
        choose_contention_ranks(cluster(1, 3))


def test_crowding():
    assert crowding(cluster(1, 4, bound=False, pus=[0, 1]), [0, 1, 2, 3]).startswith("ranks 0, 1, 2, 3 share 2 PU")
    assert crowding(cluster(1, 4, bound=False, pus=[0, 1]), [0, 1]) is None
    assert crowding(cluster(2, 2), [0, 1, 2, 3]) is None


# --- overlap checks -----------------------------------------------------------------------------------------------


def grid(blocking, nonblocking, comm_only, compute_only, rse=0.001):
    times = {m: np.array([[v]], dtype=float) for m, v in
             (("blocking", blocking), ("nonblocking", nonblocking), ("comm_only", comm_only),
              ("compute_only", compute_only))}
    errors = {m: np.full((1, 1), rse) for m in times}
    return times, errors


def flags_of(*args, crowded=None, **kw):
    times, errors = grid(*args, **kw)
    return overlap_flags([1024], [65536], times, errors, overlap_percent(times), crowded)


def test_sensible_overlap_is_not_flagged():
    assert flags_of(30e-6, 20e-6, 10e-6, 20e-6) == []           # 100 %: all of the exchange hidden
    assert flags_of(30e-6, 30.5e-6, 10e-6, 20e-6) == []         # -5 %: within the range


def test_each_kind_of_nonsense_is_flagged_with_a_cause():
    (f,) = flags_of(9e-6, 9e-6, 10e-6, 0.1e-6)                  # blocking below the exchange alone
    assert f.problem == BELOW_COMM and f.value == pytest.approx(90) and "before the receive" in f.cause
    (f,) = flags_of(30e-6, 10e-6, 10e-6, 20e-6)                 # saved 20 us of a 10 us exchange
    assert f.problem == ABOVE_RANGE and f.value == pytest.approx(200)
    (f,) = flags_of(30e-6, 33e-6, 10e-6, 20e-6)                 # non-blocking 3 us slower
    assert f.problem == BELOW_RANGE and f.value == pytest.approx(-30) and "3.00 us more" in f.cause
    (f,) = flags_of(30e-6, 33e-6, 10e-6, 20e-6, rse=0.2)
    assert f.cause.startswith("noisy samples: a median is uncertain by 20%")
    (f,) = flags_of(30e-6, 33e-6, 10e-6, 20e-6, crowded="ranks 0, 1 share 1 PU(s) of a: time-slicing")
    assert "time-slicing" in f.cause


def test_blocking_within_the_noise_of_the_exchange_is_not_flagged():
    # 0.5 % below the exchange alone with 1 % uncertainty: noise, not nonsense.
    assert flags_of(9.95e-6, 9.95e-6, 10e-6, 0.1e-6, rse=0.01) == []
