"""Where a report goes and how it is written: the default path beside the
results file, the checks made before anything is drawn (one line each), and
the atomic write. An existing file is only replaced if it is an hpcbench
report: a results file, or anything else, is never overwritten."""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .._errors import InputError, ResultsError
from .._files import check_target, read_head, write_file
from .._results import Results, load
from ._compare import comparison_page
from ._page import GENERATOR, counts, single_page

_VERSION = re.compile(rb'"format_version"\s*:\s*(-?\d+)\s*[,}]')


_HINT = "choose another name with -o, move it away or give --force"


class ReportError(InputError):
    """A report that cannot be made (a results file that cannot be read, an
    output that cannot be written); the message is one line."""


@dataclass
class Written:
    """What write_report wrote: the path, and per status and finding how many."""

    path: str
    counts: dict[str, int]


def default_report_path(results_paths: Sequence[str]) -> str:
    """Beside the (first) results file: RESULTS.json -> RESULTS.html; for two
    files A.json and B.json, A-vs-B.html in A's folder; example:NAME ->
    example-NAME.html in the working folder."""
    from ..examples import PREFIX
    # A shipped example (example:NAME) has no folder of its own: example-NAME.html here.
    stems = [f"example-{p[len(PREFIX):]}" if p.startswith(PREFIX) else
             os.path.basename(p)[:-5] if p.endswith(".json") else os.path.basename(p) for p in results_paths]
    folder = "" if results_paths[0].startswith(PREFIX) else os.path.dirname(results_paths[0])
    return os.path.join(folder, "-vs-".join(stems) + ".html")


def looks_like_report(head: bytes) -> bool:
    """True if a file's first bytes are those of a page this command writes."""
    return f'<meta name="generator" content="{GENERATOR}">'.encode() in head


def is_report(path: str) -> bool:
    """True if `path` is a regular file that starts like a page this command writes."""
    head = read_head(path)
    return head is not None and looks_like_report(head)


def check_report_path(path: str, results_paths: tuple[str, ...] = (), force: bool = False, hint: str = _HINT) -> str:
    """The absolute path a report may be written to, or ReportError naming
    what is wrong: no name, a directory, a missing or read-only folder, one
    of the results files, a link, or (unless `force`) an existing file that
    is not a report (hpcbench._files.check_target). A results file is never
    replaced, even with `force`. `hint` ends the refusal of a file of
    another kind (what the command offers instead)."""
    if isinstance(path, str) and path.strip() and \
            any(os.path.abspath(p) == os.path.abspath(path) for p in results_paths):
        raise ReportError(f"the report would overwrite the results file {path}; choose another name with -o")
    from .._output import is_results_file
    if isinstance(path, str) and path.strip() and is_results_file(path):
        raise ReportError(f"{path} is a results file; a report never overwrites one: choose another name with -o")
    full = check_target(path, "report", looks_like_report, force, ReportError, "an hpcbench report", hint)
    if os.path.lexists(full) and not os.access(full, os.W_OK):
        raise ReportError(f"cannot write the report {path}: the file is read-only")
    return full


def format_version(path: str) -> int | None:
    """The format version a results file declares at its start (where
    hpcbench writes it), or None where it cannot be read there."""
    head = read_head(path)
    found = _VERSION.search(head) if head is not None else None
    return int(found.group(1)) if found else None


def check_versions(paths: Sequence[str]) -> None:
    """ReportError if two results files declare different format versions."""
    versions = [format_version(p) for p in paths]
    if len(paths) == 2 and None not in versions and versions[0] != versions[1]:
        raise ReportError(f"{paths[0]} has results format version {versions[0]} and {paths[1]} version "
                          f"{versions[1]}: a side-by-side report compares files of one format version")


def save(text: str, path: str, force: bool = False) -> None:
    """Write the page atomically (checked again first: the path may have
    changed while the page was drawn); ReportError (one line) if it cannot be."""
    write_file(path, text, "report", looks_like_report, force, ReportError, "an hpcbench report", _HINT)


def write_report(results_paths: Sequence[str], output: str | None = None, figures: bool = True,
                 force: bool = False) -> Written:
    """Read one results file (or two, to compare them) and write the HTML
    report to `output` (default: beside the first file, see
    default_report_path). Every check is made before anything is drawn;
    ReportError (one line) for a results file that is missing or damaged,
    two files of different format versions, or an output that cannot be
    written (`force`: replace a file that is not a report, never a results
    file)."""
    paths = list(results_paths)
    if len(paths) not in (1, 2):
        raise ReportError(f"give one results file, or two to compare; got {len(paths)}")
    target = check_report_path(default_report_path(paths) if output is None else output, tuple(paths), force)
    check_versions(paths)
    try:
        loaded = [load(p) for p in paths]
    except ResultsError as e:
        raise ReportError(str(e)) from None
    return write_loaded(loaded, target, figures, force)


def write_loaded(loaded: list[Results], target: str, figures: bool = True, force: bool = False) -> Written:
    """Write the report of results already in memory (`run --report`, or
    after write_report's checks) to `target`; ReportError (one line) if it
    cannot be written there."""
    target = check_report_path(target, tuple(r.path for r in loaded if r.path), force)
    if len(loaded) == 1:
        text, views = single_page(loaded[0], figures)
    else:
        text, views = comparison_page(loaded[0], loaded[1], figures)
    save(text, target, force)
    return Written(target, counts(views))
