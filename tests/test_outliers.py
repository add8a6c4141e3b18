"""Outliers: samples far beyond their set's median are counted and kept, a
stall or a noisy machine is one warning, and the benchmarks record them."""
import numpy as np
import pytest

from hpcbench._outliers import FAR, find_outliers


def test_a_stall_is_found_and_said_with_its_length():
    rng = np.random.default_rng(3)
    sets = [1e-6 * (1 + 0.05 * rng.random(500)) for _ in range(5)]
    sets[2][137] = 20.0                                  # one rank stopped for 20 s
    report = find_outliers(sets)
    assert report.count == 1 and report.samples == 2500 and report.kept
    assert report.worst == 20.0 and report.worst_ratio > 1e6
    line = report.warning("comm echo")
    assert line.startswith("comm echo: a sample took 20 s") and "stalled rank" in line and "kept" in line


def test_tails_below_the_limit_are_not_outliers_and_noise_is_said_once_it_is_common():
    base = np.full(1000, 1e-6)
    assert find_outliers([base * np.linspace(1, FAR * 0.99, 1000)]).count == 0
    spiky = base.copy()
    spiky[:5] = 50e-6                                    # 0.5%: counted, not worth a line
    quiet = find_outliers([spiky])
    assert quiet.count == 5 and quiet.warning("x") is None
    spiky[:30] = 50e-6                                   # 3%: a noisy machine
    assert "30 of 1000 samples" in find_outliers([spiky]).warning("x")


def test_bandwidths_are_slow_when_low_and_nan_is_ignored():
    bw = np.full(200, 20e9)
    bw[7] = 0.1e9
    bw[8] = np.nan
    report = find_outliers([bw], slower="lower")
    assert report.count == 1 and report.samples == 199 and report.worst == pytest.approx(0.1e9)
    assert report.warning("memory", unit="bytes/s") is None      # one of 199: counted only
