"""`check RESULTS --against REFERENCE` from paths: the reference is a
history folder (`run --history DIR`, _history.py), a results file (JSON,
read by hpcbench.load) or a hand-written reference file (TOML,
_reference.py), the two files told apart by their first character."""
from __future__ import annotations

import os

from .._errors import ResultsError
from .._files import read_head
from .._results import Results, load
from ._compare import Comparison, compare_reference, compare_results
from ._reference import CheckError, read_reference
from ._verdict import DEFAULTS, Settings

#: The kinds of reference, as the JSON output names them.
RESULTS, REFERENCE_FILE, HISTORY = "results", "reference file", "history"


def reference_kind(path: str) -> str:
    """RESULTS when the file opens with a JSON object, else REFERENCE_FILE (example:NAME is a results file)."""
    if path.startswith("example:"):
        return RESULTS
    head = read_head(path)
    return RESULTS if head is not None and head.lstrip()[:1] == b"{" else REFERENCE_FILE


def _load(path: str, role: str):
    try:
        return load(path)
    except ResultsError as e:
        raise CheckError(f"{role}: {e}") from None


def check_files(results_path: str, reference_path: str, settings: Settings = DEFAULTS) -> tuple[Comparison, str]:
    """(the comparison of the results file against the reference, the
    reference's kind). CheckError (one line) for a file that cannot be used."""
    current = _load(results_path, "the results")
    if os.path.isdir(reference_path):
        return _against_history(current, reference_path, settings), HISTORY
    kind = reference_kind(reference_path)
    if kind == RESULTS:
        return compare_results(current, _load(reference_path, "the reference"), settings), kind
    figures, tolerance = read_reference(reference_path)
    return compare_reference(current, figures, tolerance, reference_path, settings), kind


def _against_history(current: Results, directory: str, settings: Settings) -> Comparison:
    from ..history import HistoryError, read_history
    from ._history import compare_history, history_runs
    try:
        history = read_history(directory)
    except HistoryError as e:
        raise CheckError(str(e)) from None
    runs, why = history_runs(current, history.runs)
    if why:
        raise CheckError(why)
    comparison = compare_history(current, runs, settings)
    comparison.not_compared += [f"{name}: {reason}" for name, reason in history.skipped]
    return comparison
