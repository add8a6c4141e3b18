"""Run benchmarks under MPI: node-local ones once per node, results on rank 0.

The lowest rank of each node (hpcbench._nodes) runs node-local benchmarks
while the node's other ranks wait without spinning (a busy MPI wait would
steal a core from the timed loop). World benchmarks run on every rank and
rank 0's record speaks for the run. Rank 0 writes the results file after
every benchmark, so a failure later in the run loses nothing already
measured.
"""
from __future__ import annotations

import datetime
import socket
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from . import _machine, _registry
from ._errors import OutputError, RunStopped, Skipped
from ._estimate import progress_label, with_time_left
from ._nodes import node_membership, quiet_wait
from ._output import OutputFile
from ._protocol import AnyBenchmark, Context, Job
from ._record import Record
from ._results import Results
from ._timer import calibration
from .topology import Topology


def _progress_printer() -> Callable[[str], None]:
    start = time.monotonic()

    def progress(message: str) -> None:
        print(f"[hpcbench {time.monotonic() - start:6.1f}s] {message}", file=sys.stderr, flush=True)
    return progress


def run_benchmark(bench: AnyBenchmark, ctx: Context[Any]) -> Record:
    """One benchmark on this rank; a failure becomes a 'failed' record and a
    Skipped a 'skipped' one, so one benchmark cannot lose the others."""
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    t0 = time.monotonic()
    record: Record
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


def run_suite(names: list[str], options: dict[str, Any], output: str, comm: Any, topology: Topology,
              quiet: bool = False, on_record: Callable[[Record], None] | None = None,
              job: Job | None = None) -> Results | None:
    """Run the benchmarks `names` (with `options`: name -> checked options of
    that benchmark's options type) on every node of `comm` (an mpi4py
    intracommunicator), writing the results file `output` after each one
    (hpcbench._output: checked and locked first, old results kept as
    OUTPUT.bak, a failed save retried and reported); rank 0 returns the
    Results (with `unsaved` naming what is not on disk), the others None.
    ValueError (one line, on every rank) if `output` cannot be used."""
    rank = comm.Get_rank()
    membership = node_membership(comm)
    hosts = comm.gather(socket.gethostname(), root=0)
    binding = comm.gather(_machine.rank_binding(comm, socket.gethostname()), root=0)
    out = _open_output(comm, output)
    try:
        results = Results(_machine.collect(topology, comm, sorted(set(hosts or [])), binding)) if out else None
        say = _progress_printer() if rank == 0 and not quiet else None
        timer, shape = calibration(), job or Job(comm.Get_size(), 1)
        earlier: dict[str, Record] = {}      # this node's finished records, shared by every context of the run
        name = ""
        for k, name in enumerate(names, 1):
            bench = _registry.get(name)
            expected = bench.estimate(options[name], topology, shape) if say else 0.0
            if say:
                say(f"{progress_label(name, k, len(names), expected)}: running on {comm.Get_size()} rank(s)")
            ctx = Context(topology=topology, options=options[name], timer=timer, comm=comm, job=shape,
                          earlier=earlier, run_options=options)
            if say:
                ctx.progress = with_time_left(say, expected)     # "k of N" and, for a long step, the time left
            record = None
            if bench.scope == "world":
                mine = run_benchmark(bench, ctx)
                record = mine if rank == 0 else None
            elif membership.is_leader:
                record = run_benchmark(bench, ctx)
                if record.ok:
                    earlier[name] = record
            if bench.scope == "node":
                quiet_wait(comm)
            records = comm.gather(record, root=0)
            if out is not None and results is not None:
                _keep(results, [r for r in records or [] if r is not None], out, name, on_record)
        if out is not None and out.unsaved:
            print(_unsaved_line(out), file=sys.stderr, flush=True)
        return results
    except RunStopped as stop:
        if out is not None:
            stop.where = f"while {name} ran; {out.on_disk()}" + (f"; the rest is in {out.fallback}"
                                                                  if out.unsaved and out.fallback else "")
        raise
    finally:
        if out is not None:
            out.release()


def _unsaved_line(out: OutputFile) -> str:
    """The run's last word on results that never reached their file."""
    where = f"they are in {out.fallback}" if out.fallback else \
        "no fallback folder (working folder, $TMPDIR, $HOME) could take them: they are in the summary below"
    return (f"hpcbench: the results of {', '.join(out.unsaved)} could not be saved to {out.shown} ({out.error}); "
            f"{out.on_disk()}; {where}")


def _open_output(comm: Any, path: str) -> OutputFile | None:
    """Rank 0 checks and locks the results file before anything is measured;
    every rank learns the verdict, so a bad path is one error on all ranks."""
    out, problem = None, None
    if comm.Get_rank() == 0:
        try:
            out = OutputFile(path)
            out.acquire()
        except OutputError as e:
            out, problem = None, str(e)
    problem = comm.bcast(problem, root=0)
    if problem:
        raise ValueError(problem)
    return out


def _keep(results: Results, records: list[Record], out: OutputFile, name: str,
          on_record: Callable[[Record], None] | None) -> None:
    """Add a benchmark's records and write the file; a failed write is one
    warning line, and the run goes on (the next write tries again)."""
    for rec in records:
        results.benchmarks.append(rec)
        if on_record:
            on_record(rec)
    if out.save(results.text(), name):
        results.path, results.unsaved = out.path, []
    else:
        results.unsaved = list(out.unsaved)
        elsewhere = f"the results so far are in {out.fallback}" if out.fallback else \
            "no fallback folder could take them either (they are in the summary at the end)"
        print(f"hpcbench: could not save {out.shown} after {name}: {out.error}; {out.on_disk()}; {elsewhere}; "
              "the next save tries again", file=sys.stderr, flush=True)
