"""Run under mpiexec by test_mpi.py: the barrier kernel on COMM_WORLD and a
split communicator. Every rank checks; verdicts are combined so a failure on
one rank fails the job instead of hanging it."""
import sys

import numpy as np
from mpi4py import MPI

from hpcbench import _core

comm = MPI.COMM_WORLD
problems = []
try:
    ns = _core.barrier_times(comm, 3, 20)
    if ns.shape != (20,) or not np.all(ns >= 0):
        problems.append(f"rank {comm.rank}: bad samples {ns}")
    half = comm.Split(comm.rank % 2, comm.rank)
    ns = _core.barrier_times(half, 1, 5)
    if ns.shape != (5,):
        problems.append(f"rank {comm.rank}: bad split samples")
    half.Free()
except Exception as e:  # report, do not hang the other ranks
    problems.append(f"rank {comm.rank}: {type(e).__name__}: {e}")
everything = comm.allgather(problems)
if comm.rank == 0:
    flat = [p for ps in everything for p in ps]
    print("OK" if not flat else "\n".join(flat))
sys.exit(1 if any(everything) else 0)
