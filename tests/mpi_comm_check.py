"""Run under mpiexec by test_mpi.py (2 and 4 ranks): the comm kernels and
layers on COMM_WORLD, and bad input failing on every rank at once. Every
rank checks; verdicts are combined so a failure fails the job, not hangs it."""
import sys

import numpy as np
from mpi4py import MPI

from hpcbench._collective import collectively
from hpcbench.comm import (CommError, allreduce, barrier, bcast, contention, exchange, hop_node, measure_layers,
                           overlap, pingpong)
from hpcbench.topology import Topology

comm = MPI.COMM_WORLD
size, rank = comm.Get_size(), comm.Get_rank()
problems = []


def check(condition, what):
    if not condition:
        problems.append(f"rank {rank}: {what}")


def expect_error(kind, call, what):
    try:
        call()
    except kind:
        return
    except Exception as e:  # the wrong kind of error
        problems.append(f"rank {rank}: {what}: {type(e).__name__}: {e}")
        return
    problems.append(f"rank {rank}: {what}: no error")


fast = dict(cap_s=0.02)
try:
    echo = pingpong(comm, [0, 8, 1024, 65536], **fast)
    check(echo.sizes.tolist() == [0, 8, 1024, 65536], "echo sizes")
    check(np.all(echo.median > 0) and echo.median[-1] > echo.median[0], f"echo medians {echo.median}")
    everyone = comm.allgather(echo.median.tolist())
    check(all(m == everyone[0] for m in everyone), "every rank gets the same echo result")
    ex = exchange(comm, [8, 4096], peer=size - 1, **fast)
    check(np.all(ex.median > 0), "exchange medians")
    bc = bcast(comm, [8, 4096], root=size - 1, **fast)
    check(len(bc.per_rank) == 2 and bc.per_rank[0].shape[0] == size, "broadcast keeps every rank's samples")
    check(np.all(bc.median >= np.array([np.median(r.min(axis=0)) for r in bc.per_rank])), "max over ranks")
    ar = allreduce(comm, [0, 1, 1000], **fast)
    check(ar.sizes.tolist() == [0, 8, 8000], "global sum sizes are bytes")
    bar = barrier(comm, iterations=50, warmup=5)
    check(0 < bar.minimum <= bar.typical, "barrier minimum <= median")
    grid = overlap(comm, [1000], [1024], **fast)
    check(set(grid.times) == {"blocking", "nonblocking", "comm_only", "compute_only"}, "overlap modes")
    topo = Topology.load()
    placement, latencies, layers = measure_layers(comm, topo, 1024, [0, 1024, 65536], cap_s=0.02)
    check(len(latencies) == size * (size - 1) // 2, "latency of every pair")
    check(sorted(p for lv in layers for p in lv.pairs) == sorted(latencies), "layers cover every pair once")
    check(all(lv.scalability and lv.scalability[0]["slowdown"] == 1.0 for lv in layers), "scalability starts at 1")
    if size >= 4:
        c = contention(comm, [8, 1024], 65536, iterations=50)
        check(np.all(c.echo.median > 0) and c.load_bandwidth > 0, f"contention {c.echo.median} {c.load_bandwidth}")
        far = pingpong(comm, [8], peer=hop_node(0, 2, size), **fast)
        check(far.median[0] > 0, "echo two hops away")
    # Bad input: one clear error on every rank, nobody left waiting.
    expect_error(ValueError, lambda: pingpong(comm, [8], peer=size), "peer out of range")
    expect_error(ValueError, lambda: pingpong(comm, [8], peer=0, test_rank=0), "peer == test rank")
    expect_error(ValueError, lambda: pingpong("COMM_WORLD", [8]), "not a communicator")
    expect_error(ValueError, lambda: bcast(comm, [8], root=-1), "root out of range")
    expect_error(ValueError, lambda: pingpong(comm, [-8]), "negative size")
    if size < 4:
        expect_error(ValueError, lambda: contention(comm, [8], 64), "contention with too few ranks")

    def fails_on_rank_one():
        if rank == 1:
            raise ValueError("payload check failed")
        return 1
    expect_error(CommError, lambda: collectively(comm, fails_on_rank_one), "a failure on one rank reaches all")
except Exception as e:  # report, do not hang the other ranks
    problems.append(f"rank {rank}: {type(e).__name__}: {e}")
everything = comm.allgather(problems)
if rank == 0:
    flat = [p for ps in everything for p in ps]
    print("OK" if not flat else "\n".join(flat))
sys.exit(1 if any(everything) else 0)
