"""peakflops' pure parts on known answers: the ISA choice with a fake
supported set, rates, overlap and the headline from synthetic runs, the
report's machine figures, and the notebook on the shipped example."""
import numpy as np
import pytest

import hpcbench.examples
from hpcbench._errors import OptionError
from hpcbench.flops._analysis import headline, overlap, overlap_warning, run_rate
from hpcbench.flops._isa import isas_to_run, widest
from hpcbench.flops._records import FlopsRun


def test_all_runs_every_supported_isa_widest_first():
    assert isas_to_run("all", {"sse2", "avx512", "avx2"}) == ["avx512", "avx2", "sse2", "scalar"]
    assert isas_to_run("all", {"sse2"}) == ["sse2", "scalar"]
    assert widest({"sse2", "avx2"}) == "avx2" and widest(set()) == "scalar"


def test_the_report_header_gives_the_node_and_core_peaks():
    from hpcbench.flops import BENCHMARK
    record = hpcbench.load(hpcbench.examples.path("peakflops-example.json")).get("peakflops")
    figures = {h.label: h.value for h in BENCHMARK.machine_figures(record)}
    assert figures == {"Peak FLOP/s, node (AVX-512 FMA, double)": record.derived.peak_node,
                       "Peak FLOP/s, one core (AVX-512 FMA, double)": record.derived.peak_per_core}


def test_an_isa_the_cpu_lacks_names_what_it_has():
    with pytest.raises(OptionError) as e:
        isas_to_run("avx512", {"avx2", "sse2"})
    assert e.value.parameter == "isa" and "avx2, sse2, scalar" in str(e.value) and "avx512" in str(e.value)
    assert isas_to_run("scalar", set()) == ["scalar"]


def synthetic_run(ns, start, isa="avx512", precision="double", flops=1e9):
    ns, start = np.asarray(ns, float), np.asarray(start, float)
    return FlopsRun(isa=isa, precision=precision, pus=list(range(ns.shape[0])), iterations=10,
                    flops_per_sample=flops, ns=ns, start_ns=start, end_ns=start + ns)


def test_rates_per_core_and_together_are_the_hand_computed_values():
    # Two cores, 1e9 flops per sample each; core 0 takes 10 ms, core 1 20 ms
    # (100 and 50 Gflop/s): together 2e9 flops in the slowest core's 20 ms.
    # Core 1 starts 5 ms late in the last sample: the cores ran together
    # from 5 to 10 ms of its 20, so that sample's overlap is 0.25.
    run = synthetic_run([[1e7, 1e7, 1e7], [2e7, 2e7, 2e7]], [[0, 3e7, 6e7], [0, 3e7, 6.5e7]])
    r = run_rate(run)
    assert r.cores == 2 and r.per_core == pytest.approx(75e9) and r.per_core_max == pytest.approx(100e9)
    assert r.together == pytest.approx(100e9) and r.together_max == pytest.approx(100e9)
    assert r.per_core_spread == pytest.approx((100e9 - 50e9) / 75e9)
    assert overlap(run) == pytest.approx(0.5)       # median of 0.5, 0.5 and 0.25
    late = synthetic_run([[1e7], [1e7]], [[0], [2e7]])  # back to back: never together
    assert overlap(late) == 0 and run_rate(late).together == pytest.approx(200e9)
    assert "on 2 cores (0.00)" in overlap_warning([run_rate(late)]) and overlap_warning([r]) is None


def test_headline_is_the_widest_isas_double_rate_best_sample():
    one = run_rate(synthetic_run([[1e7, 2e7]], [[0, 3e7]]))             # 100 and 50 Gflop/s: best 100
    two = run_rate(synthetic_run([[1e7, 1e7], [2e7, 1e7]], [[0, 3e7], [0, 3e7]]))   # 2e9 flops in 20, then 10 ms
    single = run_rate(synthetic_run([[5e6]], [[0]], precision="single"))
    assert one.per_core == pytest.approx(75e9) and two.together == pytest.approx((1e11 + 2e11) / 2)
    assert headline([one, two, single], "avx512") == (pytest.approx(100e9), pytest.approx(2e11), 2)
    assert headline([single], "avx512") == (None, None, 0)


