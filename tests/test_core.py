"""The C kernels through hpcbench._core. tools/sanitize.sh runs this file
against an ASan + UBSan build of the extension."""
import os

import numpy as np
import pytest

from hpcbench import _core


def test_build_is_the_expected_one():
    info = _core.build_info()
    assert info["hwloc_api_compiled"].split(".")[0] == info["hwloc_api_runtime"].split(".")[0]
    if os.environ.get("HPCB_EXPECT_SANITIZED"):
        assert info["sanitized"] is True


def test_timer_calibration_is_consistent():
    t = _core.timer_calibrate(30)
    assert t["ticks_per_ns"] > 0
    assert t["overhead_ticks"] >= 0 and t["resolution_ticks"] > 0
    assert 0 < t["overhead_ns"] < 100_000
    # Two calibrations agree on the tick rate within 1%.
    assert _core.timer_calibrate(30)["ticks_per_ns"] == pytest.approx(t["ticks_per_ns"], rel=0.01)


@pytest.mark.parametrize("order", [0, 1, 2])
def test_traverse_returns_positive_times_and_the_accesses(order):
    ticks, ns, accesses = _core.traverse(64 << 10, 1024, order=order, min_accesses=5000, warmup=1, samples=4)
    assert ticks.shape == ns.shape == (4,)
    assert np.all(ticks > 0) and np.all(ns > 0)
    assert accesses == 5056  # whole traversals of 64 slots: ceil(5000/64)*64


def test_windowed_order_with_windows_of_every_shape():
    # Windows that divide the array, one that does not, and one larger than it:
    # the kernel proves each chain is one cycle through every slot, or fails.
    for window in (4096, 3072, 1 << 20):
        ticks, _, accesses = _core.traverse(256 << 10, 1024, order=2, window_bytes=window,
                                            min_accesses=256, samples=2)
        assert accesses == 256 and np.all(ticks > 0)


def test_traverse_with_one_slot():
    ticks, ns, accesses = _core.traverse(1024, 1024, min_accesses=100, samples=2)
    assert accesses == 100 and np.all(ticks > 0)


@pytest.mark.parametrize("kwargs,message", [
    (dict(array_bytes=4096, stride_bytes=3), "stride must be a positive multiple of sizeof"),
    (dict(array_bytes=4096, stride_bytes=0), "stride must be a positive multiple"),
    (dict(array_bytes=0, stride_bytes=1024), "array size must be positive"),
    (dict(array_bytes=1500, stride_bytes=1024), "multiple of the stride"),
    (dict(array_bytes=4096, stride_bytes=1024, order=5), "order must be"),
    (dict(array_bytes=4096, stride_bytes=1024, samples=0), "samples must be positive"),
    (dict(array_bytes=4096, stride_bytes=1024, min_accesses=0), "min_accesses"),
    (dict(array_bytes=4096, stride_bytes=1024, page_mode=9), "page_mode"),
    (dict(array_bytes=16 << 30, stride_bytes=1024), "at most"),
    (dict(array_bytes=4096, stride_bytes=1024, order=2, window_bytes=1000), "window must be"),
    (dict(array_bytes=4096, stride_bytes=1024, order=2, window_bytes=0), "window must be"),
])
def test_traverse_refuses_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        _core.traverse(**kwargs)


def test_huge_and_system_pages_run():
    for mode in (1, 2):
        try:
            ticks, _, _ = _core.traverse(4 << 20, 1024, order=1, page_mode=mode, min_accesses=4096, samples=1)
        except OSError:
            pytest.skip("madvise(MADV_HUGEPAGE) is not available here")
        assert ticks[0] > 0


def test_team_runs_one_row_per_pu():
    pus = _core.thread_binding()
    ticks, ns, _ = _core.traverse_team(pus, 256 << 10, 1024, order=1, min_accesses=4096, samples=3)
    assert ticks.shape == (len(pus), 3) and np.all(ticks > 0)


def test_team_refuses_a_pu_that_does_not_exist():
    with pytest.raises(ValueError, match="could not bind"):
        _core.traverse_team([10**6], 4096, 1024)
    with pytest.raises(ValueError, match="1 to 65536"):
        _core.traverse_team([], 4096, 1024)


def test_team_refuses_a_pu_twice():
    with pytest.raises(ValueError, match="distinct"):
        _core.traverse_team([0, 0], 4096, 1024)
    with pytest.raises(ValueError, match="distinct"):
        _core.copy_team([0, 0], 4096, 2)


def test_copy_team_times_every_repetition_of_every_member():
    pus = _core.thread_binding()
    ns, ticks = _core.copy_team(pus, 1 << 20, 4, warmup=1)
    assert ns.shape == ticks.shape == (len(pus), 4)
    assert np.all(ns > 0) and np.all(ticks > 0)
    # The TSC and the clock tell the same time (within scheduling noise).
    ratio = ticks.sum() / ns.sum()
    assert 0.1 < ratio < 10


@pytest.mark.parametrize("kwargs, message", [
    (dict(pus=[0], array_bytes=100, repetitions=2), "multiple of 64"),
    (dict(pus=[0], array_bytes=0, repetitions=2), "multiple of 64"),
    (dict(pus=[0], array_bytes=4096, repetitions=0), "repetitions"),
    (dict(pus=[0], array_bytes=4096, repetitions=2, page_mode=7), "page_mode"),
    (dict(pus=[10**6], array_bytes=4096, repetitions=2), "could not bind"),
    (dict(pus=[0, 10**6], array_bytes=4096, repetitions=2), "could not bind"),
])
def test_copy_team_refuses_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        _core.copy_team(**kwargs)


def test_copy_team_reports_memory_exhaustion():
    with pytest.raises(MemoryError):
        _core.copy_team([0], 1 << 50, 1)


def test_binding_round_trip():
    before = _core.thread_binding()
    _core.bind_thread([before[0]])
    assert _core.thread_binding() == [before[0]]
    _core.bind_thread(before)
    assert _core.thread_binding() == before
    with pytest.raises(ValueError):
        _core.bind_thread([10**6])


def test_topology_of_this_machine():
    d = _core.topology_describe(0)
    pus = [o for o in d["objects"] if o["type"] == "PU"]
    assert d["is_this_system"] and len(pus) >= 1
    assert all(o["cpuset"] == [o["os_index"]] for o in pus)


def test_topology_from_synthetic_and_bad_descriptions():
    d = _core.topology_describe(2, "pack:2 l2:2(size=1MiB) core:2 pu:1")
    l2 = [o for o in d["objects"] if o.get("cache_level") == 2]
    assert len(l2) == 4 and all(o["cache_size"] == 1 << 20 and len(o["cpuset"]) == 2 for o in l2)
    with pytest.raises(ValueError, match="could not load"):
        _core.topology_describe(2, "this is not hwloc")
    with pytest.raises(ValueError, match="could not load"):
        _core.topology_describe(1, "/nonexistent/topology.xml")


def test_barrier_kernel_through_mpi4py():
    from mpi4py import MPI
    ns = _core.barrier_times(MPI.COMM_SELF, 2, 10)
    assert ns.shape == (10,) and np.all(ns >= 0)
    with pytest.raises(ValueError, match="COMM_NULL"):
        _core.barrier_times(MPI.COMM_NULL)
    with pytest.raises(ValueError, match="samples > 0"):
        _core.barrier_times(MPI.COMM_SELF, 1, 0)


def test_mpi_kernels_on_comm_self():
    """The collective kernels on a one-rank communicator, and the pair kernels
    with this rank sitting out: their code paths run (under the sanitizers too)."""
    from mpi4py import MPI
    self_comm = MPI.COMM_SELF
    assert np.all(_core.bcast_times(self_comm, 0, 4096, 2, 5) > 0)
    assert np.all(_core.allreduce_times(self_comm, 1000, 2, 5) > 0)
    assert _core.allreduce_times(self_comm, 0, 0, 3).shape == (3,)
    # Partner -1: this rank takes no part, its samples stay NaN.
    assert np.all(np.isnan(_core.echo(self_comm, -1, True, 64, 1, 4)))
    assert np.all(np.isnan(_core.exchange(self_comm, -1, True, 64, 1, 4)))
    assert np.all(np.isnan(_core.overlap_times(self_comm, -1, 64, 100, 0, 1, 4)))
    # Compute-only overlap needs no partner message but a partner rank; DAXPY alone:
    ticks = _core.daxpy_times(1000, 2, 10)
    assert ticks.shape == (10,) and np.all(ticks > 0)


@pytest.mark.parametrize("call, message", [
    (lambda c: _core.echo(c, 0, True, 8, 1, 2), "out of range"),          # partner is this rank
    (lambda c: _core.exchange(c, 5, True, 8, 1, 2), "out of range"),
    (lambda c: _core.bcast_times(c, 3, 8, 1, 2), "out of range"),
    (lambda c: _core.echo(c, -1, True, -8, 1, 2), "message size"),
    (lambda c: _core.echo(c, -1, True, 8, 1, 0), "iterations"),
    (lambda c: _core.overlap_times(c, -1, 8, 10, 9, 1, 2), "mode"),
    (lambda c: _core.daxpy_times(-1, 1, 2), "vector length"),
    (lambda c: _core.echo_contention(c, 7, 0, 0, 8, 8, 1, 2), "out of range"),
])
def test_mpi_kernels_refuse_bad_arguments(call, message):
    from mpi4py import MPI
    with pytest.raises(ValueError, match=message):
        call(MPI.COMM_SELF)


def test_mpi_kernels_refuse_what_is_not_a_communicator():
    with pytest.raises(TypeError):
        _core.echo("COMM_WORLD", -1, True, 8, 1, 2)


def test_multibsp_kernels():
    pus = _core.thread_binding()
    if len(pus) < 2:
        pytest.skip("needs two PUs")
    ticks, rate = _core.hcomm(pus[:2], 8, 20, blocks=2, warmup=1, daxpy_length=256)
    assert ticks.shape == (9, 2) and np.all(ticks > 0) and np.all(rate > 0)
    x = np.full(1000, 0.5)
    total, inside, result = _core.inner_product(pus[:2], [0, 0], [-1], [0], [2], [0, 500], [500, 1000], x, 2)
    assert result == 250.0 and total.shape == inside.shape == (2,)
