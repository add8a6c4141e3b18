"""`python -m hpcbench check RESULTS --against REFERENCE`: every headline
figure better, same or worse than the reference's, as a table or JSON,
with an exit status a CI job or a cron job gates on (0 every figure
within, 1 a regression, 2 bad input; docs/check.md)."""
from __future__ import annotations

import argparse
import math
import sys

from ._common import SUMMARIES, Parser, UsageError


def _share(text: str) -> float:
    """'5%' or '0.05' -> 0.05 (argparse type; its ValueError becomes one usage line)."""
    value = float(text[:-1]) / 100 if text.strip().endswith("%") else float(text)
    if not (math.isfinite(value) and 0 <= value < 1):
        raise ValueError(text)
    return value


_share.__name__ = "share (0.05 or 5%, under 100%)"


def _alpha(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and 0 < value < 1):
        raise ValueError(text)
    return value


_alpha.__name__ = "significance (between 0 and 1)"


def add_check_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    check = sub.add_parser("check", help=SUMMARIES["check"],
                           description="Compare every headline figure of a results file with a reference (an "
                                       "earlier results file, or a reference file of figures with tolerances): "
                                       "better, same or worse, by a Mann-Whitney U test on the stored samples "
                                       "where both sides have them, else by the tolerance. Exit status 0 when "
                                       "every figure is within, 1 on a regression, 2 on bad input.")
    check.add_argument("results", metavar="RESULTS.json", help="the results file to judge")
    check.add_argument("--against", required=True, metavar="REFERENCE",
                       help="an earlier results file (JSON), a reference file (TOML, docs/check.md), or a "
                            "history folder (`run --history DIR`): the machine's earlier runs")
    check.add_argument("--format", choices=("table", "json"), default="table",
                       help="table: for a terminal (default); json: one document of a stable schema")
    check.add_argument("--alpha", type=_alpha, default=0.01,
                       help="significance of the Mann-Whitney test over all the figures tested (Holm) "
                            "(default 0.01)")
    check.add_argument("--min-change", type=_share, default=0.05,
                       help="the smallest change that counts, and the tolerance where the reference file "
                            "gives none (default 0.05, or write 5%%)")


def cmd_check(args: argparse.Namespace) -> int:
    from ..check import CheckError, Settings, check_files
    from ..check._output import json_text, table_text
    settings = Settings(alpha=args.alpha, min_change=args.min_change)
    try:
        comparison, kind = check_files(args.results, args.against, settings)
    except CheckError as e:
        raise UsageError(f"hpcbench check: {e}") from None
    if args.format == "json":
        sys.stdout.write(json_text(comparison, args.results, args.against, kind))
    else:
        sys.stdout.write(table_text(comparison, args.results, args.against, kind))
    return comparison.exit_status
