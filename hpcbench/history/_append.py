"""Appending a finished run to a history folder: a copy of its results
file under a name of its own (_names.py), and nothing else.

There is no index to keep in step: the folder's listing is the history.
The copy goes through hpcbench._files.write_file, as every output does: a
temporary file in the folder renamed into place (a reader never sees half
a run), a symbolic link at the name is never written through, and an
existing file at the name is never replaced (names do not collide, and if
one did the append is refused, not made to overwrite)."""
from __future__ import annotations

import os
import socket
from datetime import datetime, timezone

from .._files import write_file
from ._errors import HistoryError
from ._names import entry_name, parse_date

NOUN = "history entry"


def _never_ours(head: bytes) -> bool:
    """An existing file at a new entry's name is never replaced."""
    return False


def append_run(text: str, directory: str, date: datetime | None = None, host: str | None = None,
               token: str | None = None) -> str:
    """Write `text` (a results file's text) into the history folder
    `directory` (made, with its parents, when missing) under a new entry's
    name: the run's `date` (default: now), `host` (default: this host) and
    `token` (default: random). Returns the entry's path; HistoryError (one
    line) when the folder cannot be made or written, or the name is taken
    (a file or a link is there already)."""
    if not isinstance(directory, str) or not directory.strip():
        raise HistoryError("the history folder name must not be empty")
    try:
        os.makedirs(directory, exist_ok=True)
    except FileExistsError:
        raise HistoryError(f"the history folder {directory} is not a folder") from None
    except OSError as e:
        raise HistoryError(f"cannot make the history folder {directory}: {e.strerror or e}") from None
    if not os.path.isdir(directory):
        raise HistoryError(f"the history folder {directory} is not a folder")
    name = entry_name(date or datetime.now(timezone.utc), host or socket.gethostname(), token)
    return write_file(os.path.join(directory, name), text, NOUN, _never_ours, error=HistoryError,
                      what="a new history entry", hint="the history keeps every entry it has")


def append_results_text(text: str, directory: str, context_date: object = None) -> str:
    """append_run with the date a results file's context gives (`context_date`,
    ISO 8601; now when it is missing or not a date)."""
    return append_run(text, directory, parse_date(context_date))
