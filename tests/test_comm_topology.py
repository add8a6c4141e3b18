"""CoMet's mesh and hop helpers, and Servet's layer naming and grouping."""
import itertools

import pytest
from paper_machines import dunnington

from hpcbench.comm._layerplan import pair_name
from hpcbench.comm._layers import disjoint_pairs, group_layers, scalability_counts
from hpcbench.comm._mesh import gray, hop_node, make_mesh, max_hops, mesh_dims
from hpcbench.comm._records import Placement


def test_gray_code_neighbours_differ_in_one_bit():
    assert [gray(i) for i in range(8)] == [0, 1, 3, 2, 6, 7, 5, 4]
    for size in (4, 8, 16, 32, 64):
        mesh = make_mesh(size)
        assert mesh.layout == "gray"
        assert sorted(mesh.rank_at(r, c) for r in range(mesh.rows) for c in range(mesh.cols)) == list(range(size))
        for rank in range(size):
            for other in mesh.neighbours(rank).values():
                if other != rank:
                    assert bin(rank ^ other).count("1") == 1, (size, rank, other)


def test_mesh_dims_and_row_major_fallback():
    assert mesh_dims(16) == (4, 4) and mesh_dims(8) == (2, 4) and mesh_dims(6) == (2, 3) and mesh_dims(7) == (1, 7)
    mesh = make_mesh(6)
    assert mesh.layout == "row-major"
    assert mesh.neighbours(0) == {"top": 3, "bottom": 3, "pred": 2, "succ": 1}
    with pytest.raises(ValueError):
        mesh_dims(0)


def test_hop_node_is_n_links_away():
    for n in range(4):
        other = hop_node(0, n, 16)
        assert bin(other).count("1") == n
    assert hop_node(0, 3, 6) is None
    assert max_hops(16) == 4 and max_hops(2) == 1 and max_hops(1) == 0


def placement(rank, host, pu, node=None):
    return Placement(rank=rank, host=host, node=rank if node is None else node, pus=[pu])


def test_layer_names_from_placement_and_hwloc():
    topo = dunnington()
    p = [placement(0, "a", 0, 0), placement(1, "a", 12, 0), placement(2, "a", 1, 0), placement(3, "a", 3, 0),
         placement(4, "b", 0, 4)]
    assert pair_name(p[0], p[1], topo) == "same L2"
    assert pair_name(p[0], p[2], topo) == "same L3"
    assert pair_name(p[0], p[3], topo) == "same NUMA node"
    assert pair_name(p[0], p[4], topo) == "other node"
    unbound = Placement(rank=5, host="a", node=0, pus=[0, 1])
    assert "not bound" in pair_name(p[0], unbound, topo)


def test_layers_of_a_two_node_cluster():
    # Finis Terrae-like: 4 ranks per node; intra-node 1 us, inter-node 2.2 us.
    ranks = range(8)
    lat, names = {}, {}
    for a, b in itertools.combinations(ranks, 2):
        same = a // 4 == b // 4
        lat[(a, b)] = (1.0e-6 if same else 2.2e-6) * (1 + 0.01 * ((a + b) % 3))
        names[(a, b)] = "same package" if same else "other node"
    layers = group_layers(lat, names)
    assert [lv.name for lv in layers] == ["same package", "other node"]
    assert len(layers[0].pairs) == 12 and len(layers[1].pairs) == 16
    assert layers[0].representative == (0, 1) and layers[1].representative == (0, 4)


def test_disjoint_pairs_and_counts():
    pairs = [(0, 4), (0, 5), (1, 4), (1, 5), (2, 6), (3, 7)]
    chosen = disjoint_pairs(pairs)
    ranks = [r for p in chosen for r in p]
    assert len(ranks) == len(set(ranks)) and len(chosen) == 4
    assert scalability_counts(6) == [1, 2, 4, 6] and scalability_counts(1) == [1]
