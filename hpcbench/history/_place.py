"""Where the history is: the folder a command names, else the configured
one, HPCBENCH_HISTORY (empty or unset: none). `run` appends there when
either is given; `hpcbench history` reads it when DIR is left out."""
from __future__ import annotations

import os

from ._errors import HistoryError

#: The environment variable that names the configured history folder.
ENVIRONMENT = "HPCBENCH_HISTORY"


def history_place(given: str | None) -> str | None:
    """The history folder: `given` (a command's option), else
    $HPCBENCH_HISTORY, else None (no history)."""
    if given is not None:
        return given
    configured = os.environ.get(ENVIRONMENT, "").strip()
    return configured or None


def check_history_place(directory: str) -> None:
    """Before a run measures anything: HistoryError (one line) when
    `directory` exists but is no folder, or is a folder this process cannot
    write; a missing folder is made at the end of the run, so then the
    nearest folder above it that exists must be writable."""
    if not directory.strip():
        raise HistoryError("the history folder name must not be empty")
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise HistoryError(f"the history folder {directory} is not a folder")
    existing = os.path.abspath(directory)
    while not os.path.lexists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise HistoryError(f"cannot make the history folder {directory}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise HistoryError(f"the history folder {directory} cannot be written: {existing} is not writable")
