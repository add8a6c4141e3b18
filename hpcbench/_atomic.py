"""Writing a file so that readers see the old version or the new one, never
half of either, and no temporary file outlives the writer.

The new text is written to an unnamed file in the target's folder
(O_TMPFILE, Linux), flushed to disk, given a unique name and renamed over
the target; a kill before the rename leaves nothing behind. Where the
filesystem has no O_TMPFILE, the temporary file is named
".NAME.PID.N.tmp" from the start; `sweep_temporaries` (called by every run
before it writes) removes those whose process is gone.
"""
from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re

_COUNTER = itertools.count()
_TMP = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.\d+\.tmp$")


def _temporary_name(path: str) -> str:
    return f".{os.path.basename(path)}.{os.getpid()}.{next(_COUNTER)}.tmp"


def _mode() -> int:
    """What any file this process creates gets (mkstemp would make it private)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fsync(fd)


def atomic_write_text(path: str, text: str) -> None:
    """Replace `path` with `text` (UTF-8) atomically; on any failure the old
    file is untouched and no temporary file remains (OSError propagates)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Replace `path` with `data` atomically, as atomic_write_text does."""
    folder = os.path.dirname(os.path.abspath(path))
    name = _temporary_name(path)
    dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fd = _open_unnamed(folder)
        if fd is None:          # no O_TMPFILE here: a named temporary, swept if we are killed
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _mode(), dir_fd=dir_fd)
            named = True
        else:
            named = False
        try:
            _write_all(fd, data)
            if not named:
                os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=dir_fd, follow_symlinks=True)
                named = True
            os.replace(name, os.path.basename(path), src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            named = False
        finally:
            os.close(fd)
            if named:
                _unlink_quietly(name, dir_fd)
    finally:
        os.close(dir_fd)


def _open_unnamed(folder: str) -> int | None:
    """An O_TMPFILE descriptor in `folder`, or None where the system or the
    filesystem has none (other errors, such as a full disk, propagate)."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        fd = os.open(folder, flag | os.O_WRONLY, _mode())
    except OSError as e:
        if e.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
            return None
        raise
    os.fchmod(fd, _mode())
    return fd


def _unlink_quietly(name: str, dir_fd: int) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=dir_fd)


def sweep_temporaries(path: str) -> list[str]:
    """Remove the temporary files of writers of `path` that no longer run
    (killed during a save); returns the names removed."""
    folder = os.path.dirname(os.path.abspath(path))
    removed: list[str] = []
    try:
        entries = os.listdir(folder)
    except OSError:
        return removed
    for entry in entries:
        m = _TMP.match(entry)
        if m and m.group("name") == os.path.basename(path) and not _alive(int(m.group("pid"))):
            try:
                os.unlink(os.path.join(folder, entry))
                removed.append(entry)
            except OSError:
                pass
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True         # someone else's process
    return True
