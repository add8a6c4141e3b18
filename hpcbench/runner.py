"""Run benchmarks under MPI: node-local ones once per node, results on rank 0.

Ranks are grouped into nodes with MPI_Comm_split_type(SHARED); the lowest
rank of each node runs node-local benchmarks while the node's other ranks
wait without spinning (a busy MPI wait would steal a core from the timed
loop). Rank 0 writes the results file after every benchmark, so a failure
later in the run loses nothing already measured.
"""
from __future__ import annotations

import datetime
import socket
import sys
import time
import traceback

from . import context as context_mod
from .results import Results, check_writable
from .suite import REGISTRY, Skipped


def quiet_wait(comm):
    """Barrier that sleeps between polls instead of spinning."""
    request = comm.Ibarrier()
    delay = 0.001
    while not request.Test():
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def _progress_printer(enabled):
    if not enabled:
        return None
    start = time.monotonic()

    def progress(message):
        print(f"[hpcbench {time.monotonic() - start:6.1f}s] {message}", file=sys.stderr, flush=True)
    return progress


def run_benchmark(bench, options, topology, progress, earlier=None, comm=None) -> dict:
    """One benchmark on this rank; failures become a 'failed' record.
    `earlier`: this node's finished records of this run, by name (the
    shared-cache benchmark reads the cache benchmark's curve from it)."""
    record = {"name": bench.name, "node": socket.gethostname(),
              "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    t0 = time.monotonic()
    try:
        args = (options.get(bench.name, {}), topology, progress, earlier or {})
        record.update(bench.run(*args, comm) if bench.scope == "world" else bench.run(*args))
        record["status"] = "ok"
    except Skipped as e:
        record["status"] = "skipped"
        record["reason"] = str(e)
    except Exception as e:  # one benchmark's failure must not lose the others
        record["status"] = "failed"
        record["error"] = f"{type(e).__name__}: {e}"
        record["traceback"] = traceback.format_exc()
    record["elapsed_s"] = time.monotonic() - t0
    return record


def run_suite(names, options, output, comm, topology, quiet=False, on_record=None) -> Results:
    """Run `names` on every node of `comm`; rank 0 returns the Results."""
    rank = comm.Get_rank()
    from mpi4py import MPI

    node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=rank)
    is_leader = node.Get_rank() == 0
    hosts = comm.gather(socket.gethostname(), root=0)

    # Rank 0 checks the output path before anything is measured.
    problem = None
    if rank == 0:
        try:
            check_writable(output)
        except ValueError as e:
            problem = str(e)
    problem = comm.bcast(problem, root=0)
    if problem:
        raise ValueError(problem)

    results = None
    if rank == 0:
        results = Results(context_mod.collect(topology, comm, sorted(set(hosts))))
        results.save(output)
    progress = _progress_printer(rank == 0 and not quiet)
    earlier = {}   # this node's finished records, for benchmarks that build on others

    for name in names:
        bench = REGISTRY[name]
        if progress:
            progress(f"{name}: running on {comm.Get_size()} rank(s)")
        record = None
        if bench.scope == "world":
            # Every rank measures; rank 0's record speaks for the run.
            mine = run_benchmark(bench, options, topology, progress if rank == 0 else None, earlier, comm)
            record = mine if rank == 0 else None
        elif bench.scope == "node":
            if is_leader:
                record = run_benchmark(bench, options, topology, progress if rank == 0 else None, earlier)
                if record["status"] == "ok":
                    earlier[name] = record
            quiet_wait(comm)
        records = comm.gather(record, root=0)
        if rank == 0:
            for rec in records:
                if rec is not None:
                    results.benchmarks.append(rec)
                    if on_record:
                        on_record(rec)
            results.save(output)
    node.Free()
    return results
