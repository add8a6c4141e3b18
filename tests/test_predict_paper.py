"""Table 4 of Hammond et al. (2009) from its Table 3: the shipped profile
(hpcbench/examples/francesca-profile.json), the node-fill placement of
Francesca, and the plug-and-play model's ratios between rows against the
paper's analytical column (assumptions in hpcbench/predict/_paper.py).
Run with -s to see the table."""
import os

import numpy as np
import pytest

from hpcbench.predict import NetworkProfile
from hpcbench.predict._classes import OTHER_NODE, OTHER_PACKAGE, SAME_CACHE
from hpcbench.predict._paper import TABLE4, calibrate_wg, efficiency, format_table, node_fill, square_array, table4

PROFILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hpcbench", "examples",
                       "francesca-profile.json")


@pytest.fixture(scope="module")
def profile():
    return NetworkProfile.from_table(PROFILE)


def test_the_profile_is_table_3(profile):
    """Send and receive times of Table 3 (GB = 1e9 bytes, latency in us):
    off-node 1000 bytes: 1000 / 0.46e9 + 2.64e-6 to send; 4096 bytes in the
    second region: 4096 / 0.73e9 + 3.63e-6; on-chip has one region."""
    assert profile.t_send(1000, "off-node") == pytest.approx(1000 / 0.46e9 + 2.64e-6)
    assert profile.t_recv(1000, "off-node") == pytest.approx(1000 / 0.46e9)
    assert profile.t_send(4096, "off-node") == pytest.approx(4096 / 0.73e9 + 3.63e-6)
    assert profile.t_send(2047, "off-processor") == pytest.approx(2047 / 2.80e9 + 0.69e-6)
    assert profile.t_send(2048, "off-processor") == pytest.approx(2048 / 3.83e9 + 0.91e-6)
    assert profile.t_send(1e6, "on-chip") == pytest.approx(1e6 / 2.70e9 + 0.655e-6)
    assert set(profile.classes) == {SAME_CACHE, OTHER_PACKAGE, OTHER_NODE}


def test_node_fill_puts_four_ranks_on_a_node():
    """Ranks 0-3 on node 0 (0, 1 on one package, 2, 3 on the other), 4-7 on
    node 1: 0-1 on-chip, 1-2 off-processor, 3-4 off-node."""
    p = node_fill(8)
    assert p.node.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert p.class_name(0, 1) == SAME_CACHE and p.class_name(2, 3) == SAME_CACHE
    assert p.class_name(1, 2) == OTHER_PACKAGE and p.class_name(0, 3) == OTHER_PACKAGE
    assert p.class_name(3, 4) == OTHER_NODE and p.class_name(0, 7) == OTHER_NODE


@pytest.mark.parametrize("cores, shape", [(32, (4, 8)), (64, (8, 8)), (81, (9, 9)), (96, (8, 12)),
                                          (100, (10, 10)), (128, (8, 16)), (169, (13, 13)), (256, (16, 16)),
                                          (7, (1, 7))])
def test_the_most_square_array(cores, shape):
    assert square_array(cores) == shape


def test_the_calibration_brackets_half_efficiency(profile):
    """At the band's low end the efficiency is 50 % at 1024 cores; at the
    middle it is above 50 % at 1024 and below at 2048 (section 6.1)."""
    low, mid, high = calibrate_wg(6, profile)
    assert low < mid < high
    assert efficiency(1024, 240, low, 6, profile) == pytest.approx(0.5, abs=1e-6)
    assert efficiency(2048, 240, high, 6, profile) == pytest.approx(0.5, abs=1e-6)
    assert efficiency(1024, 240, mid, 6, profile) > 0.5 > efficiency(2048, 240, mid, 6, profile)


@pytest.mark.parametrize("angles", [6, 10])
def test_table_4_ratios_within_15_percent(profile, angles):
    """Every row's ratio to its problem size's fitted row (120^3 at 64
    cores, 240^3 at 256) within 15 % of the paper's analytical ratio."""
    _, wg, _ = calibrate_wg(angles, profile)
    rows = table4(profile, wg, angles)
    print(f"\nTable 4, {angles} angles, W_g = {wg * 1e6:.3f} us per cell\n" + format_table(rows))
    assert [(r.cores, r.edge) for r in rows] == [(c, e) for c, e, _, _ in TABLE4]
    fitted = [r for r in rows if r.fitted]
    assert [r.error for r in fitted] == pytest.approx([0.0, 0.0], abs=1e-12)
    errors = np.array([r.error for r in rows])
    assert np.all(np.abs(errors) < 0.15), format_table(rows)
    # The model's own trend: more cores, less time per iteration, within a size.
    for edge in (120, 240):
        times = [r.iteration for r in sorted(rows, key=lambda r: r.cores) if r.edge == edge]
        assert times == sorted(times, reverse=True)
