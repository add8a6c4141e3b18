"""The simulator's closed form agrees with access-by-access LRU simulation."""
import cachesim as cs
import numpy as np
import pytest


@pytest.mark.parametrize("cache", [cs.Cache(16 << 10, 4), cs.Cache(64 << 10, 8), cs.Cache(32 << 10, 2, line=128)])
@pytest.mark.parametrize("array_kib", [8, 24, 48, 96])
def test_closed_form_matches_true_lru(cache, array_kib):
    machine = cs.Machine("one level", (cache,), memory_latency=100.0)
    virt, phys = cs.line_addresses(array_kib << 10, 1024, machine.page_size, np.random.default_rng(array_kib))
    misses = cs.lru_misses(phys, cache)
    expected = (cache.latency * (len(phys) - misses) + 100.0 * misses) / len(phys)
    closed = cs.traversal_cycles(machine, array_kib << 10, 1024, rng=np.random.default_rng(array_kib))
    assert closed == pytest.approx(expected)


def test_sweep_grid_is_the_papers():
    sizes = cs.sweep_sizes(max_size=6 << 20)
    assert sizes[:3].tolist() == [1024, 2048, 4096]
    assert (2 << 20) in sizes and (3 << 20) in sizes and sizes[-1] == 6 << 20
