"""`python -m hpcbench report RESULTS [B] [-o FILE]`, and the report a run
writes beside its results (`run --report`)."""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ._common import SUMMARIES, Parser, UsageError

if TYPE_CHECKING:          # for the annotations only: the report package loads when a report is written
    from .._results import Results
    from ..report import Written


def add_report_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    report = sub.add_parser("report", help=SUMMARIES["report"],
                            description="Write an HTML report: machine context, and per benchmark its figure, what "
                                        "it means, its disagreements and warnings and the table `show` prints. With "
                                        "two results files, side by side with the ratio of every headline number.")
    report.add_argument("results", nargs="+", metavar="RESULTS.json", help="one results file, or two to compare")
    report.add_argument("-o", "--output", default=None,
                        help="HTML file (default: beside the first results file, RESULTS.html or A-vs-B.html)")
    report.add_argument("--force", action="store_true",
                        help="replace an existing file that is not an hpcbench report (never a results file, a link, "
                             "a device or a FIFO)")


def _said(written: Written) -> str:
    """'3 benchmarks (2 ok, 1 failed); 1 disagreement, 2 warnings' for the command's last line."""
    c = written.counts
    total = c["ok"] + c["failed"] + c["skipped"]
    states = ", ".join(f"{c[k]} {k}" for k in ("ok", "failed", "skipped") if c[k])
    findings = ", ".join(f"{c[k]} {k if c[k] != 1 else k[:-1]}" for k in ("disagreements", "warnings") if c[k])
    return f"{total} benchmark record{'s' if total != 1 else ''} ({states or 'none'})" + \
        (f"; {findings}" if findings else "")


def cmd_report(args: argparse.Namespace) -> int:
    from ..report import ReportError, write_report
    if len(args.results) > 2:
        raise UsageError(f"hpcbench report: give one results file, or two to compare; got {len(args.results)}")
    try:
        written = write_report(args.results, args.output, force=args.force)
    except ReportError as e:
        raise UsageError(f"hpcbench report: {e}") from None
    print(f"report written to {written.path}: {_said(written)}")
    if written.counts["problems"]:
        print(f"hpcbench report: {written.counts['problems']} part(s) of the page could not be made; the page says "
              "which and why", file=sys.stderr)
    return 0


def check_run_report(results_path: str) -> str:
    """Before a run measures anything: the report beside `results_path` can
    be written and drawn. Returns its path; UsageError (one line) if not."""
    from ..report import ReportError
    from ..report._figures import matplotlib_missing
    from ..report._write import check_report_path, default_report_path
    path = default_report_path([results_path])
    try:
        check_report_path(path, (results_path,), hint="choose another results file with -o (the report is named "
                                                      "after it) or move it away")
    except ReportError as e:
        raise UsageError(f"hpcbench run: --report: {e}") from None
    missing = matplotlib_missing()
    if missing:
        raise UsageError(f"hpcbench run: --report: {missing}")
    return path


def write_run_report(results: Results, results_path: str) -> bool:
    """At the end of a run (rank 0): the report beside the results. A
    failure is one line on stderr; the results are already saved. Returns
    whether the report was written."""
    from ..report import ReportError
    from ..report._write import default_report_path, write_loaded
    path = default_report_path([results_path])
    try:
        written = write_loaded([results], path)
    except ReportError as e:
        print(f"hpcbench: could not write the report: {e}", file=sys.stderr)
        return False
    print(f"report written to {written.path}")
    return True
