"""check's verdict rule on synthetic samples with known parameters: a known
shift is found, no shift is not flagged, a significant but small shift is
not a regression, and ten runs drawn from one distribution compared pair by
pair give no regression (the false-regression figure of issue 30)."""
import itertools

import numpy as np
import pytest

from hpcbench._headline import Headline
from hpcbench.check._verdict import (
    BETTER,
    DIFFERENT,
    MISSING,
    NEW,
    SAME,
    WORSE,
    Pair,
    Settings,
    holm,
    judge,
    smallest_p,
)


def _latency(value_samples, label="echo latency 8 B"):
    samples = tuple(float(v) for v in value_samples)
    return Headline(label, float(np.median(samples)), "s", "lower", samples)


def test_a_known_shift_is_worse_and_no_shift_is_same():
    rng = np.random.default_rng(1)
    base = rng.normal(10e-6, 0.3e-6, 500)
    slower = rng.normal(13e-6, 0.3e-6, 500)             # +30 %
    same = rng.normal(10e-6, 0.3e-6, 500)
    worse, unchanged = judge([Pair(_latency(base), _latency(slower)), Pair(_latency(base), _latency(same))])
    assert worse.word == WORSE and worse.test == "Mann-Whitney U" and worse.failing
    assert worse.p_adjusted < 0.01 and worse.change == pytest.approx(0.3, abs=0.02)
    assert unchanged.word == SAME and not unchanged.failing


def test_a_faster_run_is_better_by_the_headlines_direction():
    rng = np.random.default_rng(2)
    base, faster = rng.normal(10e-6, 0.2e-6, 300), rng.normal(8e-6, 0.2e-6, 300)
    bandwidth = lambda x: Headline("bw", float(np.median(x)), "bytes/s", "higher", tuple(x))  # noqa: E731
    assert judge([Pair(_latency(base), _latency(faster))])[0].word == BETTER
    assert judge([Pair(bandwidth(1 / base), bandwidth(1 / faster))])[0].word == BETTER
    assert judge([Pair(bandwidth(1 / faster), bandwidth(1 / base))])[0].word == WORSE


def test_a_significant_shift_under_min_change_is_the_same():
    rng = np.random.default_rng(3)
    base = rng.normal(10.0, 0.05, 2000)
    shifted = base * 1.02                                 # +2 %: significant with 2000 samples, too small to act on
    v = judge([Pair(_latency(base), _latency(shifted))])[0]
    assert v.p_adjusted < 1e-10 and v.word == SAME and "smaller than 5 %" in v.why
    assert judge([Pair(_latency(base), _latency(shifted))], Settings(min_change=0.01))[0].word == WORSE


def test_without_samples_the_tolerance_decides():
    a = Headline("Triad", 100.0, "bytes/s", "higher")
    assert judge([Pair(a, Headline("Triad", 96.0, "bytes/s", "higher"))])[0].word == SAME
    v = judge([Pair(a, Headline("Triad", 94.0, "bytes/s", "higher"))])[0]
    assert v.word == WORSE and v.test == "tolerance" and v.tolerance == 0.05
    assert judge([Pair(a, Headline("Triad", 94.0, "bytes/s", "higher"), 0.1)])[0].word == SAME
    assert judge([Pair(a, Headline("Triad", 111.0, "bytes/s", "higher"), 0.1)])[0].word == BETTER
    size = Headline("L2 size", 512.0, "bytes")
    assert judge([Pair(size, Headline("L2 size", 1024.0, "bytes"))])[0].word == DIFFERENT


def test_a_count_from_zero_is_judged():
    none = Headline("slow nodes and links", 0.0, "count", "lower")
    assert judge([Pair(none, Headline("slow nodes and links", 2.0, "count", "lower"))])[0].word == WORSE
    assert judge([Pair(none, none)])[0].word == SAME


def test_missing_and_new_figures():
    a = Headline("x", 1.0, "s", "lower")
    missing, new = judge([Pair(a, None), Pair(None, a)])
    assert missing.word == MISSING and missing.failing and new.word == NEW and not new.failing
    assert judge([Pair(a, Headline("x", None, "s", "lower"))])[0].word == MISSING


def test_too_few_samples_fall_back_to_the_tolerance():
    # 3 samples a side: the test's smallest p is 0.1, it can never reject at 0.01.
    assert smallest_p(3, 3) == pytest.approx(0.1)
    a, b = _latency([1.0, 1.1, 1.2]), _latency([2.0, 2.1, 2.2])
    v = judge([Pair(a, b)])[0]
    assert v.test == "tolerance" and v.word == WORSE


def test_holm_adjusts_step_down():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([]) == []


def _run(rng, figures):
    """One synthetic run: per figure, 200 samples of one lognormal distribution (heavy right tail, as timings)."""
    return [Headline(f"figure {i}", 0.0, "s", "lower", tuple(float(x) for x in (scale * rng.lognormal(0, 0.1, 200))))
            for i, scale in enumerate(figures)]


def test_ten_unchanged_runs_give_no_false_regression():
    rng = np.random.default_rng(30)
    scales = list(np.geomspace(1e-6, 1e-3, 20))
    runs = []
    for _ in range(10):
        headlines = _run(rng, scales)
        runs.append([Headline(h.label, float(np.median(h.samples)), h.unit, h.better, h.samples) for h in headlines])
    regressions, significant_raw = 0, 0
    for a, b in itertools.permutations(runs, 2):          # 90 comparisons of 20 figures
        verdicts = judge([Pair(x, y) for x, y in zip(a, b)])
        regressions += sum(v.failing for v in verdicts)
        significant_raw += sum(v.p_value < 0.01 for v in verdicts)
    assert regressions == 0
    # Without the correction and the minimum change, about 1 % of 1800 tests reject by chance: the
    # correction is what a file of many figures needs.
    assert significant_raw > 0


def test_ten_runs_with_a_real_shift_in_one_are_caught():
    rng = np.random.default_rng(31)
    scales = [1e-6, 1e-5, 1e-4]
    reference = _run(rng, scales)
    slowed = [Headline(h.label, 0.0, h.unit, h.better, tuple(1.3 * x for x in h.samples)) for h in _run(rng, scales)]
    ref = [Headline(h.label, float(np.median(h.samples)), "s", "lower", h.samples) for h in reference]
    cur = [Headline(h.label, float(np.median(h.samples)), "s", "lower", h.samples) for h in slowed]
    assert [v.word for v in judge([Pair(a, b) for a, b in zip(ref, cur)])] == [WORSE] * 3
