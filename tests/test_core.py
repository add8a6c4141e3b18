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


TRAVERSE_RULES = [
    (dict(array_bytes=4096, stride_bytes=3), "stride_bytes",
     "must be a positive multiple of sizeof(int) (4 bytes), got 3"),
    (dict(array_bytes=4096, stride_bytes=0), "stride_bytes", "got 0"),
    (dict(array_bytes=0, stride_bytes=1024), "array_bytes", "must be a positive multiple of stride_bytes"),
    (dict(array_bytes=1500, stride_bytes=1024), "array_bytes", "multiple of stride_bytes (1024 bytes), got 1500"),
    (dict(array_bytes=4096, stride_bytes=1024, order=5), "order", "ORDER_WINDOWED (2), got 5"),
    (dict(array_bytes=4096, stride_bytes=1024, samples=0), "samples", "between 1 and"),
    (dict(array_bytes=4096, stride_bytes=1024, min_accesses=0), "min_accesses", "between 1 and"),
    (dict(array_bytes=4096, stride_bytes=1024, page_mode=9), "page_mode", "PAGES_SYSTEM (2), got 9"),
    (dict(array_bytes=16 << 30, stride_bytes=1024), "array_bytes", "must be at most"),
    (dict(array_bytes=4096, stride_bytes=1024, order=2, window_bytes=1000), "window_bytes", "got 1000"),
    (dict(array_bytes=4096, stride_bytes=1024, order=2, window_bytes=0), "window_bytes", "got 0"),
    (dict(array_bytes=4096, stride_bytes=-4), "stride_bytes", "must not be negative"),   # no size_t holds it
]


@pytest.mark.parametrize("kwargs,parameter,rule", TRAVERSE_RULES)
def test_traverse_refuses_bad_parameters(kwargs, parameter, rule):
    # The kernel, the team kernel and the check-only function give the same answer.
    for call in (_core.traverse, _core.traverse_check, lambda **kw: _core.traverse_team([0], **kw)):
        with pytest.raises(_core.ParameterError) as err:
            call(**kwargs)
        assert err.value.parameter == parameter and rule in err.value.rule
        assert str(err.value) == f"{err.value.parameter} {err.value.rule}"
        assert isinstance(err.value, ValueError)


def test_check_functions_accept_what_the_kernels_run():
    assert _core.traverse_check(64 << 10, 1024, order=_core.ORDER_WINDOWED, min_accesses=5000, samples=4) is None
    assert _core.copy_check(1 << 20, 4, warmup=1, page_mode=_core.PAGES_HUGE) is None
    assert _core.hcomm_check(8, 20, blocks=2, warmup=1, daxpy_length=256) is None
    assert _core.p2p_check(0, 0, 1) is None and _core.p2p_check(bytes=8, warmup=1, iterations=2, inner=3) is None
    assert _core.team_check(_core.thread_binding()) is None


@pytest.mark.parametrize("call, parameter, rule", [
    (lambda: _core.copy_check(100, 2), "array_bytes", "multiple of 64 bytes"),
    (lambda: _core.copy_check(4096, 0), "repetitions", "between 1 and 1000000, got 0"),
    (lambda: _core.copy_check(4096, 2, warmup=1001), "warmup", "at most 1000"),
    (lambda: _core.copy_check(4096, 2, page_mode=7), "page_mode", "got 7"),
    (lambda: _core.hcomm_check(0, 10), "hmax", "between 1 and"),
    (lambda: _core.hcomm_check(4, 10, blocks=0), "blocks", "got 0"),
    (lambda: _core.hcomm_check(4, 10, daxpy_length=0), "daxpy_length", "got 0"),
    (lambda: _core.hcomm_check(4, -1), "iterations", "must not be negative"),
    (lambda: _core.p2p_check(1 << 31, 0, 1), "bytes", "at most 2147483647 bytes"),
    (lambda: _core.p2p_check(8, 0, 0), "iterations", "got 0"),
    (lambda: _core.p2p_check(8, 0, 1, inner=0), "inner", "got 0"),
    (lambda: _core.team_check([]), "pus", "between 1 and 65536 PUs, got 0"),
    (lambda: _core.team_check([10**6]), "pus", "PU 1000000 is not one"),
    (lambda: _core.team_check([0, 0]), "pus", "distinct: PU 0 appears twice"),
    (lambda: _core.team_check([-1]), "pus", "got -1"),
    (lambda: _core.timer_calibrate(0), "calibration_ms", "between 1 and 10000 ms, got 0"),
    (lambda: _core.topology_describe(7), "kind", "TOPO_SYNTHETIC (2), got 7"),
    (lambda: _core.topology_describe(_core.TOPO_SYNTHETIC, ""), "source", "non-empty"),
    (lambda: _core.bind_thread([]), "pus", "at least one PU"),
])
def test_check_functions_name_the_broken_parameter(call, parameter, rule):
    with pytest.raises(_core.ParameterError) as err:
        call()
    assert err.value.parameter == parameter and rule in err.value.rule, str(err.value)


def test_constants_come_from_the_c_enums():
    # The Python side passed these numbers before the names existed; both work.
    assert (_core.ORDER_SEQUENTIAL, _core.ORDER_RANDOM, _core.ORDER_WINDOWED) == (0, 1, 2)
    assert (_core.PAGES_NORMAL, _core.PAGES_HUGE, _core.PAGES_SYSTEM) == (0, 1, 2)
    assert (_core.OVERLAP_BLOCKING, _core.OVERLAP_NONBLOCKING, _core.OVERLAP_COMM_ONLY,
            _core.OVERLAP_COMPUTE_ONLY) == (0, 1, 2, 3)
    assert (_core.ROLE_IDLE, _core.ROLE_ECHO_INITIATOR, _core.ROLE_ECHO_RESPONDER, _core.ROLE_LOAD_SENDER,
            _core.ROLE_LOAD_RECEIVER) == (0, 1, 2, 3, 4)
    assert (_core.TOPO_THIS_MACHINE, _core.TOPO_XML_FILE, _core.TOPO_SYNTHETIC) == (0, 1, 2)
    assert issubclass(_core.ParameterError, ValueError)


def test_bad_types_raise_type_error_naming_the_function():
    with pytest.raises(TypeError):
        _core.traverse("big", 1024)
    with pytest.raises(TypeError, match="pus"):
        _core.traverse_team(5, 4096, 1024)
    # The parse formats end with the function's name, which argument errors quote.
    for name in ("traverse", "traverse_team", "copy_team", "daxpy_times", "echo", "exchange", "bcast_times",
                 "allreduce_times", "overlap_times", "echo_contention", "shift_times", "hcomm", "inner_product",
                 "sumsq_rate", "traverse_check", "copy_check", "hcomm_check", "p2p_check", "team_check",
                 "topology_describe", "bind_thread", "barrier_times"):
        with pytest.raises(TypeError, match=rf"^{name}\(\)"):
            getattr(_core, name)()


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
    with pytest.raises(_core.ParameterError, match="PU 1000000 is not one") as err:
        _core.traverse_team([10**6], 4096, 1024)
    assert err.value.parameter == "pus"
    with pytest.raises(_core.ParameterError, match="between 1 and 65536"):
        _core.traverse_team([], 4096, 1024)


def test_team_refuses_a_pu_twice():
    with pytest.raises(_core.ParameterError, match="distinct"):
        _core.traverse_team([0, 0], 4096, 1024)
    with pytest.raises(_core.ParameterError, match="distinct"):
        _core.copy_team([0, 0], 4096, 2)


def test_copy_team_times_every_repetition_of_every_member():
    pus = _core.thread_binding()
    ns, ticks, start, end = _core.copy_team(pus, 1 << 20, 4, warmup=1)
    assert ns.shape == ticks.shape == start.shape == end.shape == (len(pus), 4)
    assert np.all(ns > 0) and np.all(ticks > 0)
    # The TSC and the clock tell the same time (within scheduling noise).
    ratio = ticks.sum() / ns.sum()
    assert 0.1 < ratio < 10
    # Starts and ends are readings of one clock after one origin: each copy
    # ends after it starts, by its duration, and the next starts after it.
    assert np.all(start >= 0) and np.array_equal(end - start, ns)
    assert np.all(start[:, 1:] >= end[:, :-1])
    # Members start each repetition together (after one phase), so every
    # member's repetition r starts after every member's repetition r-1 ended.
    assert np.all(start[:, 1:].min(axis=0) >= end[:, :-1].max(axis=0))


@pytest.mark.parametrize("kwargs, parameter, rule", [
    (dict(pus=[0], array_bytes=100, repetitions=2), "array_bytes", "multiple of 64"),
    (dict(pus=[0], array_bytes=0, repetitions=2), "array_bytes", "multiple of 64"),
    (dict(pus=[0], array_bytes=4096, repetitions=0), "repetitions", "got 0"),
    (dict(pus=[0], array_bytes=4096, repetitions=2, page_mode=7), "page_mode", "got 7"),
    (dict(pus=[10**6], array_bytes=4096, repetitions=2), "pus", "PU 1000000 is not one"),
    (dict(pus=[0, 10**6], array_bytes=4096, repetitions=2), "pus", "PU 1000000 is not one"),
    (dict(pus=[0], array_bytes=4096, repetitions=-2), "repetitions", "must not be negative"),
])
def test_copy_team_refuses_bad_parameters(kwargs, parameter, rule):
    with pytest.raises(_core.ParameterError) as err:
        _core.copy_team(**kwargs)
    assert err.value.parameter == parameter and rule in err.value.rule


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
    with pytest.raises(_core.ParameterError, match="COMM_NULL") as err:
        _core.barrier_times(MPI.COMM_NULL)
    assert err.value.parameter == "comm"
    with pytest.raises(_core.ParameterError, match="samples must be between 1 and"):
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


@pytest.mark.parametrize("call, parameter, rule", [
    (lambda c: _core.echo(c, 0, True, 8, 1, 2), "partner", "other than this rank (0)"),    # partner is this rank
    (lambda c: _core.exchange(c, 5, True, 8, 1, 2), "partner", "rank of comm (0..0)"),
    (lambda c: _core.bcast_times(c, 3, 8, 1, 2), "root", "got 3"),
    (lambda c: _core.allreduce_times(c, 1 << 28, 1, 2), "count", "at most 268435455 doubles"),
    (lambda c: _core.echo(c, -1, True, -8, 1, 2), "bytes", "must not be negative"),
    (lambda c: _core.echo(c, -1, True, 8, 1, 0), "iterations", "got 0"),
    (lambda c: _core.overlap_times(c, -1, 8, 10, 9, 1, 2), "mode", "OVERLAP_INTERLEAVED (4), got 9"),
    (lambda c: _core.overlap_times(c, -1, 8, 1 << 33, 0, 1, 2), "n", "doubles"),
    (lambda c: _core.daxpy_times(-1, 1, 2), "n", "must not be negative"),
    (lambda c: _core.daxpy_times(1 << 33, 1, 2), "n", "at most 4294967296 doubles"),
    (lambda c: _core.echo_contention(c, 7, 0, 0, 8, 8, 1, 2), "role", "got 7"),
    (lambda c: _core.echo_contention(c, 1, 0, 0, 8, 8, 1, 2), "partner", "other than this rank"),
    (lambda c: _core.shift_times(c, 0, 4, 8, 1, 2), "source", "got 4"),
])
def test_mpi_kernels_refuse_bad_arguments(call, parameter, rule):
    from mpi4py import MPI
    with pytest.raises(_core.ParameterError) as err:
        call(MPI.COMM_SELF)
    assert err.value.parameter == parameter and rule in err.value.rule, str(err.value)


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
    total, inside, leaf, reduce, result = _core.inner_product(pus[:2], [0, 0], [-1], [0], [2], [0, 500], [500, 1000],
                                                              x, 2)
    assert result == 250.0 and total.shape == inside.shape == reduce.shape == (2,) and leaf.shape == (2, 2)
    rate = _core.sumsq_rate(pus[:2], 1001, 2)     # not a multiple of the loop's 4 sums: the tail runs too
    assert rate.shape == (2, 2) and np.all(rate > 0)
    # Two PUs under one leaf component each, under a root: components 0, 1, root 2.
    total, inside, leaf, reduce, result = _core.inner_product(pus[:2], [0, 1], [2, 2, -1], [0, 1, 0], [1, 1, 2],
                                                              [0, 500], [500, 1000], x, 2)
    assert result == 250.0


@pytest.mark.parametrize("tree, parameter, rule", [
    # (leaf_parent, parent, master, nleaves, begin, end)
    (([0], [-1], [0], [1], [0], [10]), "end", "of thread 0 must be at most the length of x (5), got 10"),
    (([0], [-1], [0], [2], [0], [5]), "nleaves", "of component 0 must be the number of threads below it (1)"),
    (([1], [0, -1], [0, 0], [1, 1], [0], [5]), "parent", "of component 0 must be a later component"),
    (([0], [0], [0], [1], [0], [5]), "parent", "of the root"),
    (([3], [-1], [0], [1], [0], [5]), "leaf_parent", "got 3"),
    (([0], [-1], [1], [1], [0], [5]), "master", "must be a thread (0..0), got 1"),
    (([0, 0], [-1], [0], [2], [0, 0], [5, 5]), "leaf_parent", "must have 1 entries"),
])
def test_inner_product_refuses_a_broken_tree(tree, parameter, rule):
    # A wrong nleaves or a cycle of parents would leave threads waiting for ever.
    with pytest.raises(_core.ParameterError) as err:
        _core.inner_product([0], *tree, np.zeros(5), 1)
    assert err.value.parameter == parameter and rule in err.value.rule, str(err.value)
