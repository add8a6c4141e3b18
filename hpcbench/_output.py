"""The results file of a run, so that no result is ever lost.

* Checked before anything is measured: a path that names a file in a folder
  this process can write; an existing file must be an hpcbench results file
  (anything else is never overwritten).
* Locked: one run at a time writes a path. An advisory lock (flock) on a
  hidden ".NAME.lock" beside it; a second run on the same path is refused
  with one line rather than made to wait (a batch job should not sit idle).
  A lock file left by a killed run is free again and is reused.
* Written for the first time when the first benchmark finishes, never
  before: a run killed early, or whose first benchmark fails, leaves the old
  file as it was. At that first write an existing results file becomes
  NAME.bak (one generation is kept), then the new file takes its place;
  each write is atomic (_atomic.py), so the path always holds a complete file.
* A save that fails (a full disk) keeps the last good file; the run goes on
  and the next save tries again; `unsaved` says what is not on disk.
Only rank 0 of a run uses this.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat

from ._atomic import atomic_write_text, sweep_temporaries

#: Bytes of an existing file read to recognise a results file.
_HEAD = 4096


class OutputError(ValueError):
    """The output path cannot be used; one line."""


def check_file_target(path: str, noun: str, error: type[ValueError] = OutputError) -> str:
    """The absolute path of the file `path` names in a folder this process
    can write, or `error` (one line, the file called `noun`: "results file",
    "report") naming what is wrong: no name, a directory, a missing or
    read-only folder. What may be replaced at the path is the caller's rule."""
    if not isinstance(path, str) or not path.strip():
        raise error(f"the {noun} name must not be empty")
    if path.endswith(os.sep) or os.path.isdir(path):
        raise error(f"the {noun} must be a file, not a directory: {path}")
    full = os.path.abspath(path)
    folder = os.path.dirname(full)
    if not os.path.isdir(folder):
        raise error(f"the folder of the {noun} does not exist: {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise error(f"cannot write the {noun} {path}: the folder {folder} is not writable")
    return full


def check_output_path(path: str) -> str:
    """The absolute path, or OutputError naming what is wrong with it."""
    full = check_file_target(path, "results file")
    if os.path.lexists(full):
        _check_existing(full, path)
    return full


def _check_existing(full: str, path: str) -> None:
    """An existing output must be an hpcbench results file (it becomes NAME.bak)."""
    try:
        info = os.stat(full)
    except OSError as e:
        raise OutputError(f"cannot use {path} for results: {e.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise OutputError(f"{path} exists and is not a regular file; choose another results file")
    if not is_results_file(full):
        raise OutputError(f"{path} exists and is not an hpcbench results file; it is never overwritten: "
                          "choose another results file or move it away")


def is_results_file(path: str) -> bool:
    """True if the file starts like an hpcbench results file (the first
    member of the JSON object is "format": "hpcbench-results", as every
    version writes it)."""
    try:
        with open(path, "rb") as f:
            head = f.read(_HEAD)
    except OSError:
        return False
    text = head.decode("utf-8", errors="replace").lstrip()
    if not text.startswith("{"):
        return False
    try:   # the first member alone: '{ "format": "hpcbench-results",'
        first = text[1:].split(",", 1)[0]
        key, value = (json.loads(part) for part in first.split(":", 1))
    except (ValueError, TypeError):
        return False
    return key == "format" and value == "hpcbench-results"


class OutputFile:
    """A run's results file: see the module docstring."""

    def __init__(self, path: str):
        self.shown = path                          #: as the user wrote it, for messages
        self.path = check_output_path(path)
        self.backup = self.path + ".bak"
        self._lock_path = os.path.join(os.path.dirname(self.path), f".{os.path.basename(self.path)}.lock")
        self._lock_fd: int | None = None
        self._written = False
        self.unsaved: list = []                    #: benchmark names measured but not yet on disk
        self.error: str | None = None              #: why the last save failed

    def acquire(self) -> None:
        """Lock the path for this run and sweep what killed runs left; OutputError if another run holds it."""
        try:
            fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as e:
            raise OutputError(f"cannot lock {self.shown}: {e.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise OutputError(f"another hpcbench run (pid {holder}) is writing {self.shown}; wait for it or "
                                  "choose another results file") from None
            raise OutputError(f"cannot lock {self.shown}: {e.strerror}") from None
        with contextlib.suppress(OSError):      # the pid is for the message only: a full disk may refuse it
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
        self._lock_fd = fd
        sweep_temporaries(self.path)
        sweep_temporaries(self.backup)

    def release(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._lock_path)
            os.close(self._lock_fd)       # closing releases the lock
            self._lock_fd = None

    def __enter__(self) -> OutputFile:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def save(self, text: str, name: str) -> bool:
        """Write the whole results text after benchmark `name` finished.
        False if it could not be written (`error` says why); the last good
        file stays, and what is not on disk is listed in `unsaved`."""
        self.unsaved.append(name)
        try:
            if not self._written:
                self._keep_backup()
            atomic_write_text(self.path, text)
        except OSError as e:
            self.error = f"{e.strerror or e}"
            return False
        self._written = True
        self.unsaved = []
        self.error = None
        return True

    def _keep_backup(self) -> None:
        """Before the first write: an existing results file becomes NAME.bak
        (hard-linked then renamed into place, so that a kill at any moment
        leaves the old results at NAME or at NAME.bak)."""
        if not os.path.exists(self.path):
            return
        folder = os.path.dirname(self.path)
        temporary = os.path.join(folder, f".{os.path.basename(self.backup)}.{os.getpid()}.0.tmp")
        os.link(self.path, temporary)
        try:
            os.replace(temporary, self.backup)
        except OSError:
            os.unlink(temporary)
            raise
