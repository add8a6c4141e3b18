"""Run under mpiexec by test_micro_kernels.py (2 and 4 ranks): the
point-to-point and one-sided micro-benchmark kernels (csrc/kernels/micro_p2p.c
and micro_rma.c) on COMM_WORLD: which ranks time themselves, that every size
runs and verifies its payload, and bad parameters refused on every rank.
Every rank checks; verdicts are combined so a failure fails the job, not
hangs it."""
import os

import numpy as np
from mpi4py import MPI
from mpi_verdicts import Verdicts

from hpcbench import _core

comm = MPI.COMM_WORLD
size, rank = comm.Get_size(), comm.Get_rank()
verdicts = Verdicts(comm)
check, expect_error = verdicts.check, verdicts.expect_error

SIZES = [1, 1001, 4096, 65536, 4 << 20]
ITERATIONS = 3


def expect_parameter_error(what, **kwargs):
    expect_error(_core.ParameterError, lambda: _core.micro_times(comm, **kwargs), what)


def check_ticks(name, ticks, timed):
    """`timed`: whether this rank times itself in the test."""
    check(ticks.shape == (ITERATIONS,), f"{name}: shape {ticks.shape}")
    if timed:
        check(bool(np.all(np.isfinite(ticks)) and np.all(ticks > 0)), f"{name}: ticks {ticks}")
    else:
        check(bool(np.all(np.isnan(ticks))), f"{name}: a rank that takes no part wrote {ticks}")


def run(name, test, bytes_, timed, **kwargs):
    try:
        ticks = _core.micro_times(comm, test, bytes_, 1, ITERATIONS, **kwargs)
    except Exception as e:  # every rank reports, then the verdicts are combined
        check(False, f"{name} {bytes_} B: {type(e).__name__}: {e}")
        return
    check_ticks(f"{name} {bytes_} B", ticks, timed)


def point_to_point():
    half = size // 2
    for bytes_ in SIZES:
        # Small messages repeat within a sample, large ones not (keeps 4 ranks on 2 cores quick).
        inner = 4 if bytes_ <= 65536 else 1
        window = 8 if bytes_ <= 65536 else 2
        pair = rank < 2
        run("latency", _core.MICRO_LATENCY, bytes_, pair, inner=inner)
        run("bw", _core.MICRO_BW, bytes_, pair, inner=inner, window=window)
        run("bibw", _core.MICRO_BIBW, bytes_, pair, inner=inner, window=window)
        for pairs in sorted({1, half}):
            run(f"mbw_mr pairs={pairs}", _core.MICRO_MBW_MR, bytes_, rank < 2 * pairs, inner=inner,
                window=window, pairs=pairs)
            run(f"multi_lat pairs={pairs}", _core.MICRO_MULTI_LAT, bytes_, rank < 2 * pairs, inner=inner,
                pairs=pairs)


def one_sided():
    available = _core.rma_available(comm)
    check(isinstance(available, bool), f"rma_available: {available!r}")
    if "Open MPI" in MPI.Get_library_version():   # one-sided windows work with Open MPI here
        check(available, "rma_available: False with Open MPI")
    if not available:
        return
    tests = [("put_latency", _core.MICRO_PUT_LATENCY, 1), ("get_latency", _core.MICRO_GET_LATENCY, 1),
             ("acc_latency", _core.MICRO_ACC_LATENCY, 1), ("put_bw", _core.MICRO_PUT_BW, 4),
             ("get_bw", _core.MICRO_GET_BW, 4)]
    for sync, sync_name in ((_core.SYNC_FENCE, "fence"), (_core.SYNC_LOCK, "lock")):
        # Fence: origin and target time themselves; lock: the origin only.
        timed = rank == 0 or (rank == 1 and sync == _core.SYNC_FENCE)
        for name, test, window in tests:
            for bytes_ in SIZES:
                if test == _core.MICRO_ACC_LATENCY and bytes_ % 4:
                    continue
                inner = 4 if bytes_ <= 65536 else 1
                run(f"{name} {sync_name}", test, bytes_, timed, inner=inner, sync=sync, window=window)


def bad_parameters():
    expect_parameter_error("pairs above half the ranks", test=_core.MICRO_MBW_MR, bytes=8, warmup=0, iterations=1,
                           pairs=size // 2 + 1)
    expect_parameter_error("pairs 2 for latency", test=_core.MICRO_LATENCY, bytes=8, warmup=0, iterations=1, pairs=2)
    expect_parameter_error("window 0 for bw", test=_core.MICRO_BW, bytes=8, warmup=0, iterations=1, window=0)
    expect_parameter_error("window 2 for latency", test=_core.MICRO_LATENCY, bytes=8, warmup=0, iterations=1,
                           window=2)
    expect_parameter_error("accumulate of 6 bytes", test=_core.MICRO_ACC_LATENCY, bytes=6, warmup=0, iterations=1)
    expect_parameter_error("non-blocking latency", test=_core.MICRO_LATENCY, bytes=8, warmup=0, iterations=1,
                           mode=_core.MODE_PURE)
    expect_parameter_error("sync 5", test=_core.MICRO_PUT_LATENCY, bytes=8, warmup=0, iterations=1, sync=5)
    expect_parameter_error("inner 0", test=_core.MICRO_BIBW, bytes=8, warmup=0, iterations=1, inner=0)


try:
    if os.environ.get("HPCB_EXPECT_SANITIZED"):   # tools/sanitize.sh: the sanitized build, not another
        check(_core.build_info()["sanitized"] is True, "the extension is not the sanitized build")
    point_to_point()
    one_sided()
    bad_parameters()
except Exception as e:  # report, never leave the other ranks waiting
    verdicts.crashed(e)
verdicts.finish()
