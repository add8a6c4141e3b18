"""Run under mpiexec by test_micro_kernels.py (2, 3 and 4 ranks): every
collective of the micro-benchmark kernel in every mode (blocking, IMB-NBC's
pure, overlapped and CPU-only) at several sizes. The kernel verifies every
payload itself (a wrong byte or sum raises); this script checks the shapes,
the computation times of the overlap, and bad parameters on every rank at
once. Verdicts are combined so a failure fails the job, not hangs it."""
import numpy as np
from mpi4py import MPI
from mpi_verdicts import Verdicts

from hpcbench import _core

comm = MPI.COMM_WORLD
size, rank = comm.Get_size(), comm.Get_rank()
verdicts = Verdicts(comm)
check, expect_error = verdicts.check, verdicts.expect_error

COLLECTIVES = ["BARRIER", "BCAST", "ALLREDUCE", "REDUCE", "ALLGATHER", "ALLGATHERV", "ALLTOALL", "ALLTOALLV",
               "GATHER", "GATHERV", "SCATTER", "SCATTERV", "REDUCE_SCATTER"]
MODES = ["BLOCKING", "PURE", "OVERLAP", "CPU"]
# 4004 B: 1001 floats, not a multiple of 2, 3 or 4 ranks (reduce_scatter drops the remainder).
SIZES = [4, 4096, 65536, 1 << 20, 4004]
COMPUTE_TICKS = 3000
ITERATIONS = 3


def run(test, size_bytes, mode, inner=1):
    return _core.micro_times(comm, getattr(_core, f"MICRO_{test}"), size_bytes, 1, ITERATIONS, inner=inner,
                             mode=getattr(_core, f"MODE_{mode}"), compute_ticks=COMPUTE_TICKS)


def check_samples(ticks, what):
    check(isinstance(ticks, np.ndarray) and ticks.shape == (ITERATIONS,), f"{what}: shape {np.shape(ticks)}")
    check(bool(np.all(np.isfinite(ticks)) and np.all(ticks >= 0)), f"{what}: ticks {ticks}")


def check_one(test, size_bytes, mode, inner=1):
    what = f"{test} {size_bytes} B {mode} inner={inner}"
    result = run(test, size_bytes, mode, inner)
    if mode == "OVERLAP":
        check(isinstance(result, tuple) and len(result) == 2, f"{what}: (ticks, cpu_ticks)")
        ticks, cpu = result
        check_samples(cpu, what + " cpu")
        # Each operation computes until COMPUTE_TICKS have passed, timed around the computation.
        check(bool(np.all(cpu >= inner * COMPUTE_TICKS)), f"{what}: cpu ticks {cpu} < {inner} x {COMPUTE_TICKS}")
        check(bool(np.all(ticks >= cpu)), f"{what}: t_ovrl {ticks} shorter than its computation {cpu}")
    else:
        ticks = result
    check_samples(ticks, what)
    if mode == "CPU":
        check(bool(np.all(ticks >= inner * COMPUTE_TICKS)), f"{what}: t_CPU {ticks}")


def check_bad_parameters():
    micro = _core.micro_times
    expect_error(_core.ParameterError, lambda: micro(comm, _core.MICRO_ALLREDUCE, 6, 0, 2),
                 "allreduce of 6 B (not whole floats)")
    expect_error(_core.ParameterError, lambda: micro(comm, _core.MICRO_REDUCE_SCATTER, 4002, 0, 2),
                 "reduce_scatter of 4002 B")
    expect_error(_core.ParameterError, lambda: micro(comm, _core.MICRO_LATENCY, 8, 0, 2, mode=_core.MODE_OVERLAP),
                 "mode OVERLAP on the latency test")
    expect_error(_core.ParameterError, lambda: micro(comm, _core.MICRO_BCAST, 8, 0, 2, mode=99), "mode 99")
    expect_error(_core.ParameterError, lambda: micro(comm, _core.MICRO_BCAST, 8, 0, 2, window=4),
                 "a window for a collective")
    expect_error(_core.ParameterError, lambda: micro(comm, _core.MICRO_BCAST, 8, 0, 2, inner=0), "inner 0")
    expect_error(_core.ParameterError, lambda: micro(comm, _core.MICRO_BCAST, 8, 0, 0), "0 iterations")
    expect_error(_core.ParameterError,
                 lambda: micro(comm, _core.MICRO_BCAST, 8, 0, 2, mode=_core.MODE_OVERLAP, compute_ticks=2 ** 41),
                 "compute_ticks beyond 2^40")
    expect_error(_core.ParameterError, lambda: micro(comm, _core.MICRO_ALLGATHER, 2 ** 30, 0, 2),
                 "allgather blocks beyond INT32_MAX in all")


try:
    for test in COLLECTIVES:
        for mode in MODES:
            for size_bytes in SIZES:
                check_one(test, size_bytes, mode)
    # Several operations per sample: the overlap computes once per operation.
    for test in ("ALLREDUCE", "ALLTOALLV", "BARRIER"):
        check_one(test, 4096, "OVERLAP", inner=3)
        check_one(test, 4096, "BLOCKING", inner=3)
    check_one("BCAST", 0, "PURE")
    check_one("REDUCE_SCATTER", 4 * (size - 1), "BLOCKING")   # fewer floats than ranks: every part empty
    check_bad_parameters()
except Exception as e:  # report, do not hang the other ranks
    verdicts.crashed(e)
verdicts.finish()
