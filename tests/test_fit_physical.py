"""A fitted figure that is not physical is reported as a failed fit, with
why, never as a finding (hpcbench._physical): synthetic data with known
parameters, fitted by the benchmarks' own fits."""
import copy
import json
import os

import numpy as np
import pytest

import hpcbench
from hpcbench._physical import PEAK_RULE, Bound, fit_failure, hop_cost_failure, latency_failure, robust_peak
from hpcbench.comm._models import hockney_fit, hop_fit, regional_fit
from hpcbench.comm._report import comm_failed_fits, comm_meaning
from hpcbench.report._view import record_view

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = np.array([0, 1024, 4096, 16384, 65536] * 3, dtype=float)
HOPS = np.repeat([1.0, 2.0, 3.0], 5)


def test_a_per_hop_cost_from_times_that_fall_with_distance_fails():
    """t = 5 us + N ns - (n - 1) 2 us: the fit finds h = -2 us, which is no cost."""
    model = hop_fit(SIZES, HOPS, 5e-6 + SIZES * 1e-9 - (HOPS - 1) * 2e-6 + 1e-5)
    assert model.h == pytest.approx(-2e-6, rel=1e-6)
    why = hop_cost_failure(model.h, "-2.00 us")
    assert why == ("the per-hop model failed: its fitted per-hop cost is negative (-2.00 us): the times do not "
                   "grow with distance; no per-hop cost is reported")


def test_a_per_hop_cost_from_physical_times_stands():
    model = hop_fit(SIZES, HOPS, 5e-6 + SIZES * 1e-9 + (HOPS - 1) * 1e-6)
    assert model.h == pytest.approx(1e-6, rel=1e-6) and hop_cost_failure(model.h, "1.00 us") is None


def test_a_negative_latency_intercept_fails_and_a_positive_one_stands():
    """Large messages whose time grows faster than a line through 0: t = -50 us + N / 0.1 GB/s."""
    sizes = np.array([65536, 131072, 262144, 524288, 1048576], dtype=float)
    bad = hockney_fit(sizes, -50e-6 + sizes / 1e8)
    assert bad.t0 == pytest.approx(-50e-6, rel=1e-6)
    why = latency_failure("echo fit over 64 KiB..1 MiB", bad.t0, "-50.00 us")
    assert why is not None and why.startswith("the echo fit over 64 KiB..1 MiB failed: its fitted latency is "
                                              "negative (-50.00 us)")
    good = regional_fit(sizes, 5e-6 + sizes / 1e9)
    assert len(good) == 1 and latency_failure("echo fit", good[0].t0, "5.00 us") is None


def test_every_bound_is_checked_and_a_missing_value_fails():
    assert fit_failure("m", Bound("a", 1.0, "1", "why"), Bound("b", float("nan"), "nan", "no data")) == \
        "the m failed: its fitted b is not a finite number (nan): no data; no b is reported"
    assert "is zero" in fit_failure("m", Bound("rate", 0.0, "0", "flat", strict=True))
    assert fit_failure("m", Bound("rate", 0.0, "0", "flat")) is None


def test_a_peak_is_not_one_transient_sample():
    """One spike among a plateau does not set the peak: the median of the 3 highest points."""
    assert robust_peak([1.0, 1.0, 1.0, 1.0, 10.0]) == 1.0
    assert robust_peak([1.0, 2.0, 3.0, 4.0]) == 3.0
    assert robust_peak([2.0, None, float("nan"), -1.0]) == 2.0
    assert robust_peak([]) is None and "3 highest points" in PEAK_RULE


# ---- the comm record and the report ----------------------------------------------------------------


@pytest.fixture(scope="module")
def comm_data():
    with open(os.path.join(ROOT, "hpcbench", "examples", "comm-example.json")) as f:
        return json.load(f)


def comm_with(data, tmp_path, per_hop, echo_latency):
    """The comm example with its hop model's per-hop cost and its echo's last region's latency set."""
    data = copy.deepcopy(data)
    derived = data["benchmarks"][0]["derived"]
    derived["hops"]["model"]["per_hop"] = per_hop
    derived["echo"]["regions"][-1]["latency"] = echo_latency
    for layer in derived["layers"]:                      # only the echo's region is judged here
        for region in layer["regions"]:
            region["latency"] = abs(region["latency"])
    for kernel in ("exchange", "broadcast", "global_sum"):
        for region in derived[kernel]["regions"]:
            region["latency"] = abs(region["latency"])
    path = tmp_path / f"comm-{per_hop}.json"
    path.write_text(json.dumps(data))
    return hpcbench.load(str(path)).benchmarks[0]


def test_a_negative_per_hop_cost_is_a_failed_fit_not_a_finding(comm_data, tmp_path):
    record = comm_with(comm_data, tmp_path, -259.67e-6, -121.62e-6)
    failed = comm_failed_fits(record)
    assert failed[0].startswith("the per-hop model failed: its fitted per-hop cost is negative (-259.67 us)")
    assert failed[1].startswith("the echo fit over 14 KiB..1 MiB failed: its fitted latency is negative (-121.62 us)")
    assert len(failed) == 2
    assert not any("hop" in line for line in comm_meaning(record))
    view = record_view(record, "comm")
    assert view.failed_fits == failed and not any("hop" in line for line in view.meaning)


def test_physical_fits_are_shown_as_before(comm_data, tmp_path):
    record = comm_with(comm_data, tmp_path, 1.0e-7, 121.62e-6)
    assert comm_failed_fits(record) == []
    assert "Each extra hop adds 0.10 us." in comm_meaning(record)
    assert record_view(record, "comm").failed_fits == []


def test_a_negative_synchronisation_cost_is_a_failed_fit(tmp_path):
    """MultiBSP's g h + L: a level whose fitted L is negative is said as a failed fit, not as a cost."""
    from hpcbench.multibsp._report import multibsp_failed_fits, multibsp_meaning
    with open(os.path.join(ROOT, "hpcbench", "examples", "multibsp-example.json")) as f:
        data = json.load(f)
    record = hpcbench.load(os.path.join(ROOT, "hpcbench", "examples", "multibsp-example.json")).benchmarks[0]
    assert multibsp_failed_fits(record) == [] and any(m.startswith("Level 1:") for m in multibsp_meaning(record))
    data["benchmarks"][0]["derived"]["levels"][0]["L"] = -120.0
    path = tmp_path / "multibsp.json"
    path.write_text(json.dumps(data))
    bad = hpcbench.load(str(path)).benchmarks[0]
    assert multibsp_failed_fits(bad) == ["the g/L fit of level 1 failed: its fitted L is negative (-120 flops): the "
                                         "superstep times do not stay above zero as h falls to 0; no L is reported"]
    assert not any(m.startswith("Level 1:") for m in multibsp_meaning(bad))


def test_the_figures_between_nodes_are_the_fastest_all_remote_layers():
    """comm's machine figures: the 8 B latency and the largest message's bandwidth of the fastest layer whose
    pairs are all on other nodes (the mapping example's layer 2: layer 1 is 'same L3')."""
    from hpcbench.comm._report import comm_machine_figures
    record = hpcbench.load(os.path.join(ROOT, "hpcbench", "examples", "mapping-example.json")).benchmarks[0]
    layer = record.derived.layers[1]
    latency, bandwidth = comm_machine_figures(record)
    assert latency.label == "latency between nodes, 8 B" and latency.value == layer.summary.at(8)
    assert bandwidth.label == "bandwidth between nodes, 1 MiB"
    assert bandwidth.value == pytest.approx(2 ** 20 / layer.summary.at(2 ** 20), rel=1e-9)
