"""Run benchmarks under MPI: node-local ones once per node, results on rank 0.

The lowest rank of each node (hpcbench._nodes) runs node-local benchmarks
while the node's other ranks wait without spinning (a busy MPI wait would
steal a core from the timed loop). World benchmarks run on every rank and
rank 0's record speaks for the run. Rank 0 writes the results file after
every benchmark, so a failure later in the run loses nothing already
measured.
"""
from __future__ import annotations

import dataclasses
import datetime
import socket
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from . import _machine, _registry
from ._errors import Skipped
from ._nodes import node_membership, quiet_wait
from ._protocol import Benchmark, Context, Job
from ._record import Record
from ._results import Results, check_writable
from ._timer import calibration
from .topology import Topology


def _progress_printer():
    start = time.monotonic()

    def progress(message: str) -> None:
        print(f"[hpcbench {time.monotonic() - start:6.1f}s] {message}", file=sys.stderr, flush=True)
    return progress


def run_benchmark(bench: Benchmark, ctx: Context) -> Record:
    """One benchmark on this rank; a failure becomes a 'failed' record and a
    Skipped a 'skipped' one, so one benchmark cannot lose the others."""
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    t0 = time.monotonic()
    try:
        record = bench.run(ctx)
        record.status = "ok"
    except Skipped as e:
        record = Record(name=bench.name, status="skipped", reason=str(e))
    except Exception as e:  # one benchmark's failure must not lose the others
        record = Record(name=bench.name, status="failed", error=f"{type(e).__name__}: {e}",
                        traceback=traceback.format_exc())
    record.node = socket.gethostname()
    record.started = started
    record.elapsed_s = time.monotonic() - t0
    return record


def run_suite(names: list[str], options: dict, output: str, comm: Any, topology: Topology, quiet: bool = False,
              on_record: Callable[[Record], None] | None = None, job: Job | None = None) -> Results | None:
    """Run the benchmarks `names` (with `options`: name -> checked options of
    that benchmark's options type) on every node of `comm` (an mpi4py
    intracommunicator), writing the results file `output` after each one;
    rank 0 returns the Results, the others None."""
    rank = comm.Get_rank()
    membership = node_membership(comm)
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
        results = Results(_machine.collect(topology, comm, sorted(set(hosts))))
        results.save(output)
    say = _progress_printer() if rank == 0 and not quiet else None
    base = Context(topology=topology, options=None, timer=calibration(), comm=comm,
                   job=job or Job(comm.Get_size(), 1), earlier={}, run_options=options)

    for name in names:
        bench = _registry.get(name)
        if say:
            say(f"{name}: running on {comm.Get_size()} rank(s)")
        ctx = dataclasses.replace(base, options=options[name], **({"progress": say} if say else {}))
        record = None
        if bench.scope == "world":
            mine = run_benchmark(bench, ctx)
            record = mine if rank == 0 else None
        elif membership.is_leader:
            record = run_benchmark(bench, ctx)
            if record.ok:
                base.earlier[name] = record
        if bench.scope == "node":
            quiet_wait(comm)
        records = comm.gather(record, root=0)
        if results is not None:
            for rec in records:
                if rec is not None:
                    results.benchmarks.append(rec)
                    if on_record:
                        on_record(rec)
            results.save(output)
    return results
