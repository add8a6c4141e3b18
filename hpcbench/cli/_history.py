"""`hpcbench history [DIR]`: each headline figure's trend over the runs of
a history folder and the runs where it moved; and the end of `run
--history DIR`: the finished run appended to the folder (hpcbench.history,
docs/history.md)."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from .._terminal import shown
from ._common import SUMMARIES, Parser, UsageError

if TYPE_CHECKING:          # for the annotations only
    from .._results import Results

FORMATS = ("table", "json")


def add_history_parser(sub: argparse._SubParsersAction[Parser]) -> Parser:
    history = sub.add_parser("history", help=SUMMARIES["history"],
                             description="Each headline figure's trend over the runs of a history folder (written "
                                         "by `run --history DIR`) and the runs where it moved, by the robust rule "
                                         "of docs/history.md. Exit 0; 2 when the folder is missing or holds no run.")
    history.add_argument("directory", nargs="?", metavar="DIR",
                         help="the history folder (default: $HPCBENCH_HISTORY)")
    history.add_argument("--figure", metavar="SUBSTRING",
                         help="only the figures whose 'benchmark on node: label' contains SUBSTRING (any case)")
    history.add_argument("--format", choices=FORMATS, default="table", help="output format (default: %(default)s)")
    return history


def cmd_history(args: argparse.Namespace) -> int:
    from ..history import HistoryError, read_history, trends
    from ..history._json import history_data
    from ..history._place import ENVIRONMENT, history_place
    from ..history._sparkline import ASCII, BLOCKS, can_show_blocks
    from ..history._text import history_lines

    directory = history_place(args.directory)
    if directory is None:
        raise UsageError(f"hpcbench history: name the history folder (DIR) or set {ENVIRONMENT}")
    try:
        history = read_history(directory)
    except HistoryError as e:
        _skipped_warnings(e.skipped)
        raise UsageError(f"hpcbench history: {e}") from None
    _skipped_warnings(history.skipped)
    found = trends(history, args.figure)
    if args.figure and not found:
        raise UsageError(f"hpcbench history: no figure of {directory} contains {args.figure!r}")
    if args.format == "json":
        json.dump(history_data(history, found), sys.stdout, indent=1, allow_nan=False)
        sys.stdout.write("\n")
        return 0
    blocks = BLOCKS if can_show_blocks(getattr(sys.stdout, "encoding", None)) else ASCII
    sys.stdout.write("\n".join(history_lines(history, found, blocks)) + "\n")
    return 0


def _skipped_warnings(skipped: list[tuple[str, str]]) -> None:
    for name, why in skipped:
        print(f"hpcbench history: skipped {shown(name)}: {shown(why)}", file=sys.stderr)


def check_run_history(given: str | None) -> None:
    """`run`, before it measures: a history folder (--history, else
    $HPCBENCH_HISTORY) that exists but cannot take the run is one usage line."""
    from ..history import HistoryError
    from ..history._place import check_history_place, history_place
    directory = history_place(given)
    if directory is None:
        return
    try:
        check_history_place(directory)
    except HistoryError as e:
        raise UsageError(f"hpcbench run: {e}") from None


def append_to_history(results: Results, given: str | None) -> None:
    """`run`, once its results file is complete (rank 0): a copy of it into
    the history folder, if one is given or configured. A failure is one
    warning line: the results file is complete and the run's status stays
    the run's."""
    from ..history import HistoryError
    from ..history._append import append_results_text
    from ..history._place import history_place
    directory = history_place(given)
    if directory is None:
        return
    try:
        path = append_results_text(results.text(), directory, getattr(results.context, "date", None))
    except (HistoryError, OSError) as e:
        print(f"hpcbench run: warning: the run was not added to the history {directory}: {e}; the results file "
              "is complete", file=sys.stderr)
        return
    print(f"run added to the history: {path}")
