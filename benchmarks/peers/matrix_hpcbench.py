"""hpcbench's matrix kernels at one dimension, for bench_matrix.py: prints
"kernel median_seconds" per kernel on rank 0 (the median over applications
of the slowest rank's time, the statistic matrix_ref.c prints).
Usage: mpiexec -n 4 python matrix_hpcbench.py N"""
import sys

from mpi4py import MPI

from hpcbench.comm import matrix

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
