"""Servet's probabilistic algorithm (Fig. 3) on exact model curves."""
import math

import numpy as np
import pytest

from hpcbench.cache import _probabilistic as P


def direct_tail(n, p, k):
    return 1.0 - sum(math.comb(n, x) * p**x * (1 - p) ** (n - x) for x in range(k + 1))


@pytest.mark.parametrize("n,p,k", [(10, 0.3, 2), (64, 1 / 8, 8), (200, 0.05, 16), (5, 0.5, 0), (3, 0.2, 7)])
def test_binomial_tail_matches_direct_sum(n, p, k):
    assert P.binomial_tail(n, p, k) == pytest.approx(direct_tail(n, p, k), abs=1e-12)


def test_binomial_tail_is_stable_for_many_pages():
    # 65536 pages, 256 page sets: mean 256 pages per set, far above K.
    assert P.binomial_tail(65536, 1 / 256, 16) == pytest.approx(1.0)
    assert P.binomial_tail(64, 1 / 256, 16) == pytest.approx(0.0, abs=1e-15)


def test_candidates_include_sizes_that_are_not_powers_of_two():
    cands = set(P.candidate_sizes(512 << 10, 64 << 20).tolist())
    for size in (1280 << 10, 36608 << 10, 9 << 20, 3 << 20, 2 << 20, 1 << 20):
        assert size in cands


def test_significant_bits():
    assert P.significant_bits(2 << 20) == 1
    assert P.significant_bits(1280 << 10) == 3
    assert P.significant_bits(36608 << 10) == 8


@pytest.mark.parametrize("cache,ways", [(2 << 20, 8), (1280 << 10, 20), (12 << 20, 12), (512 << 10, 16)])
@pytest.mark.parametrize("model", P.MODELS)
def test_recovers_size_from_its_own_model(cache, ways, model):
    sizes = np.arange(1, 33) * cache / 8
    sizes = (sizes // 1024 * 1024).astype(float)
    mr = P.predicted_miss_rate(sizes / 4096, ways * 4096 / cache, ways, model)
    cycles = 10 + 90 * mr  # hit 10 cycles, miss overhead 90
    fit = P.estimate_size(sizes, cycles, model=model)
    assert fit.size == cache
    # The paper's rule (mode of the five best) on this fine grid: the exact
    # size is the best candidate, but neighbours that appear twice among the
    # five can outvote it, so it is only close. This is why "simplest" is
    # the default selection.
    paper = P.estimate_size(sizes, cycles, model=model, selection="mode", normalisation="range")
    assert paper.best[0][0] == cache
    assert abs(paper.size - cache) / cache < 0.01


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="at least 3"):
        P.estimate_size([1, 2], [1, 2])
    with pytest.raises(ValueError, match="model must be"):
        P.predicted_miss_rate(10, 0.1, 2, model="nope")
    with pytest.raises(ValueError, match="selection must be"):
        P.estimate_size([1024, 2048, 4096], [1, 2, 3], selection="nope")
    with pytest.raises(ValueError, match="0 < low <= high"):
        P.candidate_sizes(10, 1)


def test_the_binomial_run_is_scipys_pmf_and_the_hand_computed_one():
    """binomial_pmf_run (one log-gamma column, then the ratio) against
    SciPy's binom.pmf over the counts a page-set fit uses (up to 200 000
    pages, p up to 5 %), the edge cases p = 0, p = 1 and k past n, and
    B(4, 1/2) by hand: 4/16, 6/16, 4/16, 1/16 for k = 1..4, 0 at k = 5."""
    from scipy.stats import binom

    from hpcbench.cache._probabilistic import binomial_pmf_run
    rng = np.random.default_rng(1)
    n = np.concatenate([rng.integers(0, 200_000, 200), [0, 1, 5, 20, 25]]).astype(float)
    p = np.concatenate([rng.uniform(0, 0.05, 200), [0.0, 1.0, 0.3, 1.0, 0.999]])
    for first in (1, 8, 20):
        got = binomial_pmf_run(first, 3 * first, n, p)
        want = binom.pmf(np.arange(first, 4 * first)[None, :], n[:, None], p[:, None])
        assert np.max(np.abs(got - want)) < 1e-10
    assert binomial_pmf_run(1, 5, np.array([4.0]), np.array([0.5]))[0] == pytest.approx([4 / 16, 6 / 16, 4 / 16,
                                                                                        1 / 16, 0])
