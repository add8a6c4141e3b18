"""The history's own error: a history folder that cannot be read or
written, or holds no run (an InputError: one line, exit status 2)."""
from __future__ import annotations

from .._errors import InputError


class HistoryError(InputError):
    """A history folder cannot be used: missing, not a folder, no run in it,
    or an entry that cannot be written; one line naming the path.
    `skipped`: the files of the folder that could not be read, (name, why)."""

    def __init__(self, message: str, skipped: list[tuple[str, str]] | None = None):
        super().__init__(message)
        self.skipped = list(skipped or [])
