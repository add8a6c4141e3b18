"""The results file of a run, so that no result is ever lost and no other
file is ever harmed.

* Checked before anything is measured (hpcbench._files.check_target): a
  path that names a file in a folder this process can write, not a
  symbolic link; an existing file, and an existing NAME.bak, must be
  hpcbench results files (anything else is never overwritten).
* Locked: one run at a time writes a path. An advisory lock (flock) on a
  hidden ".NAME.lock" beside it; a second run on the same path is refused
  with one line rather than made to wait (a batch job should not sit idle).
  The lock file is opened without following links and must be a plain
  file with one name (a link or hard link planted there is refused, so the
  pid written into it can land nowhere else). It lives in the results
  file's folder, so every path to that folder (a linked folder, "..", a
  bind mount) meets the same lock; a link to the results file itself is
  refused as an output. The results file's own inode cannot carry the lock:
  every atomic save replaces it. A lock file left by a killed run is free
  again and is reused.
* Written for the first time when the first benchmark finishes, never
  before: a run killed early, or whose first benchmark fails, leaves the old
  file as it was. At that first write an existing results file becomes
  NAME.bak (one generation is kept), then the new file takes its place;
  each write is atomic (_atomic.py), so the path always holds a complete file.
* A save that fails (a full disk, a path swapped for a link) keeps the last
  good file; the run goes on and the next save tries again; `unsaved` says
  what is not on disk, `on_disk()` what is, and the whole text goes to a
  fallback file (the working folder, else $TMPDIR, else $HOME) so that
  nothing measured is lost.
Only rank 0 of a run uses this.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
from collections.abc import Iterator

from ._atomic import atomic_write_text, sweep_temporaries
from ._errors import OutputError
from ._files import check_target, kind_of, read_head


def check_output_path(path: str) -> str:
    """The absolute path, or OutputError naming what is wrong with it: an
    existing file must be an hpcbench results file, and so must NAME.bak,
    which it becomes."""
    full = check_target(path, "results file", looks_like_results, error=OutputError, what=_KIND, hint=_HINT)
    backup = full + ".bak"
    if os.path.lexists(backup):
        check_target(backup, "results backup", looks_like_results, error=OutputError, what=_KIND, hint=_HINT)
    return full


_KIND = "an hpcbench results file"
_HINT = "choose another results file or move it away"


def looks_like_results(head: bytes) -> bool:
    """True if `head`, the first bytes of a file, start like an hpcbench
    results file (the first member of the JSON object is "format":
    "hpcbench-results", as every version writes it)."""
    text = head.decode("utf-8", errors="replace").lstrip()
    if not text.startswith("{"):
        return False
    try:   # the first member alone: '{ "format": "hpcbench-results",'
        first = text[1:].split(",", 1)[0]
        key, value = (json.loads(part) for part in first.split(":", 1))
    except (ValueError, TypeError):
        return False
    return bool(key == "format" and value == "hpcbench-results")


def is_results_file(path: str) -> bool:
    """True if `path` is a regular file that starts like an hpcbench results file."""
    head = read_head(path)
    return head is not None and looks_like_results(head)


class OutputFile:
    """A run's results file: see the module docstring."""

    def __init__(self, path: str):
        self.shown = path                          #: as the user wrote it, for messages
        self.path = check_output_path(path)
        self.backup = self.path + ".bak"
        self._lock_path = os.path.join(os.path.dirname(self.path), f".{os.path.basename(self.path)}.lock")
        self._lock_fd: int | None = None
        self._had_old = os.path.lexists(self.path)
        self._written = False
        self.saved: list[str] = []                      #: benchmark names on disk at `path`
        self.unsaved: list[str] = []                    #: benchmark names measured but not yet on disk
        self.error: str | None = None              #: why the last save failed
        self.fallback: str | None = None           #: where the results went when `path` could not take them

    def acquire(self) -> None:
        """Lock the path for this run and sweep what killed runs left; OutputError if another run holds it."""
        fd = self._open_lock()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise OutputError(f"another hpcbench run (pid {_printable(holder)}) is writing {self.shown}; wait "
                                  "for it or choose another results file") from None
            raise OutputError(f"cannot lock {self.shown}: {e.strerror}") from None
        info = os.fstat(fd)
        if info.st_uid == os.geteuid():          # the pid is for the message only: a full disk may refuse it
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
                os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._lock_fd = fd
        sweep_temporaries(self.path)
        sweep_temporaries(self.backup)

    def _open_lock(self) -> int:
        """The lock file, opened without following a link planted at its
        path and refused unless it is a plain file with one name: a link or
        a hard link there would make the pid written into it land in
        someone else's file. A lock file another user left (read-only to
        us) still locks: flock needs no write access."""
        base = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
        try:
            try:
                fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT | base, 0o644)
            except PermissionError:
                fd = os.open(self._lock_path, os.O_RDONLY | base)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise OutputError(f"cannot lock {self.shown}: {self._lock_path} is a symbolic link; a lock file is "
                                  "never followed: remove it") from None
            raise OutputError(f"cannot lock {self.shown}: {e.strerror}") from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            os.close(fd)
            what = kind_of(info.st_mode) if not stat.S_ISREG(info.st_mode) else "a file with other names (a hard link)"
            raise OutputError(f"cannot lock {self.shown}: {self._lock_path} is {what}, not a lock file hpcbench "
                              "made: remove it")
        return fd

    def release(self) -> None:
        if self._lock_fd is not None:
            # Remove the lock file only if the path still names it: a file
            # put there since is not ours to delete.
            with contextlib.suppress(OSError):
                mine, there = os.fstat(self._lock_fd), os.lstat(self._lock_path)
                if (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino):
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
        file stays, what is not on disk is listed in `unsaved`, and the text
        goes to a fallback place (`fallback`, see fallback_folders)."""
        with _signals_held():
            return self._save(text, name)

    def _save(self, text: str, name: str) -> bool:
        self.unsaved.append(name)
        try:
            # Checked again at every save: a path swapped for a link or a
            # device since the run started is refused, not written through.
            check_output_path(self.path)
            if not self._written:
                self._keep_backup()
            atomic_write_text(self.path, text)
        except (OSError, OutputError) as e:
            self.error = _reason(e)
            self._save_elsewhere(text)
            return False
        self._written = True
        self.saved += self.unsaved
        self.unsaved = []
        self.error = None
        return True

    def on_disk(self) -> str:
        """What `path` holds now, for messages: this run's benchmarks, the
        previous results or nothing."""
        if self._written:
            return f"{self.shown} holds {len(self.saved)} benchmark(s) of this run ({', '.join(self.saved)})"
        if self._had_old:
            return f"{self.shown} still holds the previous results, unchanged (nothing of this run)"
        return f"nothing of this run was written to {self.shown}"

    def _save_elsewhere(self, text: str) -> None:
        """The results text to the first fallback folder that takes it (one
        file per run, replaced at each failed save)."""
        name = self.fallback and os.path.basename(self.fallback) or \
            f"hpcbench-unsaved-{os.getpid()}-{os.path.basename(self.path)}"
        for folder in fallback_folders(os.path.dirname(self.path)):
            target = os.path.join(folder, name)
            try:
                check_target(target, "results file", looks_like_results, error=OutputError, what=_KIND, hint=_HINT)
                atomic_write_text(target, text)
            except (OSError, OutputError):
                continue
            self.fallback = target
            return
        self.fallback = None

    def _keep_backup(self) -> None:
        """Before the first write: an existing results file becomes NAME.bak
        (hard-linked then renamed into place, so that a kill at any moment
        leaves the old results at NAME or at NAME.bak)."""
        if not os.path.lexists(self.path):
            return
        folder = os.path.dirname(self.path)
        temporary = os.path.join(folder, f".{os.path.basename(self.backup)}.{os.getpid()}.0.tmp")
        os.link(self.path, temporary, follow_symlinks=False)
        try:
            os.replace(temporary, self.backup)
        except OSError:
            os.unlink(temporary)
            raise


class _Saving:
    """Whether a save is in progress, and a stop that arrived during it."""
    depth = 0
    pending: BaseException | None = None


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """A stop (stop_or_defer) that arrives during a save takes effect after
    it: the run's stop message (cli/_run.py) then says exactly what the file
    holds. (Blocking the signal with pthread_sigmask would not do: another
    thread may take a process-directed signal, and Python then runs the
    handler in the main thread at once.)"""
    _Saving.depth += 1
    try:
        yield
    finally:
        _Saving.depth -= 1
        if _Saving.depth == 0 and _Saving.pending is not None:
            stop, _Saving.pending = _Saving.pending, None
            raise stop


def stop_or_defer(stop: BaseException) -> None:
    """Raise `stop` now, or at the end of the save in progress."""
    if _Saving.depth:
        _Saving.pending = stop
        return
    raise stop


def fallback_folders(target_folder: str) -> list[str]:
    """Where results go when their own folder cannot take them: the run's
    working folder, then $TMPDIR (or the system's temporary folder), then
    $HOME; the target's own folder is left out (it just failed)."""
    import tempfile
    seen = {os.path.realpath(target_folder)}
    out: list[str] = []
    for folder in (os.getcwd(), tempfile.gettempdir(), os.path.expanduser("~")):
        real = os.path.realpath(folder)
        if real not in seen and os.path.isdir(real):
            seen.add(real)
            out.append(folder)
    return out


def _reason(e: Exception) -> str:
    if isinstance(e, OSError):
        return f"{e.strerror or e}"
    return str(e)


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)
