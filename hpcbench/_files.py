"""The one way hpcbench opens files, for reading and for writing.

Results files, profiles, references and degradation files travel: they are
mailed, attached to tickets and kept in shared folders, and the paths a
command is given may have been planted. So every reader and writer comes
through here, and the rules live in one place:

Reading (`read_file`, `read_head`)
  * regular files only: the file is opened with O_NONBLOCK and checked with
    fstat before a byte is read, so a FIFO, a device or a socket is refused
    instead of blocking or filling memory;
  * a size bound, said in the error; a file that grows while it is read
    stops at the bound;
  * symbolic links are followed (reading through a link harms nothing).

Writing (`check_target`, `write_file`)
  * the final path component must not be a symbolic link: a link planted
    where an output is written would send the write elsewhere;
  * an existing target must be a regular file (never a device, a FIFO, a
    socket or a directory, not even with --force) and of the tool's own kind
    (the caller's `owned` test on its first bytes), unless `force`;
  * the new content is written to a temporary file in the same folder and
    renamed over the target (_atomic.py): the old file is never truncated, a
    reader sees the old file or the new one;
  * the check runs again just before the rename, so a target swapped after
    the command started is refused too.

Errors are one line of the caller's exception type (a ValueError subclass),
naming the file by the noun the caller gives ("results file", "report",
"-o").
"""
from __future__ import annotations

import os
import stat
from collections.abc import Callable

from ._atomic import atomic_write_bytes

#: Bytes read to recognise a file's kind.
HEAD_BYTES = 4096
_FORCE_HINT = "choose another name, move it away or give --force"

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"))


def kind_of(mode: int) -> str:
    """'a FIFO', 'a directory', ... for a file mode that is not a regular file."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _open_regular(path: str, noun: str, error: type[ValueError]) -> tuple[int, os.stat_result]:
    """(fd, stat) of the regular file `path`; `error` otherwise."""
    if not isinstance(path, str) or not path:
        raise error(f"the {noun} name must not be empty")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError:
        raise error(f"{noun} not found: {path}") from None
    except IsADirectoryError:
        raise error(f"the {noun} {path} is a directory") from None
    except (OSError, ValueError) as e:
        raise error(f"cannot read the {noun} {path}: {getattr(e, 'strerror', None) or e}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise error(f"the {noun} {path} is {kind_of(info.st_mode)}, not a regular file")
    return fd, info


def read_file(path: str, noun: str, limit: int, error: type[ValueError] = ValueError) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them, or
    `error` (one line): missing, unreadable, not a regular file, larger than
    `limit`, or more than this process can hold."""
    fd, info = _open_regular(path, noun, error)
    with os.fdopen(fd, "rb") as f:
        if info.st_size > limit:
            raise error(f"the {noun} {path} is {_size(info.st_size)}, more than the limit of {_size(limit)}")
        try:
            # The size fstat gave, plus one byte to see whether the file grew
            # (then on, in 1 MiB reads up to the bound): asking for `limit`
            # bytes at once would reserve that much memory whatever the size.
            data = f.read(info.st_size + 1)
            while len(data) <= limit and len(data) > info.st_size:
                more = f.read(min(1 << 20, limit + 1 - len(data)))
                if not more:
                    break
                data += more
        except MemoryError:
            raise error(f"not enough memory to read the {noun} {path} ({_size(info.st_size)})") from None
        except OSError as e:
            raise error(f"cannot read the {noun} {path}: {e.strerror or e}") from None
    if len(data) > limit:
        raise error(f"the {noun} {path} grew beyond the limit of {_size(limit)} while it was read")
    return data


def read_head(path: str, size: int = HEAD_BYTES) -> bytes | None:
    """The first `size` bytes of the regular file `path`, or None if it is
    not one or cannot be read (used to recognise a file's kind)."""
    try:
        fd, _ = _open_regular(path, "file", ValueError)
    except ValueError:
        return None
    with os.fdopen(fd, "rb") as f:
        try:
            return f.read(size)
        except OSError:
            return None


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.3g} {unit}"
    return f"{n} bytes"


def check_target(path: str, noun: str, owned: Callable[[bytes], bool] | None, force: bool = False,
                 error: type[ValueError] = ValueError, what: str = "", hint: str = _FORCE_HINT) -> str:
    """The absolute path an output called `noun` may be written to, or
    `error` (one line): no name, a directory, a missing or read-only folder,
    a symbolic link, an existing file that is not a regular file, or, unless
    `force`, a regular file whose first bytes `owned` does not recognise
    (`what` names the kind in the message, e.g. "an hpcbench report";
    `owned=None` accepts any regular file; `hint` ends that message: say
    --force only where the command has it)."""
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
    try:
        info = os.lstat(full)
    except FileNotFoundError:
        return full
    except OSError as e:
        raise error(f"cannot use {path} for the {noun}: {e.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise error(f"the {noun} {path} is a symbolic link (to {os.readlink(full)}); it is never written "
                    "through: name the file itself")
    if not stat.S_ISREG(info.st_mode):
        raise error(f"the {noun} {path} is {kind_of(info.st_mode)}; it is never replaced: choose another name")
    if owned is not None and not force:
        head = read_head(full)
        if head is None or not owned(head):
            kind = what or f"a file hpcbench wrote as {noun}"
            raise error(f"{path} exists and is not {kind}; it is never overwritten: {hint}")
    return full


def write_file(path: str, text: str | bytes, noun: str, owned: Callable[[bytes], bool] | None, force: bool = False,
               error: type[ValueError] = ValueError, what: str = "", hint: str = _FORCE_HINT) -> str:
    """Check `path` as check_target does, then replace it atomically with
    `text` (a str is written as UTF-8); returns the absolute path. `error` (one line) if the
    target is refused or cannot be written; the old file is then untouched."""
    full = check_target(path, noun, owned, force, error, what, hint)
    try:
        atomic_write_bytes(full, text.encode("utf-8") if isinstance(text, str) else text)
    except OSError as e:
        raise error(f"cannot write the {noun} {path}: {e.strerror or e}") from None
    return full
