"""Run under mpiexec by test_matrix_mpi.py (4 and 6 ranks) and by
tools/sanitize.sh: CoMet's matrix kernels on COMM_WORLD and on a
sub-communicator with its ranks reordered, every rank's local matrix after
1, 2 and 3 applications against the NumPy model (tests/matrix_oracle.py),
a wrong element failing on every rank, and bad input raising on every rank
without a hang. Every rank checks; verdicts are combined."""
import math
import os
import sys

import numpy as np
from mpi4py import MPI

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from matrix_oracle import local_block  # noqa: E402

from hpcbench.comm import CommError, Mesh, matrix  # noqa: E402
from hpcbench.comm.matrix._layout import broadcast_index  # noqa: E402

comm = MPI.COMM_WORLD
size, rank = comm.Get_size(), comm.Get_rank()
problems = []


def check(condition, what):
    if not condition:
        problems.append(f"rank {rank}: {what}")


def expect_error(kind, call, what, words=""):
    try:
        call()
    except kind as e:
        if words not in str(e):
            problems.append(f"rank {rank}: {what}: {e!r} does not say {words!r}")
        return
    except Exception as e:  # the wrong kind of error
        problems.append(f"rank {rank}: {what}: {type(e).__name__}: {e}")
        return
    problems.append(f"rank {rank}: {what}: no error")


def states_match(on, mesh, n):
    """Every kernel's local matrix on communicator `on` after 1..3 applications."""
    me = on.Get_rank()
    for kernel in matrix.KERNELS:
        index = broadcast_index(n, mesh, kernel) if kernel.endswith("broadcast") else 0
        for k in (1, 2, 3):
            got = matrix.local_matrix(on, kernel, n, k, mesh=mesh)
            want = local_block(kernel, n, mesh, me, k, index)
            check(got.shape == want.shape and np.array_equal(got, want), f"{kernel} x{k} on {mesh}: local matrix")


fast = dict(cap_s=0.02)
try:
    mesh = matrix.matrix_mesh(size)
    n = 4 * math.lcm(mesh.rows, mesh.cols)
    states_match(comm, mesh, n)
    other = Mesh(mesh.cols, mesh.rows)          # the other orientation of the same ranks
    states_match(comm, other, n)

    # The script functions: one result, the same on every rank, positive times.
    runs = [matrix.update_guard(comm, n, **fast), matrix.shift_matrix(comm, n, "north", **fast),
            matrix.shift_matrix(comm, n, "east", **fast), matrix.transpose(comm, n, **fast),
            matrix.row_broadcast(comm, n, **fast), matrix.col_broadcast(comm, n, 1, **fast)]
    for t in runs:
        check(t.samples.size >= 10 and t.median > 0 and t.per_rank.shape[0] == size, f"{t.kernel} times")
        check(np.all(t.samples >= t.per_rank.min(axis=0)), f"{t.kernel}: the slowest rank's time per application")
    medians = comm.allgather([t.median for t in runs])
    check(all(m == medians[0] for m in medians), "every rank gets the same result")
    check(runs[5].index == 1 and runs[4].index == broadcast_index(n, mesh, "row_broadcast"),
          "the broadcast rows and columns")

    # The benchmark's sweep: two passes pooled, dimensions ascending.
    sweep = matrix.measure_matrix(comm, [2 * n, n], ("transpose", "update_guard"), passes=2, **fast)
    check(list(sweep) == ["transpose", "update_guard"], "sweep kernels")
    for runs in sweep.values():
        check([r.n for r in runs] == [n, 2 * n], "sweep dimensions ascending")
        check(all(r.samples.size >= 2 * 10 and r.per_rank.shape == (size, r.samples.size) for r in runs),
              "two passes pooled")

    # Any communicator: four of the ranks, numbered backwards.
    sub = comm.Split(0 if rank < 4 else MPI.UNDEFINED, -rank)
    if sub != MPI.COMM_NULL:
        states_match(sub, Mesh(2, 2), 8)
        sub.Free()

    # A wrong element fails every rank, naming it: rank 0 fills its copy of
    # the broadcast column into local column 0, the others into column 1.
    w = n // mesh.cols
    col = (mesh.cols - 1) * w + (0 if rank == 0 else 1)
    expect_error(CommError, lambda: matrix.col_broadcast(comm, n, col, **fast), "a verification failure",
                 f"rank 0: col_broadcast at n = {n}: matrix_times: verification failed: ")

    # Bad input: one clear error on every rank, nobody left waiting.
    expect_error(ValueError, lambda: matrix.update_guard(comm, n + 1), "n not a multiple of the mesh",
                 "must be a multiple of both sides")
    expect_error(ValueError, lambda: matrix.transpose(comm, 1), "n below the mesh", "at least the mesh's longer side")
    expect_error(ValueError, lambda: matrix.shift_matrix(comm, n, "west"), "no such direction",
                 "direction must be 'north' or 'east'")
    expect_error(ValueError, lambda: matrix.row_broadcast(comm, n, n), "row out of range", "row must be a row")
    expect_error(ValueError, lambda: matrix.update_guard(comm, n, Mesh(1, size)), "a 1 x P mesh",
                 "must use every one of the")
    expect_error(ValueError, lambda: matrix.local_matrix(comm, "shift_up", n), "unknown kernel", "kernel must be one")
    pair = comm.Split(rank // 2, rank)
    expect_error(ValueError, lambda: matrix.update_guard(pair, 8), "two ranks", "2 rank(s) make no such mesh")
    pair.Free()
except Exception as e:  # report, do not hang the other ranks
    problems.append(f"rank {rank}: {type(e).__name__}: {e}")
everything = comm.allgather(problems)
if rank == 0:
    flat = [p for ps in everything for p in ps]
    print("\n".join(flat) if flat else "OK")
sys.exit(1 if any(everything) else 0)
