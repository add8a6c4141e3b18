"""Command line: python -m hpcbench {run,list,show,report,degr,params,config,advise,map,predict,doctor,sbatch}.

A thin layer over the API. Usage errors print one line and exit 2, on one
rank only; set HPCBENCH_DEBUG=1 to see tracebacks of unexpected errors.
_run.py runs benchmarks (its flags come from the registry, _options.py);
_tools.py reads results and gives advice; _report.py writes the HTML report;
_map.py maps processes onto cores; _predict.py predicts run times (Hammond et al.);
_doctor.py checks what this machine and launch give a run;
_sbatch.py writes a Slurm batch script for a run;
_history.py shows a history folder's trends (and appends a run to it for _run.py);
_common.py holds what they share.

Start-up is part of the interface: people call `hpcbench show` from scripts
and loops. So a command's module is imported only when that command runs,
and the parser of a single command line holds that command's whole parser and
one-line stubs of the others (enough for `hpcbench --help`); `run`'s flags,
made from every benchmark's options, are built only for `run`.
"""
from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from .._errors import HpcbenchError, InputError, MeasurementError, Unavailable
from .._terminal import SafeStream
from .._version import __version__
from ._common import SUMMARIES, Parser, UsageError

if TYPE_CHECKING:          # for the annotations only: argparse loads with the parser, later
    import argparse

__all__ = ["UsageError", "build_parser", "main"]

# The module of each group of commands: the function that adds the group's
# parsers and, per command, the function that runs it.
_GROUPS = {
    "._options": ("add_run_parser", {"run": "._run:cmd_run"}),
    "._tools": ("add_tool_parsers", {"list": "cmd_list", "show": "cmd_show", "degr": "cmd_degr",
                                     "params": "cmd_params", "config": "cmd_config", "advise": "cmd_advise"}),
    "._report": ("add_report_parser", {"report": "cmd_report"}),
    "._map": ("add_map_parser", {"map": "cmd_map"}),
    "._predict": ("add_predict_parser", {"predict": "cmd_predict"}),
    "._doctor": ("add_doctor_parser", {"doctor": "cmd_doctor"}),
    "._sbatch": ("add_sbatch_parser", {"sbatch": "cmd_sbatch"}),
    "._history": ("add_history_parser", {"history": "cmd_history"}),
    "._check": ("add_check_parser", {"check": "cmd_check"}),
}
COMMANDS = tuple(name for _, (_, runners) in _GROUPS.items() for name in runners)


#: The exit status of each kind of error (hpcbench._errors), the first that matches.
EXIT_STATUS = {InputError: 2, Unavailable: 3, MeasurementError: 1, HpcbenchError: 1}


def _module(name: str) -> ModuleType:
    return importlib.import_module(name, __name__)


def build_parser(command: str | None = None) -> Parser:
    """The parser of every command (default), or, given `command`, that
    command's whole parser with one-line stubs of the others; `command=""`
    gives the stubs alone (`hpcbench --help`)."""
    parser = Parser(prog="hpcbench", description="Characterise HPC nodes and clusters by benchmarking them.")
    parser.add_argument("--version", action="version", version=f"hpcbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for module, (adder, runners) in _GROUPS.items():
        if command is None or command in runners:
            getattr(_module(module), adder)(sub)
        else:
            for name in runners:
                sub.add_parser(name, help=SUMMARIES[name])
    return parser


def _runner(command: str) -> Callable[[argparse.Namespace], int]:
    for module, (_, runners) in _GROUPS.items():
        if command in runners:
            where, _, name = runners[command].rpartition(":")
            run: Callable[[argparse.Namespace], int] = getattr(_module(where or module), name)
            return run
    raise KeyError(command)


def _is_rank_zero() -> bool:
    mpi = sys.modules.get("mpi4py.MPI")
    return mpi is None or not mpi.Is_initialized() or mpi.COMM_WORLD.Get_rank() == 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line `argv` (default sys.argv[1:]); returns the exit
    status: 0; 1 when a benchmark or a measurement failed; 2 for bad input
    (usage errors, and any InputError); 3 when what was asked is unavailable
    here; 130 on Ctrl-C, 128+N on signal N during `run`."""
    argv = sys.argv[1:] if argv is None else list(argv)
    streams, command = (sys.stdout, sys.stderr), ""
    if streams[0] is not None and streams[1] is not None:     # None: the process was started without them
        sys.stdout, sys.stderr = SafeStream(streams[0]), SafeStream(streams[1])   # hpcbench._terminal
    try:
        command = argv[0] if argv and argv[0] in COMMANDS else ""
        parser = build_parser(command)
        if command == "run":
            # `run` starts MPI first, so that every rank takes part in agreeing
            # on the command line (a usage error on one rank stops them all).
            args = _module("._run").parse_run(parser, argv)
        else:
            args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        status: int = _runner(args.command)(args)
        sys.stdout.flush()      # a closed pipe shows here, not at the interpreter's exit
        return status
    except UsageError as e:
        if _is_rank_zero():
            print(f"{e}", file=sys.stderr)
        return 2
    except HpcbenchError as e:      # what a command did not word itself: the status by kind (hpcbench._errors)
        who = f"hpcbench {command}" if command else "hpcbench"
        print(f"{who}: {e}", file=sys.stderr)
        return EXIT_STATUS[next(kind for kind in EXIT_STATUS if isinstance(e, kind))]
    except KeyboardInterrupt:
        print("hpcbench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `hpcbench show ... | head`: the reader has what it wanted. Quiet, as
        # other command-line tools are; stdout goes to /dev/null so that the
        # interpreter's flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), streams[0].fileno())
        return 0
    except MemoryError:
        who = f"hpcbench {command}" if command else "hpcbench"
        print(f"{who}: not enough memory to finish; free memory, raise the limit (ulimit -v) or run it on a larger "
              "machine", file=sys.stderr)
        return 2
    except Exception as e:  # one line for users; the traceback on request
        if os.environ.get("HPCBENCH_DEBUG"):
            raise
        print(f"hpcbench: internal error: {type(e).__name__}: {e} (set HPCBENCH_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return 1
    finally:
        sys.stdout, sys.stderr = streams
        # A command run in the caller's own process (a test, a notebook) leaves
        # it on the PUs it had: the binding was for the command's measurements.
        launch = sys.modules.get("hpcbench._launch")
        if launch is not None:
            launch.release_binding()
