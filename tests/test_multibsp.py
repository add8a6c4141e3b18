"""MultiBSP: the tree on the paper's machines and harder ones, g/L fits on
synthetic h-curves, the cost model, and the kernels on this machine."""
import os

import numpy as np
import pytest

from hpcbench import _core
from hpcbench.multibsp import describe, fits_side_by_side, tree
from hpcbench.multibsp._measure import flatten, measure_inner_product, split_slices
from hpcbench.multibsp._model import fit_g_L, predict_inner_product
from hpcbench.topology import Topology

DATA = os.path.join(os.path.dirname(__file__), "data")
# Opteron 6128 (Magny-Cours): each package is two dies; a die has 4 cores, a
# 5 MB L3 and its own memory controller (NUMA node).
DELL32 = "pack:4 die:2 [numa(memory=8GB)] l3:1(size=5MB) l2:4(size=512KB) l1d:1(size=64KB) core:1 pu:1"
# Opteron 6272 (Interlagos): two dies per package, each 4 modules of 2 cores
# sharing a 2 MB L2, a 6 MB L3 per die, a NUMA node per die.
JOLLY = "pack:4 numa:2(memory=16GB) l3:1(size=6MB) l2:4(size=2MB) core:2 l1d:1(size=16KB) pu:1"
# Knights Landing, flat mode: DDR and MCDRAM are two NUMA nodes of the whole
# chip (MCDRAM has no PUs of its own), 32 tiles of 2 cores sharing 1 MB of L2,
# 4 hardware threads per core.
KNL = "pack:1 [numa(memory=96GB)] [numa(memory=16GB)] l2:32(size=1MB) core:2 l1d:1(size=32KB) pu:4"


def shape(levels):
    return [(lv.p, lv.m) for lv in levels]


def test_dell32_gives_the_papers_equation_1():
    assert shape(tree(Topology.from_synthetic(DELL32))) == [(4, 5_000_000), (8, 64_000_000_000)]


def test_jolly_gives_the_papers_equation_2():
    assert shape(tree(Topology.from_synthetic(JOLLY))) == [(2, 2_000_000), (4, 6_000_000), (8, 128_000_000_000)]


def test_knl_memory_only_numa_node_is_memory_not_a_processor():
    levels = tree(Topology.from_synthetic(KNL))
    assert shape(levels) == [(4, 32_000), (2, 1_000_000), (32, 112_000_000_000)]
    top = levels[-1].components[0]
    assert [kind for kind, _ in top.memories] == ["NUMA", "NUMA"]
    assert len(top.pus) == 256


def test_hybrid_machine_is_represented_not_flattened():
    levels = tree(Topology.from_xml(os.path.join(DATA, "hybrid.xml")))
    first = levels[0]
    assert not first.homogeneous
    assert first.p == (2, 2, 4) and first.m == (49152, 49152, 2097152)
    assert first.pus == [[0, 1], [2, 3], [4, 5, 6, 7]]
    assert (levels[1].p, levels[1].m) == (3, 12582912)
    assert "(mixed)" in describe(levels)


def test_more_than_100_children_at_one_level():
    levels = tree(Topology.from_synthetic("pack:1 l3:1(size=64MB) core:128 pu:1"))
    assert shape(levels) == [(128, 64_000_000)]
    assert levels[0].components[0].child_pus == list(range(128))


def test_dunnington_from_xml():
    levels = tree(Topology.from_xml(os.path.join(DATA, "dunnington.xml")))
    assert [lv.p for lv in levels] == [2, 3, 4]


def test_one_pu_has_nothing_to_measure():
    with pytest.raises(ValueError, match="nothing to measure"):
        tree(Topology.from_synthetic("pack:1 core:1 pu:1"))


def test_xml_that_does_not_exist_or_parse(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        Topology.from_xml(str(tmp_path / "missing.xml"))
    bad = tmp_path / "bad.xml"
    bad.write_text("<topology>nonsense")
    with pytest.raises((ValueError, RuntimeError)):
        Topology.from_xml(str(bad))


def test_fit_recovers_known_g_and_L():
    h = np.arange(0, 257)
    rng = np.random.default_rng(1)
    flops = 335.0 * h + 7800.0 + rng.normal(0, 50, h.size)      # dell32's level 1 in Table 1
    fit = fit_g_L(h, flops)
    assert fit.g == pytest.approx(335.0, rel=0.01) and pytest.approx(7800.0, rel=0.02) == fit.L
    both = fits_side_by_side(h, flops, p=8)
    assert both["h_ge_p"]["h_range"] == [8, 256]
    assert both["h_ge_p"]["g"] == pytest.approx(335.0, rel=0.01)
    # A knee below h = p (not every thread writes to every other yet) bends the
    # whole-range fit but not bspbench's h >= p fit.
    bent = np.where(h < 8, 7800.0 + 600.0 * h, flops)
    split = fits_side_by_side(h, bent, p=8)
    assert abs(split["h_ge_p"]["g"] - 335.0) < abs(split["all"]["g"] - 335.0)
    with pytest.raises(ValueError):
        fit_g_L([1], [2.0])


def test_cost_model_by_hand():
    levels = tree(Topology.from_synthetic("pack:1 l3:1(size=8MB) l2:2(size=1MB) core:2 pu:1"))
    root = levels[-1].components[0]
    slices = dict.fromkeys(range(4), 100)
    gl = {c.pus: (10.0, 50.0) for lv in levels for c in lv.components}
    # leaves: 200 flops; each L2: (2-1)*10 + 50 + 2 = 62; L3: (2-1)*10 + 50 + 2 = 62 -> 324 flops at r=1.
    assert predict_inner_product(root, slices, gl, r=1.0) == pytest.approx(324.0)
    assert predict_inner_product(root, slices, gl, r=1.0, r_leaf=2.0) == pytest.approx(224.0)


def test_recursive_split_and_flattening():
    levels = tree(Topology.from_xml(os.path.join(DATA, "hybrid.xml")))
    root = levels[-1].components[0]
    slices = split_slices(root, 0, 1200, {})
    # Three children get 400 each; P-cores split theirs in 2, the E-cluster in 4.
    assert slices[0] == (0, 200) and slices[3] == (600, 800) and slices[4] == (800, 900)
    flat = flatten(root)
    assert flat["parent"][-1] == -1 and flat["master"][-1] == 0 and flat["nleaves"][-1] == 8


def test_kernels_on_this_machine():
    pus = _core.thread_binding()
    if len(pus) < 2:
        pytest.skip("needs two PUs")
    ticks, rate = _core.hcomm(pus[:2], 256, 200, blocks=5, warmup=2)
    assert ticks.shape == (257, 5) and np.all(ticks > 0) and np.all(rate > 0)
    # More words per superstep cost more: 256 single-word writes against
    # none (fastest block of each: interference only adds time).
    assert np.min(ticks[256]) > np.min(ticks[0])
    levels = tree(Topology.load())
    m = measure_inner_product(levels[-1].components[0], 1 << 12, reps=2)
    assert m["inside_ticks"].shape == (2,) and np.all(m["total_ticks"] >= m["inside_ticks"])


def test_kernels_refuse_bad_parameters():
    with pytest.raises(ValueError):
        _core.hcomm([0, 1], 0, 10)
    with pytest.raises(ValueError):
        _core.hcomm([0], 4, 10)
    with pytest.raises(ValueError, match="distinct"):
        _core.hcomm([0, 0], 4, 10)
    with pytest.raises(ValueError, match="end of thread 0 must be at most the length of x"):
        _core.inner_product([0], [0], [-1], [0], [1], [0], [10], np.zeros(5), 1)   # slice beyond the vector


def test_hmax_is_bounded_by_the_buffer_of_the_widest_component():
    """p * p * HMAX doubles must fit in the memory a benchmark may take: a
    512-thread component refuses an HMAX a 2-thread one accepts."""
    from hpcbench.multibsp._benchmark import check_buffer
    wide = Topology.from_synthetic("pack:4 core:64 pu:2")
    with pytest.raises(ValueError, match="buffer of 512 threads") as err:
        check_buffer(1 << 20, wide)
    assert err.value.parameter == "hmax"
    check_buffer(1 << 20, Topology.from_synthetic("pack:1 l2:1(size=1MiB) core:2 pu:1"))
    check_buffer(1 << 10, wide)


def test_shipped_example_prediction_is_bounded():
    """The shipped example (one level, p PUs): every prediction recomputed
    by hand from the record's own r, g, L and p (equal slices: 2 n / p flops
    on each PU, then (p - 1) g + L + p flops of the gathering superstep),
    and measured / predicted within PREDICTION_BOUND from BOUND_FROM doubles."""
    import hpcbench
    from hpcbench.multibsp import BENCHMARK, BOUND_FROM, PREDICTION_BOUND
    from hpcbench.multibsp._model import prediction_error

    example = os.path.join(os.path.dirname(DATA), "..", "hpcbench", "examples", "multibsp-example.json")
    record = hpcbench.load(example).benchmarks[0]
    d = record.derived
    (level,) = d.levels
    p, g, L, r = level.p, level.g, level.L, d.rate
    points = [v for v in d.inner_product if v.n >= BOUND_FROM]
    assert len(points) >= 5
    for v in points:
        assert v.predicted_s == pytest.approx((2 * v.n / p + (p - 1) * g + L + p) / r, rel=1e-9)
        assert PREDICTION_BOUND[0] <= v.measured_s / v.predicted_s <= PREDICTION_BOUND[1], v
    lo, hi = prediction_error([v.n for v in d.inner_product], [v.measured_over_predicted for v in d.inner_product])
    assert (lo, hi) == (min(v.measured_s / v.predicted_s for v in points),
                        max(v.measured_s / v.predicted_s for v in points))
    assert f"from 2^14 doubles: x{lo:.2f} to x{hi:.2f} with r = DAXPY (within 0.5..2)" in \
        "\n".join(BENCHMARK.summary(record))


def test_prediction_error_range():
    from hpcbench.multibsp._model import prediction_error
    assert prediction_error([1 << 10, 1 << 14, 1 << 15], [3.0, 1.2, 0.9]) == (0.9, 1.2)
    assert prediction_error([1 << 10], [3.0]) is None
