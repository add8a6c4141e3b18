"""hpcbench's matrix kernels at one dimension as `run matrix` uses them
(hpcbench.comm.matrix: adaptive repetitions, MPI initialised at the CLI's
thread level), for bench_matrix.py: prints "kernel median_seconds samples"
per kernel on rank 0 (the median over applications of the slowest rank's
time, the statistic matrix_ref.c prints).
Usage: mpiexec -n 4 python matrix_hpcbench.py N"""
import os
import sys

import mpi4py

mpi4py.rc.thread_level = os.environ.get("HPCBENCH_MPI_THREAD_LEVEL", "single")
from mpi4py import MPI  # noqa: E402

from hpcbench.comm import matrix  # noqa: E402

comm = MPI.COMM_WORLD
n = int(sys.argv[1])
runs = [("update_guard", lambda: matrix.update_guard(comm, n)),
        ("shift_north", lambda: matrix.shift_matrix(comm, n, "north")),
        ("shift_east", lambda: matrix.shift_matrix(comm, n, "east")),
        ("transpose", lambda: matrix.transpose(comm, n)),
        ("row_broadcast", lambda: matrix.row_broadcast(comm, n)),
        ("col_broadcast", lambda: matrix.col_broadcast(comm, n))]
for name, measure in runs:
    times = measure()
    if comm.rank == 0:
        print(f"{name} {times.median:.6e} {times.samples.size}", flush=True)
