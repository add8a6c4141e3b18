"""What-if projections (hpcbench/predict/_whatif.py, Hammond et al. 2009,
section 6) parsed, applied to a profile and a machine, and simulated."""
import numpy as np
import pytest

from hpcbench.predict import WhatIfError
from hpcbench.predict._allocate import Machine, allocate
from hpcbench.predict._params import WavefrontParams
from hpcbench.predict._placement import Placement
from hpcbench.predict._profile import NetworkProfile, Region
from hpcbench.predict._simulate import simulate
from hpcbench.predict._wavefront_program import wavefront_program
from hpcbench.predict._whatif import WhatIf, parse_what_if

# Table 3 of the paper (seconds, bytes per second).
TABLE3 = NetworkProfile({
    "on-chip": [Region(0, 0.655e-6, 2.70e9)],
    "off-processor": [Region(0, 0.69e-6, 2.80e9), Region(2048, 0.91e-6, 3.83e9)],
    "off-node": [Region(0, 2.64e-6, 0.46e9), Region(2048, 3.63e-6, 0.73e9)]}, "Table 3")
ONE_REGION = NetworkProfile({"other node": [Region(0, 0.25, 64.0)]}, "test")


def two_by_two():
    """The 2x2 one-tile sweep of test_predict_simulate: 13.5 s on ONE_REGION."""
    return wavefront_program(WavefrontParams(nx=4, ny=2, nz=1, m=2, n=2, wg=1.0, n_sweeps=1))


def test_parse_the_papers_what_ifs():
    w = parse_what_if("latency=+25%,bandwidth=-10%,core-speed=+20%,cores-per-node=x2")
    assert w == WhatIf(latency=1.25, bandwidth=0.9, core_speed=1.2, cores_per_node=2)
    assert parse_what_if("core-speed=x2, latency.off-node=+50%") == WhatIf(core_speed=2.0,
                                                                           latency_of=(("other node", 1.5),))
    assert parse_what_if("") == WhatIf() and WhatIf().describe() == "nothing changed"


def test_latency_plus_50_percent_on_the_hand_worked_sweep():
    """Latency 0.25 -> 0.375 s, so t_send 1.125 s (48 bytes) and 1.875 s
    (96 bytes). Rank 0 computes to 2, sends east to 3.125 and north to 5;
    rank 1 receives 3.125-3.875, computes to 5.875, sends north to 7.75;
    rank 2 receives 5-6.5, computes to 8.5, sends east to 9.625; rank 3
    receives 9.625-10.375 and 10.375-11.875, computes to 13.875: 13.5 + 3 x
    0.125 s, three sends (0 east, 0 north, 2 east) on the critical path."""
    p = two_by_two()
    proj = parse_what_if("latency=+50%").apply(ONE_REGION)
    assert simulate(p, proj.profile, Placement.uniform(4, "other node")).total == 13.875


@pytest.mark.parametrize("strategy", ["round-robin", "node-fill", "processor-fill"])
def test_more_latency_is_never_faster(strategy):
    """Figure 6's what-ifs on a 4x4 wavefront on four dual-dual nodes."""
    p = wavefront_program(WavefrontParams(nx=16, ny=16, nz=8, m=4, n=4, wg=2e-8, h_tile=2))
    placement = allocate(16, Machine(4, 2, 2), strategy)
    totals = [simulate(p, parse_what_if(f"latency=+{pct}%").apply(TABLE3).profile, placement).total
              for pct in (0, 25, 50, 75)]
    assert all(a < b for a, b in zip(totals, totals[1:])), totals


def test_core_speed_x2_halves_every_compute_total():
    p = wavefront_program(WavefrontParams(nx=16, ny=16, nz=8, m=4, n=4, wg=2e-8))
    placement = allocate(16, Machine(4, 2, 2), "node-fill")
    base = simulate(p, TABLE3, placement)
    proj = parse_what_if("core-speed=x2").apply(TABLE3)
    fast = simulate(p, proj.profile, placement, core_speed=proj.core_speed)
    assert proj.core_speed == 2.0
    assert np.array_equal(fast.compute, base.compute / 2)
    assert np.array_equal(fast.send, base.send) and fast.total < base.total


def test_plus_zero_percent_changes_nothing():
    p = wavefront_program(WavefrontParams(nx=16, ny=16, nz=8, m=4, n=4, wg=2e-8))
    placement = allocate(16, Machine(4, 2, 2), "round-robin")
    proj = parse_what_if("latency=+0%,bandwidth=-0%,core-speed=+0%,cores-per-node=x1").apply(
        TABLE3, Machine(4, 2, 2))
    assert proj.profile.to_dict()["classes"] == TABLE3.to_dict()["classes"]
    assert proj.machine == Machine(4, 2, 2) and proj.core_speed == 1.0
    a, b = simulate(p, TABLE3, placement), simulate(p, proj.profile, placement, core_speed=proj.core_speed)
    for name in ("finish", "compute", "send", "recv", "idle"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_dual_to_quad_core_and_table5_contention():
    """cores-per-node=x2: 240 nodes x 2 processors x 2 cores -> x 4 cores.
    Table 5's contention off node: below 2048 bytes as measured; 2048-4095
    latency 3.63 x 1.1 us, bandwidth 0.73 x 0.9 GB/s; from 4096 3.63 x 1.2
    and 0.73 x 0.8; the other classes untouched."""
    proj = parse_what_if("cores-per-node=x2,contention=table5").apply(TABLE3, Machine.parse("240x2x2"))
    assert proj.machine == Machine(240, 2, 4)
    node = proj.profile.classes["other node"]
    assert [r.first for r in node] == [0, 2048, 4096]
    assert (node[0].latency, node[0].bandwidth) == (2.64e-6, 0.46e9)
    assert node[1].latency == pytest.approx(3.993e-6) and node[1].bandwidth == pytest.approx(0.657e9)
    assert node[2].latency == pytest.approx(4.356e-6) and node[2].bandwidth == pytest.approx(0.584e9)
    assert proj.profile.classes["same cache"] == TABLE3.classes["same cache"]


def test_a_class_qualifier_changes_that_class_only():
    proj = parse_what_if("latency.off-node=+50%,bandwidth.on-chip=x2").apply(TABLE3)
    assert proj.profile.classes["other node"][0].latency == pytest.approx(3.96e-6)
    assert proj.profile.classes["other package"] == TABLE3.classes["other package"]
    assert proj.profile.classes["same cache"][0].bandwidth == 5.4e9


@pytest.mark.parametrize("text,message", [
    ("speed=+10%", "unknown what-if key 'speed': one of latency, bandwidth, core-speed, cores-per-node, "
                   "contention"),
    ("bandwidth=-100%", "makes the bandwidth <= 0"),
    ("core-speed=x0", "makes the core speed <= 0"),
    ("core-speed=-120%", "makes the core speed <= 0"),
    ("latency=-150%", "makes the latency negative"),
    ("latency=25", "a change is \\+P% or -P% \\(percent\\) or xF"),
    ("latency+25%", "a what-if item is KEY=CHANGE"),
    ("cores-per-node=x1.5", "cores-per-node takes xK"),
    ("core-speed.on-chip=x2", "only latency and bandwidth take a class"),
    ("latency.bus=+10%", "unknown placement class 'bus'"),
    ("contention=heavy", "contention is one of auto, ratnc, table5, none"),
])
def test_errors_are_one_line(text, message):
    with pytest.raises(WhatIfError, match=message) as err:
        parse_what_if(text)
    assert "\n" not in str(err.value)
