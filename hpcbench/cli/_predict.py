"""`predict wavefront`: Hammond et al.'s plug-and-play model (and, with
--simulate, the discrete-event replay) of a wavefront code on the measured
machine; with --measure, the real kernel run under the current mpiexec
beside the prediction (docs/predict.md, docs/simulate.md).

Parse, call, print: the flags become a StudyInputs, hpcbench.predict.study
does the work (the same function a script or a notebook calls), rank 0
prints its lines and writes its files. Every rank of an mpiexec job parses
the same command line; the output paths are agreed first (cli/_agree.py)
and the study agrees on every failure, so bad input is one line from rank 0
and exit 2 on every rank, never a hang.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from ._common import SUMMARIES, UsageError

T = TypeVar("T")

_NAME = "hpcbench predict"


def add_predict_parser(sub: Any) -> None:
    p = sub.add_parser("predict", help=SUMMARIES["predict"],
                       description="Predict the run time of a code from a results file's network profile.")
    codes = p.add_subparsers(dest="code", metavar="CODE", parser_class=type(p))
    wf = codes.add_parser(
        "wavefront", help="a Chimaera-like wavefront code: model, simulation, measurement",
        description="Predict one iteration of a wavefront code (Table 2 of Hammond et al. 2009) from the network "
                    "profile of a comm results file and W_g measured here; --simulate replays it event by event "
                    "(per-rank breakdown), --measure runs the real kernel under this mpiexec and compares.")
    _add_machine_options(wf.add_argument_group("the machine"))
    _add_code_options(wf.add_argument_group("the code (Table 1)"))
    _add_action_options(wf.add_argument_group("what to do"))
    _add_output_options(wf.add_argument_group("output"))


def _add_machine_options(source: Any) -> None:
    source.add_argument("--results", metavar="RESULTS.json",
                        help="a results file with comm records: the network profile (and the machine, for --alloc)")
    source.add_argument("--profile", metavar="TABLE.json",
                        help="a network profile table instead (hpcbench/examples/francesca-profile.json is Table 3)")
    source.add_argument("--access-results", metavar="RESULTS.json",
                        help="a results file with a network-access record: its ratNC prices the ranks of a node that "
                             "share its network access (default: the --results file's own, if it has one; "
                             "--what-if contention=none ignores it)")
    source.add_argument("--machine", metavar="NODESxPACKAGESxCORES",
                        help="the machine ranks are allocated on (default: the results file's hosts and topology)")
    source.add_argument("--alloc", default=None, metavar="STRATEGY",
                        help="round-robin, node-fill or processor-fill (section 7); default: the job's own "
                             "placement under mpiexec with M*N ranks, node-fill otherwise")


def _add_code_options(code: Any) -> None:
    code.add_argument("--grid", required=True, metavar="NXxNYxNZ", help="the grid (one number for a cube)")
    code.add_argument("--procs", required=True, metavar="MxN", help="process array: M rows (y) x N columns (x)")
    code.add_argument("--h-tile", type=int, default=1, metavar="K", help="planes per tile (default 1)")
    code.add_argument("--angles", type=int, default=6, metavar="A",
                      help="angles per octant: a face carries A values per cell (default 6)")
    code.add_argument("--groups", type=int, default=1, metavar="G", help="energy groups (default 1)")
    code.add_argument("--group-faces", default="each", choices=("each", "all"),
                      help="each: every group its own pass through the tiles with its own faces (default; SNAP); "
                           "all: one face carries every group (W and faces G times larger)")
    code.add_argument("--octants", default="chimaera", metavar="ORDER",
                      help="the sweeps of an iteration by starting corner, e.g. SW+,NE+,SE+,SE-,NW+,NW-,SW-,NE- "
                           "(S: row 1, W: column 1, +/-: z direction); the fills follow from the order "
                           "(default chimaera: that list)")
    code.add_argument("--inners", type=int, default=1, metavar="I", help="inner iterations per outer (default 1)")
    code.add_argument("--outers", type=int, default=1, metavar="O",
                      help="outer iterations: the run is O x I iterations (default 1)")
    code.add_argument("--t-nonwavefront", type=float, default=0.0, metavar="SECONDS",
                      help="time per iteration outside the sweeps, from the code's own timers (default 0)")
    code.add_argument("--grind", type=float, default=None, metavar="SECONDS",
                      help="the code's grind time, seconds per cell, angle and group: W_g = grind x angles "
                           "(instead of --wg)")
    code.add_argument("--eager-limit", type=int, default=None, metavar="BYTES",
                      help="faces above this many bytes are coupled to their receive (default: the results "
                           "file's MPI library's, Open MPI 256 in a node and 65480 between nodes; else none)")
    code.add_argument("--wg", type=float, default=None, metavar="SECONDS",
                      help="W_g, seconds per cell (default: measured here with the real kernel's cells)")
    code.add_argument("--work", type=int, default=None, metavar="ROUNDS",
                      help="the real kernel's cost per cell and angle (default 1)")


def _add_action_options(what: Any) -> None:
    what.add_argument("--what-if", default="", metavar="K=V,...",
                      help="latency=+25%%,bandwidth=-10%%,core-speed=+20%%,cores-per-node=x2,contention=table5 "
                           "(contention: auto, ratnc, table5 or none; auto: the measured ratNC if any, else "
                           "Table 5's percentages under cores-per-node)")
    what.add_argument("--simulate", action="store_true", help="also replay the run event by event (per rank)")
    what.add_argument("--sends", default="eager", choices=("eager", "blocking"),
                      help="the simulation's sends: eager (MPI_Send of a face below the eager limit, Table 2's "
                           "Total_comm; default) or blocking (WARPP's rendezvous: the sender waits for the receiver)")
    what.add_argument("--sweep", default=None, metavar="P1,P2,...",
                      help="predict for these process counts too (most square arrays): time, parallel "
                           "efficiency against the first count, change against the machine without the what-if")
    what.add_argument("--efficiency", type=float, default=None, metavar="LEVEL",
                      help="also the process count where parallel efficiency (against one process) falls below "
                           "LEVEL, e.g. 0.5 (Figure 4; the model, the machine grown as the count needs)")
    what.add_argument("--match-profile", default=None, metavar="TABLE.json",
                      help="a second network (a profile table): the process counts on it that match this one's "
                           "time at --procs and the --sweep counts (Figure 5; the model)")
    what.add_argument("--match-results", default=None, metavar="RESULTS.json",
                      help="the second network from a comm results file instead of a table")
    what.add_argument("--measure", action="store_true",
                      help="run the real kernel on this job's M*N ranks and print measured, predicted, error")
    what.add_argument("--iterations", type=int, default=None, metavar="I",
                      help="timed iterations of --measure (default 5)")


def _add_output_options(out: Any) -> None:
    out.add_argument("-o", "--output", default=None, metavar="FILE.json",
                     help="write the prediction (terms, per-rank breakdown, measurement) as JSON")
    out.add_argument("--plot", default=None, metavar="DIR",
                     help="write the figures as PNG files here: the per-rank breakdown heat maps (--simulate), "
                          "the sweep, the efficiency curve, the two networks' times")
    out.add_argument("--force", action="store_true",
                     help="replace an existing file that is not an hpcbench prediction (-o) or a PNG image (--plot); "
                          "never a symbolic link, a device or a FIFO")


def cmd_predict(args: argparse.Namespace) -> int:
    """`predict wavefront`: parse, call the study, print (rank 0)."""
    if args.code is None:
        raise UsageError(f"{_NAME}: name the code to predict: wavefront (see --help)")
    from ..predict import StudyInputs, check_outputs, study, write_outputs
    comm = _world(args.measure)
    drawn = (args.simulate, args.sweep, args.efficiency is not None, args.match_profile, args.match_results)
    if args.plot is not None and not any(drawn):
        raise UsageError(f"{_NAME}: --plot draws the simulation, the sweep, the efficiency or the match: "
                         "add --simulate, --sweep, --efficiency or --match-profile")
    _agreed(comm, lambda: _guarded(lambda: check_outputs(args.output, args.plot, args.force)))
    # The flags are StudyInputs' fields (-o, --plot and --force are what to do with the study).
    inputs = StudyInputs(**{f.name: getattr(args, f.name) for f in dataclasses.fields(StudyInputs)})
    result = _guarded(lambda: study(inputs, comm))
    if comm is not None and comm.Get_rank() != 0:
        return 0
    for line in result.lines():
        print(line)
    for path in _guarded(lambda: write_outputs(result, args.output, args.plot, args.force)):
        print(f"{_NAME}: wrote {path}", file=sys.stderr)
    return 0


def _world(measure: bool) -> Any:
    """COMM_WORLD when this process is one rank of an MPI job (--measure,
    or a launcher's environment), else None: a prediction alone needs no
    MPI."""
    launched = any(k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_ID"))
    if not (measure or launched):
        return None
    from ._run import start_mpi
    comm, problem = start_mpi()
    if problem:
        raise UsageError(problem)
    return comm


def _guarded(make: Callable[[], T]) -> T:
    """make(), with the package's one-line errors turned into UsageError
    (printed by rank 0 alone)."""
    from .._errors import HpcbenchError
    try:
        return make()
    except UsageError:
        raise
    except (HpcbenchError, ValueError, OSError) as e:
        raise UsageError(f"{_NAME}: {e}") from None


def _agreed(comm: Any, make: Callable[[], T]) -> T:
    """make() on every rank; a UsageError on any rank is one on all."""
    if comm is None:
        return make()
    from ._agree import agree
    return agree(comm, make)
