"""MultiBSP's r is one core's peak FLOP/s (issue 29): g and L are counted in
flops at it, the report's r is it, the DAXPY rate and the paper's r = DAXPY
prediction stay beside it; files without it fall back to DAXPY, labelled.
Known values on synthetic records and a stand-in h-communication kernel."""
import copy
import json
import os

import numpy as np
import pytest

from hpcbench._results import record_from_dict
from hpcbench.multibsp import BENCHMARK
from hpcbench.multibsp import _measure as mbsp_measure
from hpcbench.multibsp._model import predict_inner_product
from hpcbench.multibsp._report import multibsp_headlines, multibsp_meaning
from hpcbench.multibsp._tree import Component

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "hpcbench", "examples", "multibsp-example.json")


def example_entry():
    with open(EXAMPLE) as f:
        return json.load(f)["benchmarks"][0]


def with_peak(entry, peak=1e11, isa="avx512"):
    entry = copy.deepcopy(entry)
    entry["derived"]["peak_rate"] = peak
    entry["derived"]["peak_isa"] = isa
    lv = entry["derived"]["levels"][0]
    lv["g"], lv["L"] = 50.0, 2000.0
    return record_from_dict(entry, "benchmarks[0]")


def test_r_is_the_peak_where_measured():
    record = with_peak(example_entry())
    d = record.derived
    assert d.r == 1e11 and d.r_label == "peak FLOP/s (avx512 FMA)" and d.rate == pytest.approx(7.25e9, rel=1e-2)
    heads = {h.label: h.value for h in multibsp_headlines(record)}
    assert heads["r (peak FLOP/s, one core)"] == 1e11 and heads["DAXPY, one core"] == d.rate
    assert "r (DAXPY, one core)" not in heads
    meaning = "\n".join(multibsp_meaning(record))
    # L = 2000 flops at 1e11 flop/s is 20 ns.
    assert "r = 100.00 Gflop/s per core (peak FLOP/s (avx512 FMA), DAXPY 7.25 Gflop/s)" in meaning
    assert "L = 2000 flops (20 ns)" in meaning
    first = BENCHMARK.summary(record)[0]
    assert "r = 100.00 Gflop/s per core; DAXPY 7.25)" in first
    assert record.to_dict()["derived"]["peak_rate"] == 1e11


def test_files_without_the_peak_fall_back_to_daxpy_labelled():
    record = record_from_dict(example_entry(), "benchmarks[0]")
    d = record.derived
    assert d.peak_rate is None and d.r == d.rate and d.r_label == "DAXPY"
    heads = {h.label: h.value for h in multibsp_headlines(record)}
    assert heads["r (DAXPY, one core)"] == d.rate and "DAXPY, one core" not in heads
    assert "DAXPY: this file has no peak FLOP/s" in BENCHMARK.summary(record)[0]
    assert "r = 7.25 Gflop/s per core (DAXPY), the rate g and L" in multibsp_meaning(record)[0]


def test_the_papers_prediction_keeps_daxpy_for_the_leaves():
    # Two PUs, 1000 doubles each; g = 50 and L = 2000 flops at r = 1e11 flop/s,
    # the leaves at DAXPY's 1e9: 2000 / 1e9 + ((2 - 1) 50 + 2000 + 2) / 1e11 s.
    root = Component(pus=(0, 1), m=1 << 20, memories=[], children=[0, 1])
    seconds = predict_inner_product(root, {0: 1000, 1: 1000}, {(0, 1): (50.0, 2000.0)}, 1e11, 1e9)
    assert seconds == pytest.approx(2000 / 1e9 + 2052 / 1e11)


def test_superstep_flops_are_counted_at_the_rate_given(monkeypatch):
    # A stand-in kernel: 100 ticks per superstep at every h and block (10
    # supersteps per block), DAXPY 0.5 flops per tick; at r = 4 flops per
    # tick every superstep is 400 flops, at DAXPY's 0.5 it is 50.
    def hcomm(pus, hmax, iterations, blocks=10, warmup=20):
        return np.full((hmax + 1, blocks), 100.0 * iterations), np.array([0.5, 0.5])
    monkeypatch.setattr(mbsp_measure._core, "hcomm", hcomm)
    comp = Component(pus=(0, 1), m=1 << 20, memories=[], children=[0, 1])
    at_peak = mbsp_measure.measure_component(comp, 8, 10, 3, 0, flops_per_tick=4.0)
    at_daxpy = mbsp_measure.measure_component(comp, 8, 10, 3, 0)
    assert np.allclose(at_peak["flops"], 400.0) and np.allclose(at_daxpy["flops"], 50.0)
