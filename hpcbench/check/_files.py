"""`check RESULTS --against REFERENCE` from paths: the reference is a
results file (JSON, read by hpcbench.load) or a hand-written reference
file (TOML, _reference.py), told apart by its first character."""
from __future__ import annotations

from .._errors import ResultsError
from .._files import read_head
from .._results import load
from ._compare import Comparison, compare_reference, compare_results
from ._reference import CheckError, read_reference
from ._verdict import DEFAULTS, Settings

#: The kinds of reference, as the JSON output names them.
RESULTS, REFERENCE_FILE = "results", "reference file"


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
    kind = reference_kind(reference_path)
    if kind == RESULTS:
        return compare_results(current, _load(reference_path, "the reference"), settings), kind
    figures, tolerance = read_reference(reference_path)
    return compare_reference(current, figures, tolerance, reference_path, settings), kind
