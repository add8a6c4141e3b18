"""Command line: python -m hpcbench {run,list,show,report,degr,config,advise,map,predict}.

A thin layer over the API. Usage errors print one line and exit 2, on one
rank only; set HPCBENCH_DEBUG=1 to see tracebacks of unexpected errors.
_run.py runs benchmarks (its flags come from the registry, _options.py);
_tools.py reads results and gives advice; _report.py writes the HTML report;
_map.py maps processes onto cores; _predict.py predicts run times (Hammond et al.);
_common.py holds what they share.
"""
from __future__ import annotations

import os
import sys

from .._version import __version__
from ._common import Parser, UsageError
from ._map import add_map_parser, cmd_map
from ._options import add_run_parser
from ._predict import add_predict_parser, cmd_predict
from ._report import add_report_parser, cmd_report
from ._run import cmd_run, parse_run
from ._tools import add_tool_parsers, cmd_advise, cmd_config, cmd_degr, cmd_list, cmd_show

__all__ = ["UsageError", "build_parser", "main"]
COMMANDS = {"run": cmd_run, "list": cmd_list, "show": cmd_show, "degr": cmd_degr, "config": cmd_config,
            "advise": cmd_advise, "report": cmd_report, "map": cmd_map, "predict": cmd_predict}


def build_parser() -> Parser:
    """The parser of every command; `run`'s flags come from the registry."""
    parser = Parser(prog="hpcbench", description="Characterise HPC nodes and clusters by benchmarking them.")
    parser.add_argument("--version", action="version", version=f"hpcbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    add_run_parser(sub)
    add_tool_parsers(sub)
    add_report_parser(sub)
    add_map_parser(sub)
    add_predict_parser(sub)
    return parser


def _is_rank_zero() -> bool:
    mpi = sys.modules.get("mpi4py.MPI")
    return mpi is None or not mpi.Is_initialized() or mpi.COMM_WORLD.Get_rank() == 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line `argv` (default sys.argv[1:]); returns the exit
    status: 0, 1 when a benchmark failed, 2 for usage errors."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser()
        # `run` starts MPI first, so that every rank takes part in agreeing
        # on the command line (a usage error on one rank stops them all).
        args = parse_run(parser, argv) if argv[:1] == ["run"] else parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        return COMMANDS[args.command](args)
    except UsageError as e:
        if _is_rank_zero():
            print(f"{e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("hpcbench: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # one line for users; the traceback on request
        if os.environ.get("HPCBENCH_DEBUG"):
            raise
        print(f"hpcbench: internal error: {type(e).__name__}: {e} (set HPCBENCH_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return 1
