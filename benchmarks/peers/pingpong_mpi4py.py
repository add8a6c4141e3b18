"""The ping-pong that OMB-Py and mpi4py.bench time: a Python loop over
mpi4py's Send/Recv on NumPy buffers, one timer around the loop.
Usage: mpiexec -n 2 python pingpong_mpi4py.py SIZE ITERATIONS."""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
size, iterations = int(sys.argv[1]), int(sys.argv[2])
warmup = max(10, iterations // 10)
buf = np.full(max(size, 1), rank, dtype=np.uint8)[:size]
peer = 1 - rank
comm.Barrier()
start = 0.0
for i in range(warmup + iterations):
    if i == warmup:
        start = MPI.Wtime()
    if rank == 0:
        comm.Send(buf, dest=peer, tag=1)
        comm.Recv(buf, source=peer, tag=1)
    elif rank == 1:
        comm.Recv(buf, source=peer, tag=1)
        comm.Send(buf, dest=peer, tag=1)
elapsed = MPI.Wtime() - start
if rank == 0:
    print(f"{size} {elapsed / (2.0 * iterations):.9e}")
