"""MultiBSP, issue 27: the inner product's leaves at the rate of the memory
level their slices sit in, HMAX chosen per level, and the run taken apart.
Hand-computed values on hwloc synthetic topologies; no measured figure is
asserted."""
import json
import os

import numpy as np
import pytest

import hpcbench
from hpcbench import _core
from hpcbench.multibsp import tree
from hpcbench.multibsp._hmax import (
    HMAX_CEILING,
    HMAX_FLOOR,
    choose_hmax,
    hmax_bounds,
    level_hmax,
    sweep_iterations,
)
from hpcbench.multibsp._levels import MemoryLevel, level_of_slice, memory_levels, rate_slice_doubles
from hpcbench.multibsp._measure import flatten, measure_empty_run, measure_inner_product, split_slices
from hpcbench.multibsp._model import predict_inner_product, rate_by_level
from hpcbench.multibsp._records import LeafRateRecord
from hpcbench.topology import Topology

# Two L2s of 1 MiB, each shared by 2 cores, under one 8 MiB L3; 4 PUs.
QUAD = "pack:1 [numa(memory=4GiB)] l3:1(size=8MiB) l2:2(size=1MiB) core:2 l1d:1(size=32KiB) pu:1"
KNL = "pack:1 [numa(memory=96GB)] [numa(memory=16GB)] l2:32(size=1MB) core:2 l1d:1(size=32KB) pu:4"
EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "hpcbench", "examples", "multibsp-example.json")
KiB, MiB = 1 << 10, 1 << 20


def test_memory_levels_of_a_team():
    levels = memory_levels(Topology.from_synthetic(QUAD), [0, 1, 2, 3])
    assert levels == [MemoryLevel("L1", 32 * KiB, 1), MemoryLevel("L2", MiB, 2), MemoryLevel("L3", 8 * MiB, 4),
                      MemoryLevel("memory", 4 << 30, 4)]
    # A team of one PU per L2 shares nothing below L3, and L3 only with the other.
    assert [lv.sharing for lv in memory_levels(Topology.from_synthetic(QUAD), [0, 2])] == [1, 1, 2, 2]


def test_which_level_a_slice_sits_in():
    levels = memory_levels(Topology.from_synthetic(QUAD), [0, 1, 2, 3])
    assert level_of_slice(levels, 16 * KiB).name == "L1"
    assert level_of_slice(levels, 256 * KiB).name == "L2"     # 2 x 256 KiB in 1 MiB
    assert level_of_slice(levels, 512 * KiB).name == "L2"     # exactly full: fits
    assert level_of_slice(levels, 1 * MiB).name == "L3"       # 2 MiB per L2 no; 4 x 1 MiB in 8 MiB
    assert level_of_slice(levels, 4 * MiB).name == "memory"   # 16 MiB in 8 MiB no


def test_slices_that_measure_each_level():
    levels = memory_levels(Topology.from_synthetic(QUAD), [0, 1, 2, 3])
    # L1: half of 32 KiB; L2: half of a thread's 512 KiB; L3: half of its 2 MiB;
    # memory: 4 x the largest share (2 MiB). In doubles.
    assert [rate_slice_doubles(levels, i) for i in range(4)] == [2048, 32768, 131072, 1048576]
    for i, lv in enumerate(levels[:-1]):
        assert level_of_slice(levels, 8 * rate_slice_doubles(levels, i)) == lv
    assert level_of_slice(levels, 8 * rate_slice_doubles(levels, 3)).name == "memory"


def _rates(levels, per_level):
    return [LeafRateRecord(level=lv.name, size=lv.size, sharing=lv.sharing, slice_doubles=64, pus=[0, 1, 2, 3],
                           rate=rates) for lv, rates in zip(levels, per_level)]


def test_prediction_with_r_per_memory_level_by_hand():
    topo = Topology.from_synthetic(QUAD)
    levels = tree(topo)
    root = levels[-1].components[0]
    gl = {c.pus: (10.0, 50.0) for lv in levels for c in lv.components}
    mem = memory_levels(topo, [0, 1, 2, 3])
    # Leaf rates (flops/s): L2 2 on PUs 0-2 and 1 on PU 3 (a slow core), memory 0.5 everywhere.
    rate = rate_by_level(_rates(mem, [[4.0] * 4, [2.0, 2.0, 2.0, 1.0], [2.0] * 4, [0.5] * 4]))
    assert rate(3, 100) == 4.0 and rate(3, 20000) == 1.0 and rate(0, 100000) == 2.0 and rate(0, 1 << 20) == 0.5
    # 4 slices of 20000 doubles (160 KB: L2): leaves 40000 flops at 2 (PU 3: at 1) ->
    # PU 3 is the slowest: 40000 s; then each L2 and the L3: ((2-1) 10 + 50 + 2) / r=1 = 62 s each.
    slices = dict.fromkeys(range(4), 20000)
    assert predict_inner_product(root, slices, gl, 1.0, rate) == pytest.approx(40000 + 62 + 62)
    # In memory (2^20 doubles each, 8 MiB): 2^21 flops at 0.5.
    slices = dict.fromkeys(range(4), 1 << 20)
    assert predict_inner_product(root, slices, gl, 1.0, rate) == pytest.approx(2 ** 22 + 124)


def test_hmax_bounds_follow_p_and_m():
    assert hmax_bounds(2, 32 * MiB) == (HMAX_FLOOR, HMAX_CEILING)
    # KNL level 1: 4 hardware threads on a 32 KB L1: 4 x 4 x 256 doubles = 32 KB.
    assert hmax_bounds(4, 32000) == (64, 128)
    assert hmax_bounds(4, 32 * KiB) == (64, 256)
    # 128 cores on one 64 MiB L3: 4 p = 512 and the buffer bound 512 meet.
    assert hmax_bounds(128, 64 * MiB) == (512, 512)
    # 512 threads: 4 p beats a buffer bound of 2 (the fit needs h well past p).
    assert hmax_bounds(512, 16 * MiB) == (2048, 2048)


def test_choose_hmax_by_hand():
    # g HMAX >= 8 L: L / g = 100 -> 800 -> 1024; L / g = 20 -> 160 -> 256; L / g = 2 -> 16 -> the floor 64.
    assert choose_hmax(2, 32 * MiB, 5.0, 500.0) == 1024
    assert choose_hmax(2, 32 * MiB, 10.0, 200.0) == 256
    assert choose_hmax(2, 32 * MiB, 10.0, 20.0) == 64
    assert choose_hmax(4, 32 * KiB, 5.0, 500.0) == 256          # the buffer bound
    assert choose_hmax(2, 32 * MiB, -1.0, 500.0) == 1024        # a pilot with no slope: the bound
    assert sweep_iterations(1000, 256) == 1000 and sweep_iterations(1000, 1024) == 250
    assert sweep_iterations(1, 1024) == 1


def test_hmax_per_level_on_the_papers_machines():
    """The same pilot g and L on every component: the levels of jolly and
    KNL get the HMAX their p and m allow."""
    jolly = tree(Topology.from_synthetic(
        "pack:4 numa:2(memory=16GB) l3:1(size=6MB) l2:4(size=2MB) core:2 l1d:1(size=16KB) pu:1"))
    assert [level_hmax(lv.components[0], 5.0, 500.0) for lv in jolly] == [1024, 1024, 1024]
    assert [level_hmax(lv.components[0], 10.0, 50.0) for lv in jolly] == [64, 64, 64]
    knl = tree(Topology.from_synthetic(KNL))
    # Level 1: 4 threads on a 32 KB L1 (bound 128); level 2: 2 cores on 1 MB; level 3: 32 tiles.
    assert [lv.p for lv in knl] == [4, 2, 32]
    assert [level_hmax(lv.components[0], 5.0, 500.0) for lv in knl] == [128, 1024, 1024]
    assert [level_hmax(lv.components[0], 10.0, 50.0) for lv in knl] == [64, 64, 128]


def test_old_results_file_still_loads():
    record = hpcbench.load(EXAMPLE).benchmarks[0]
    d = record.derived
    assert d.leaf_rates is None and d.startup_s is None and d.levels[0].hmax is None
    assert d.levels[0].components[0].hmax is None and record.parameters.hmax == 256
    assert all(v.measured_over_predicted_level_rate is None for v in d.inner_product)


def test_per_level_record_round_trips(tmp_path):
    """A record with HMAX per level and per component, leaf rates and the
    run taken apart: written and read back."""
    from hpcbench._record import to_plain
    with open(EXAMPLE) as f:
        plain = json.load(f)
    entry = plain["benchmarks"][0]
    del entry["parameters"]["hmax"]
    entry["derived"]["levels"][0]["hmax"] = [512, 1024]
    entry["derived"]["levels"][0]["components"][0]["hmax"] = 512
    entry["derived"]["leaf_rates"] = [{"level": "L2", "size": MiB, "sharing": 1, "slice_doubles": 65536,
                                       "pus": [0, 1], "rate": [1.6e10, 1.5e10]}]
    entry["derived"]["startup_s"], entry["derived"]["sync_s"] = 1e-4, 2e-7
    entry["derived"]["inner_product"][0].update(slice_level="L1", predicted_level_rate_s=1e-6,
                                                measured_over_predicted_level_rate=1.5, leaf_s=[1e-7, 2e-7],
                                                reduce_s=3e-7, predicted_with_startup_s=1.01e-4)
    path = tmp_path / "m.json"
    with open(path, "w") as f:
        json.dump(plain, f)
    record = hpcbench.load(str(path)).benchmarks[0]
    assert record.parameters.hmax is None and record.derived.levels[0].hmax == [512, 1024]
    assert record.derived.leaf_rates[0].rate == [1.6e10, 1.5e10]
    back = to_plain(record)
    assert back["derived"]["levels"][0]["hmax"] == [512, 1024] and "hmax" not in back["parameters"]
    from hpcbench.multibsp import BENCHMARK
    text = "\n".join(BENCHMARK.summary(record))
    assert "(HMAX 512)" in text and "L2 15.0" in text and "x1.50 (L1)" in text


def test_leaf_rate_and_decomposition_kernels_on_this_machine():
    pus = _core.thread_binding()[:2]
    rate = _core.sumsq_rate(pus, 4096, 3)
    assert rate.shape == (3, len(pus)) and np.all(rate > 0)
    levels = tree(Topology.load())
    if not levels:
        pytest.skip("needs two PUs")
    root = levels[-1].components[0]
    m = measure_inner_product(root, 1 << 12, reps=3)
    threads = len(flatten(root)["pus"])
    assert m["leaf_ticks"].shape == (3, threads) and np.all(m["leaf_ticks"] > 0)
    assert np.all(m["reduce_ticks"] >= 0) and np.all(m["reduce_ticks"] <= m["inside_ticks"])
    empty = measure_empty_run(root, reps=3)
    assert empty["startup_ticks"] > 0 and empty["sync_ticks"] > 0
    assert split_slices(root, 0, 0, {}) == dict.fromkeys(flatten(root)["pus"], (0, 0))


def test_leaf_rate_kernel_refuses_bad_parameters():
    with pytest.raises(ValueError, match="length"):
        _core.sumsq_rate([0], 0, 3)
    with pytest.raises(ValueError, match="trials"):
        _core.sumsq_rate([0], 64, 0)
    with pytest.raises(ValueError, match="distinct"):
        _core.sumsq_rate([0, 0], 64, 1)
