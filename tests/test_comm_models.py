"""Communication cost models on synthetic curves with known parameters."""
import numpy as np
import pytest

from hpcbench.comm import (
    bandwidth_thresholds,
    hockney_fit,
    hop_fit,
    predict,
    refinement_sizes,
    regional_fit,
    vector_rate,
)
from hpcbench.comm._models import breakpoints
from hpcbench.comm._sweep import check_sizes, message_sizes

SIZES = message_sizes(4 << 20)


def noisy(times, seed, sigma=0.01):
    return times * np.random.default_rng(seed).lognormal(0, sigma, times.size)


def hammond_off_node(sizes):
    # Hammond et al. 2009, Table 3, off-node: 2.64 us + N/0.46 GB/s below 2048 B, 3.63 us + N/0.73 GB/s above.
    return np.where(sizes < 2048, 2.64e-6 + sizes / 0.46e9, 3.63e-6 + sizes / 0.73e9)


def comet_nx2(sizes):
    # CoMet on NX/2: messages over 100 bytes need a buffer handshake.
    return np.where(sizes <= 100, 75e-6 + sizes / 2.8e6, 150e-6 + sizes / 2.8e6)


def test_message_sizes_grid():
    assert SIZES[0] == 0 and SIZES[1] == 1 and SIZES[-1] == 4 << 20 and SIZES.size == 24
    with pytest.raises(ValueError):
        message_sizes(0)
    with pytest.raises(ValueError, match="between 0 and"):
        check_sizes([-1, 8])
    with pytest.raises(ValueError, match="whole byte counts"):
        check_sizes([1.5])
    with pytest.raises(ValueError, match="repeat"):
        check_sizes([8, 8])


def test_hockney_recovers_known_parameters():
    fit = hockney_fit(SIZES, noisy(1.5e-6 + SIZES / 5e9, 1))
    assert fit.t0 == pytest.approx(1.5e-6, rel=0.05)
    assert fit.bandwidth == pytest.approx(5e9, rel=0.05)
    assert fit.n_half == pytest.approx(1.5e-6 * 5e9, rel=0.1)


@pytest.mark.parametrize("seed", range(10))
def test_regions_find_hammonds_2048_byte_split(seed):
    regions = regional_fit(SIZES, noisy(hammond_off_node(SIZES), seed))
    assert len(regions) == 2
    # Noise may put the split one grid step early; refinement then brackets it.
    assert 1024 <= regions[1].first <= 2048
    assert regions[0].latency == pytest.approx(2.64e-6, rel=0.1)
    assert regions[1].bandwidth == pytest.approx(0.73e9, rel=0.05)
    extra = refinement_sizes(SIZES, regions)
    assert np.any((extra > 1024) & (extra < 2048))


def test_refined_sizes_locate_the_split():
    sizes = np.union1d(SIZES, refinement_sizes(SIZES, regional_fit(SIZES, hammond_off_node(SIZES))))
    regions = regional_fit(sizes, noisy(hammond_off_node(sizes), 3, 0.005))
    assert breakpoints(regions) == [2048]
    assert regions[0].bandwidth == pytest.approx(0.46e9, rel=0.1)
    assert regions[1].latency == pytest.approx(3.63e-6, rel=0.1)


@pytest.mark.parametrize("seed", range(10))
def test_regions_find_comets_100_byte_jump(seed):
    sizes = SIZES[SIZES <= 16384]
    regions = regional_fit(sizes, noisy(comet_nx2(sizes), seed))
    assert len(regions) == 2 and regions[1].first == 128
    assert regions[0].latency == pytest.approx(75e-6, rel=0.05)
    assert regions[1].latency == pytest.approx(150e-6, rel=0.05)
    assert predict(regions, [64, 128]) == pytest.approx(comet_nx2(np.array([64, 128])), rel=0.05)


@pytest.mark.parametrize("seed", range(10))
def test_one_line_is_not_split(seed):
    assert len(regional_fit(SIZES, noisy(1e-6 + SIZES / 5e9, seed, 0.02))) == 1


def test_noise_free_curves_are_split_exactly():
    regions = regional_fit(SIZES, hammond_off_node(SIZES))
    assert breakpoints(regions) == [2048]


def test_bandwidth_thresholds():
    sizes = 2.0 ** np.arange(0, 31)
    t0, tb = 2e-6, 1 / 10e9                 # n_1/2 = t0 / tb = 20000 bytes
    th = bandwidth_thresholds(sizes, t0 + sizes * tb)
    assert th["peak"] == pytest.approx(10e9, rel=0.001)
    assert th[0.5] == pytest.approx(20000, rel=0.05)   # log-log interpolation between powers of two
    assert th[0.9] == pytest.approx(9 * 20000, rel=0.08)   # N/(t0+N tb) = 0.9/tb at N = 9 t0/tb


def test_hop_model():
    sizes = np.tile([0, 1024, 16384, 262144], 3).astype(float)
    hops = np.repeat([1, 2, 3], 4).astype(float)
    times = noisy(5e-6 + sizes / 2e9 + (hops - 1) * 0.8e-6, 4, 0.005)
    model = hop_fit(sizes, hops, times)
    assert model.h == pytest.approx(0.8e-6, rel=0.1)
    assert model.t0 == pytest.approx(5e-6, rel=0.05)
    with pytest.raises(ValueError, match="two distinct hop counts"):
        hop_fit([0, 1, 2], [1, 1, 1], [1.0, 2.0, 3.0])


def test_vector_rate():
    lengths = 2.0 ** np.arange(4, 17)
    rate = vector_rate(lengths, noisy(50e-9 + lengths * 2 / 8e9, 5, 0.005))   # 8 Gflop/s, n_1/2 = 200
    assert rate.r_inf == pytest.approx(8e9, rel=0.05)
    assert rate.n_half == pytest.approx(200, rel=0.15)


def test_fits_refuse_bad_input():
    with pytest.raises(ValueError):
        hockney_fit([1, 2], [1.0])
    with pytest.raises(ValueError):
        regional_fit([1, 2, 3], [1.0, -1.0, 2.0])
