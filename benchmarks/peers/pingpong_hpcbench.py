"""hpcbench's echo kernel as `run comm` uses it (hpcbench.comm.pingpong:
adaptive repetitions, MPI initialised at the CLI's thread level), reported like
the peers. Usage: mpiexec -n 2 python pingpong_hpcbench.py SIZE [SIZE ...];
prints "SIZE median_one_way mean_one_way" per size (seconds)."""
import sys

import mpi4py

mpi4py.rc.thread_level = __import__("os").environ.get("HPCBENCH_MPI_THREAD_LEVEL", "single")
from mpi4py import MPI  # noqa: E402

from hpcbench.comm import pingpong  # noqa: E402

sizes = [int(s) for s in sys.argv[1:]]
result = pingpong(MPI.COMM_WORLD, sizes)
if MPI.COMM_WORLD.Get_rank() == 0:
    for size, samples in zip(result.sizes, result.samples):
        print(f"{size} {float(sorted(samples)[len(samples) // 2]):.9e} {float(sum(samples) / len(samples)):.9e}")
