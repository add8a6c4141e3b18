"""`python -m hpcbench run`: initialise MPI, check every option, run the
suite, print the summary, and write the degradation file beside the results."""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any

from .._errors import OutputError, RunStopped
from .._nodes import count_nodes
from .._protocol import Job
from ._agree import agree, same_command_line
from ._common import UsageError
from ._history import append_to_history, check_run_history
from ._options import checked_options, deprecation_notes, selected
from ._report import check_run_report, write_run_report

if TYPE_CHECKING:          # for the annotations only: imported by the functions that use them
    from .._results import Results
    from ..topology import Topology
    from ._common import Parser

THREAD_LEVELS = ("single", "funneled", "serialized", "multiple")


def thread_level() -> str:
    """MPI thread level for `run`: HPCBENCH_MPI_THREAD_LEVEL, default single.

    Only the main thread ever calls MPI; team threads (node benchmarks) run
    while the main thread waits for them, outside any MPI call. mpi4py's own
    default, MULTIPLE, and even FUNNELED make Open MPI 4.1 take its
    thread-safe paths: 0-byte ping-pong latency measured 20% above a plain C
    program initialised with MPI_Init (docs/comm.md). SINGLE measures what
    such programs see."""
    level = os.environ.get("HPCBENCH_MPI_THREAD_LEVEL", "single").strip().lower()
    if level not in THREAD_LEVELS:
        raise UsageError(f"hpcbench: HPCBENCH_MPI_THREAD_LEVEL must be one of {', '.join(THREAD_LEVELS)}, "
                         f"got {level!r}")
    return level


def start_mpi() -> tuple[Any, str | None]:
    """Initialise MPI (with HPCBENCH_MPI_THREAD_LEVEL, or single) before
    anything can fail, so that every rank can take part in agreeing on the
    command line, and bind every rank its launcher left unbound to one PU
    (hpcbench._launch.bind_ranks; HPCBENCH_NO_BIND=1 keeps the launcher's
    placement). Every command that starts MPI comes through here: `run`,
    `predict --measure`, `doctor`. Returns (COMM_WORLD, the level's usage
    error or None); COMM_WORLD as Any: mpi4py is imported here, not at the top."""
    import mpi4py
    try:
        level, problem = thread_level(), None
    except UsageError as e:
        level, problem = "single", str(e)
    if "mpi4py.MPI" not in sys.modules:
        mpi4py.rc.thread_level = level
        _check_srun_plugin()
    from mpi4py import MPI

    _check_srun_world(MPI.COMM_WORLD.Get_size())
    from .._launch import bind_ranks
    bind_ranks(MPI.COMM_WORLD)
    return MPI.COMM_WORLD, problem


def _check_srun_plugin() -> None:
    """Before MPI_Init: Open MPI under srun starts only through PMIx (with
    pmi2 or none every rank aborts inside MPI_Init, each with its own
    banner). Without PMIX_RANK in the environment, say so first."""
    from .. import _core  # noqa: F401  (loads the MPI library, which srun_mpi_plugin reads)
    from .._launch import srun_mpi_plugin
    if "SLURM_STEP_ID" in os.environ and "PMIX_RANK" not in os.environ and srun_mpi_plugin() == "pmix":
        _check_srun_world(1)


def _check_srun_world(size: int) -> None:
    """Under srun without an MPI plugin the MPI library can use, every task
    starts as an MPI job of its own (a singleton): N copies of one rank,
    each measuring alone. Say which plugin to use, once (task 0), and stop
    every task (exit 2), rather than run N wrong jobs."""
    from .._launch import srun_mpi_plugin
    tasks = os.environ.get("SLURM_STEP_NUM_TASKS") or os.environ.get("SLURM_NTASKS")
    if "SLURM_STEP_ID" not in os.environ or not tasks or not tasks.isdigit() or int(tasks) <= 1 or size != 1:
        return
    if os.environ.get("SLURM_PROCID", "0") != "0":
        raise SystemExit(2)
    raise UsageError(f"hpcbench: srun started {tasks} tasks but MPI sees each as a job of its own: run srun "
                     f"--mpi={srun_mpi_plugin()} (the plugin this MPI library needs; `srun --mpi=list` shows "
                     "what this Slurm has)")


def parse_run(parser: Parser, argv: list[str]) -> argparse.Namespace:
    """`run`'s command line, agreed by every rank (hpcbench.cli._agree)."""
    comm, level_problem = start_mpi()

    def parsed() -> argparse.Namespace:
        if level_problem:
            raise UsageError(level_problem)
        return parser.parse_args(argv)

    args: argparse.Namespace = agree(comm, parsed)
    same_command_line(comm, args, (os.environ.get("HPCBENCH_MPI_THREAD_LEVEL", "single"),))
    return args


def cmd_run(args: argparse.Namespace) -> int:
    from mpi4py import MPI

    from .._results import Results
    from .._runner import run_suite
    from .._show import summary
    from ..topology import Topology

    comm = MPI.COMM_WORLD
    topology = Topology.load()
    job = Job(comm.Get_size(), count_nodes(comm))
    # Topology and memory may differ between nodes: a rank that refuses an
    # option stops every rank, with its own line.
    writes = comm.Get_rank() == 0 and not args.estimate     # an estimate writes nothing: no path to check
    names, options = agree(comm, lambda: _checked(args, topology, job, writes))
    if comm.Get_rank() == 0:      # once the options are good: a bad command line gets one line, the error
        for note in deprecation_notes(args):
            print(note, file=sys.stderr)
    if args.estimate:
        if comm.Get_rank() == 0:
            print("\n".join(estimate_lines(names, options, topology, job)))
        return 0
    try:
        with stop_on_signals():
            results = run_suite(names, options, args.output, comm, topology, quiet=args.quiet, job=job)
    except ValueError as e:
        raise UsageError(f"hpcbench run: {e}") from None
    except RunStopped as stop:
        if comm.Get_rank() == 0:
            print(f"hpcbench run: stopped by {stop.signal_name} {stop.where or 'before anything was measured'}",
                  file=sys.stderr, flush=True)
        return 128 + int(signal.Signals[stop.signal_name])
    if isinstance(results, Results):
        sys.stdout.write(summary(results))
        if not results.unsaved:
            print(f"results written to {args.output}")
            write_degradation(results, args.output)
            append_to_history(results, args.history)     # a copy of the complete results file (docs/history.md)
        if args.report:        # also when a save failed: the page keeps what was measured
            write_run_report(results, args.output)
        if results.unsaved:
            return 1
        return 1 if any(r.status not in ("ok", "skipped") for r in results.benchmarks) else 0
    return 0


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """SIGTERM (scancel, a batch time limit, mpiexec passing it on) and
    SIGHUP stop the run with RunStopped, so that the runner can say what is
    on disk before the process ends; the default handlers come back after.
    Python runs the handler when the main thread is next between bytecodes:
    after the C kernel or MPI call in progress returns."""
    from .._output import stop_or_defer

    def stop(signum: int, frame: FrameType | None) -> None:
        stop_or_defer(RunStopped(signal.Signals(signum).name))
    wanted = (signal.SIGTERM, signal.SIGHUP)
    try:
        before = {s: signal.signal(s, stop) for s in wanted}
    except ValueError:          # not the main thread (a script's worker): leave signals alone
        yield
        return
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def _checked(args: argparse.Namespace, topology: Topology, job: Job,
             writes: bool = True) -> tuple[list[str], dict[str, Any]]:
    names = selected(args, job)
    options = checked_options(args, names, topology, job)
    if writes:      # here, so that a bad -o is the one line (no deprecation note before it)
        from .._output import check_output_path
        try:
            check_output_path(args.output)
        except OutputError as e:
            raise UsageError(f"hpcbench run: {e}") from None
    if args.report and writes:        # the rank that writes checks where the report goes
        check_run_report(args.output)
    if writes:        # a history folder that cannot take the run: said before anything is measured
        check_run_history(args.history)
    return names, options


def estimates(names: list[str], options: dict[str, Any], topology: Topology, job: Job) -> list[tuple[str, float]]:
    """(name, seconds) of each benchmark `run` would run, from its checked
    options (hpcbench._estimate; nothing is measured)."""
    from .. import _registry
    return [(name, _registry.get(name).estimate(options[name], topology, job)) for name in names]


def estimate_lines(names: list[str], options: dict[str, Any], topology: Topology, job: Job) -> list[str]:
    """What `run --estimate` prints."""
    from .._estimate import format_estimates
    return format_estimates(estimates(names, options, topology, job), job)


def write_degradation(results: Results, output: str) -> None:
    """Beside the results, the file the C API reads, when a network benchmark finished."""
    from ..network import export_from_results
    from ..network._degr import degradation_path
    if results.network_dist_ratios or results.network_access_ratios:
        path = degradation_path(output)
        try:
            export_from_results(results, path)
            print(f"network degradation (ratDist, ratNC) written to {path}")
        except (ValueError, OSError) as e:
            print(f"hpcbench: could not write {path}: {e}", file=sys.stderr)
