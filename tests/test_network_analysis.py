"""Network degradation: ratios, the mapping rule, grid advice, the
degradation file and the Results accessors (no MPI, no network)."""
import os

import pytest

import hpcbench
from hpcbench import Results
from hpcbench.network import (
    advise_grid,
    export_from_results,
    mapping_rule,
    ratios,
    read_degradation_file,
    write_degradation_file,
)
from hpcbench.network._analysis import DegradationRatios
from hpcbench.network._degr import degradation_path

# Servet 3.0, Fig. 3 (HECToR): ratDist grows with distance.
HECTOR_LIKE = {1: 1.0, 2: 1.25, 3: 1.5, 4: 1.7, 5: 1.9, 6: 2.1, 7: 2.3, 8: 2.5}


def test_ratios_are_reference_over_bandwidth():
    assert ratios({1: 100.0, 2: 50.0, 3: 25.0}) == {1: 1.0, 2: 2.0, 3: 4.0}
    with pytest.raises(ValueError, match="reference"):
        ratios({2: 50.0})
    with pytest.raises(ValueError, match="positive"):
        ratios({1: 100.0, 2: 0.0})


def test_mapping_rule_threshold():
    rule = mapping_rule({1: 1.0, 2: 1.1, 4: 1.8, 8: 3.0})
    assert rule["threshold"] == 1.5 and rule["processes_per_node_over_threshold"] == [4, 8]
    assert rule["first_over_threshold"] == 4
    assert rule["weight_increase"]["communication-intensive"] == 10 * rule["weight_increase"]["memory-bound"]
    assert mapping_rule({1: 1.0, 2: 1.2})["first_over_threshold"] is None


def test_servet_accessors_and_their_errors():
    d = DegradationRatios({1: 1.0, 2: 1.5}, {1: 1.0, 2: 1.1, 3: 2.0})
    assert d.get_network_dist_ratio(2) == 1.5 and d.get_network_access_ratio(3) == 2.0
    with pytest.raises(ValueError, match="distance must be one of 1..2"):
        d.get_network_dist_ratio(3)
    with pytest.raises(ValueError, match="processes per node must be one of 1..3"):
        d.get_network_access_ratio(0)
    with pytest.raises(ValueError, match="did not run"):
        DegradationRatios({}, {}).get_network_dist_ratio(1)


def test_grid_advice_follows_the_dominant_direction():
    # More traffic along rows: a row-ordered grid keeps rows at short distances (Servet 3.0, 6.1).
    rows_heavy = advise_grid(4, 4, 1e9, 1e8, HECTOR_LIKE)
    assert rows_heavy.best == "row-ordered"
    assert rows_heavy.costs["row-ordered"] < rows_heavy.costs["column-ordered"]
    cols_heavy = advise_grid(4, 4, 1e8, 1e9, HECTOR_LIKE)
    assert cols_heavy.best == "column-ordered"
    # Symmetric case: both layouts cost the same.
    even = advise_grid(4, 4, 1e9, 1e9, HECTOR_LIKE)
    assert even.costs["row-ordered"] == pytest.approx(even.costs["column-ordered"])
    # Flat ratDist (no degradation): layout does not matter.
    flat = advise_grid(4, 8, 1e9, 1e8, dict.fromkeys(range(1, 17), 1.0))
    assert flat.costs["row-ordered"] == pytest.approx(flat.costs["column-ordered"])


def test_grid_cost_by_hand():
    # 1 x 2 grid, one process per node, 100 bytes along the row: one pair at distance 1.
    a = advise_grid(1, 2, 100, 0, {1: 1.0}, reference_bandwidth=50.0)
    assert a.costs["row-ordered"] == pytest.approx(2.0) and a.unit == "s"
    # Two ranks per node: the row's pair shares a node, no network cost.
    b = advise_grid(1, 2, 100, 0, {1: 1.0}, procs_per_node=2)
    assert b.costs["row-ordered"] == 0.0


def test_grid_advice_refuses_bad_input():
    for kwargs in (dict(rows=0), dict(cols=-1), dict(procs_per_node=0)):
        args = dict(rows=2, cols=2, row_volume=1, col_volume=1, rat_dist={1: 1.0}) | kwargs
        with pytest.raises(ValueError):
            advise_grid(**args)
    with pytest.raises(ValueError, match="distance 1"):
        advise_grid(2, 2, 1, 1, {})
    assert advise_grid(8, 8, 1, 1, {1: 1.0}).extrapolated


def test_degradation_file_round_trip_and_damage(tmp_path):
    path = str(tmp_path / "r.degr")
    write_degradation_file(path, {1: 1.0, 2: 1.9}, {1: 1.0, 2: 1.7, 3: 2.6}, ["a comment"])
    assert read_degradation_file(path) == ({1: 1.0, 2: 1.9}, {1: 1.0, 2: 1.7, 3: 2.6})
    with pytest.raises(ValueError, match="not found"):
        read_degradation_file(str(tmp_path / "missing.degr"))
    bad = tmp_path / "bad.degr"
    for text in ("nonsense\n", "hpcbench-degradation 1\nratDist 3 1 2\nratNC 0\n",
                 "hpcbench-degradation 1\nratDist 1 1\n", "hpcbench-degradation 1\nratDist 1 -1\nratNC 0\n"):
        bad.write_text(text)
        with pytest.raises(ValueError):
            read_degradation_file(str(bad))
    with pytest.raises(ValueError, match="every value from 1"):
        write_degradation_file(path, {2: 1.0}, {})
    assert degradation_path("/x/run.json") == "/x/run.degr" and degradation_path("out") == "out.degr"


def network_results():
    """The shipped emulated-cluster example with known ratios."""
    res = hpcbench.load(os.path.join(os.path.dirname(__file__), "..", "hpcbench", "examples", "network-example.json"))
    res.get("distance").derived.rat_dist = {"1": 1.0, "2": 1.8}
    res.get("network-access").derived.rat_nc = {"1": 1.0, "2": 2.1}
    return res


def test_results_api(tmp_path):
    res = network_results()
    assert res.network_dist_ratios == {1: 1.0, 2: 1.8}
    assert res.get_network_dist_ratio(2) == 1.8 and res.get_network_access_ratio(2) == 2.1
    with pytest.raises(ValueError):
        res.get_network_dist_ratio(5)
    path = str(tmp_path / "x.degr")
    export_from_results(res, path)
    assert read_degradation_file(path) == ({1: 1.0, 2: 1.8}, {1: 1.0, 2: 2.1})
    with pytest.raises(ValueError, match="neither"):
        export_from_results(Results({}, []), path)
