"""The one way hpcbench opens files (hpcbench/_files.py) and what it lets
reach a terminal (hpcbench/_terminal.py): known answers for each rule, on
files planted in a temporary folder that must be left as it was."""
import io
import os
import socket

import pytest

from hpcbench._files import check_target, read_file, read_head, write_file
from hpcbench._terminal import SafeStream, escape_controls, shown


def owned(head: bytes) -> bool:
    return head.startswith(b"MINE")


def snapshot(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        p = os.path.join(folder, name)
        st = os.lstat(p)
        if os.path.islink(p):
            out[name] = ("link", os.readlink(p))
        elif os.path.isfile(p):
            with open(p, "rb") as f:
                out[name] = ("file", f.read(), st.st_ino)
        else:
            out[name] = ("other", st.st_mode)
    return out


# ---------------------------------------------------------------- reading

def test_a_regular_file_is_read_whole(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 100)
    assert read_file(str(tmp_path / "f"), "profile", 100) == b"x" * 100


@pytest.mark.parametrize("make, message", [
    (lambda d: str(d / "missing"), "profile not found"),
    (lambda d: str(d), "is a directory"),
    (lambda d: os.mkfifo(d / "fifo") or str(d / "fifo"), "is a FIFO, not a regular file"),
    (lambda d: "/dev/zero", "is a character device, not a regular file"),
    (lambda d: "/dev/urandom", "is a character device, not a regular file"),
    (lambda d: (d / "big").write_bytes(b"x" * 101) and str(d / "big"), "101 bytes, more than the limit of 100"),
    (lambda d: "", "name must not be empty"),
])
def test_what_is_not_a_small_regular_file_is_one_line_at_once(tmp_path, make, message):
    with pytest.raises(ValueError, match=message) as e:
        read_file(make(tmp_path), "profile", 100)
    assert "\n" not in str(e.value)


def test_a_socket_is_refused(tmp_path):
    path = str(tmp_path / "s")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(path)
        with pytest.raises(ValueError, match="cannot read|not a regular file"):
            read_file(path, "profile", 100)


def test_the_caller_chooses_the_error_type(tmp_path):
    class ProfileError(ValueError):
        pass
    with pytest.raises(ProfileError):
        read_file(str(tmp_path / "missing"), "profile", 100, ProfileError)


def test_read_head_is_none_for_what_is_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "f").write_bytes(b"MINE and more")
    assert read_head(str(tmp_path / "fifo")) is None and read_head("/dev/zero") is None
    assert read_head(str(tmp_path / "f"), 4) == b"MINE"


# ---------------------------------------------------------------- writing

def test_a_new_file_and_a_file_of_its_own_kind_are_written(tmp_path):
    path = str(tmp_path / "out")
    assert write_file(path, "MINE 1\n", "-o", owned) == path
    assert write_file(path, "MINE 2\n", "-o", owned) == path
    assert (tmp_path / "out").read_text() == "MINE 2\n"


@pytest.mark.parametrize("plant, message, forced", [
    ("notes", "exists and is not a thing of mine; it is never overwritten: choose another name, move it away or "
              "give --force", True),
    ("link", "is a symbolic link (to victim); it is never written through", False),
    ("dangling link", "is a symbolic link (to nowhere); it is never written through", False),
    ("fifo", "is a FIFO; it is never replaced", False),
    ("device link", "is a symbolic link (to /dev/null)", False),
    ("directory", "must be a file, not a directory", False),
])
def test_what_is_not_ours_is_never_replaced(tmp_path, plant, message, forced):
    (tmp_path / "victim").write_text("precious")
    target = tmp_path / "out"
    if plant == "notes":
        target.write_text("my notes")
    elif plant == "link":
        os.symlink("victim", target)
    elif plant == "dangling link":
        os.symlink("nowhere", target)
    elif plant == "fifo":
        os.mkfifo(target)
    elif plant == "device link":
        os.symlink("/dev/null", target)
    elif plant == "directory":
        target.mkdir()
    before = snapshot(tmp_path)
    with pytest.raises(ValueError) as e:
        write_file(str(target), "MINE\n", "-o", owned, what="a thing of mine")
    assert message in str(e.value) and "\n" not in str(e.value)
    assert snapshot(tmp_path) == before
    if forced:          # --force replaces a regular file, atomically
        write_file(str(target), "MINE\n", "-o", owned, force=True)
        assert target.read_text() == "MINE\n" and (tmp_path / "victim").read_text() == "precious"
    else:               # and nothing else, even forced
        with pytest.raises(ValueError):
            write_file(str(target), "MINE\n", "-o", owned, force=True)
        assert snapshot(tmp_path) == before


def test_a_file_of_another_user_kind_is_checked_by_its_first_bytes_only(tmp_path):
    (tmp_path / "out").write_bytes(b"MINE" + b"\0" * 10_000_000)     # a large own file: only its head is read
    write_file(str(tmp_path / "out"), "MINE small\n", "-o", owned)
    assert (tmp_path / "out").read_text() == "MINE small\n"


def test_check_target_accepts_a_linked_folder(tmp_path):
    """Only the last component must not be a link: a site's $HOME/results
    linked to scratch is an ordinary folder to write in."""
    (tmp_path / "real").mkdir()
    os.symlink("real", tmp_path / "linked")
    full = check_target(str(tmp_path / "linked" / "out"), "-o", owned)
    write_file(full, "MINE\n", "-o", owned)
    assert (tmp_path / "real" / "out").read_text() == "MINE\n"


# ---------------------------------------------------------------- the terminal

@pytest.mark.parametrize("raw, printed", [
    ("\x1b[2J\x1b]0;pwned\x07", "\\x1b[2J\\x1b]0;pwned\\x07"),
    ("ok\rforged", "ok\\rforged"),
    ("a\u202eb", "a\\u202eb"),
    ("\x9b31m", "\\x9b31m"),
    ("tab\tand\nnewline", "tab\tand\nnewline"),
    ("größe 1 µs", "größe 1 µs"),
])
def test_control_characters_are_shown_not_obeyed(raw, printed):
    assert escape_controls(raw) == printed


def test_one_name_stays_on_its_line():
    assert shown("node1\nrank 9=evil slot=0") == "node1\\nrank 9=evil slot=0"
    assert shown("a\tb") == "a\\tb"


def test_the_stream_replaces_what_its_encoding_cannot_carry():
    raw = io.BytesIO()
    text = io.TextIOWrapper(raw, encoding="ascii")
    stream = SafeStream(text)
    stream.write("1 µs \x1b[31m\n")
    text.flush()
    assert raw.getvalue() == b"1 \\xb5s \\x1b[31m\n"
