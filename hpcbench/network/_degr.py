"""The degradation file: ratDist and ratNC as plain text, for the C API
(libhpcbdegr, `hpcb_load_degr_info`) and any other reader.

    hpcbench-degradation 1
    # comment lines start with '#'
    ratDist 4 1.0 1.23 1.5 1.9      <- count, then ratDist[1..count]
    ratNC 2 1.0 1.8                 <- count, then ratNC[1..count]

The grammar is docs/network.md, "The degradation file"; this reader and the
C one (csrc/degr/degr.c) implement it exactly, and tests/test_degr_grammar.py
runs both over one corpus. A count of 0 means the benchmark did not run.
Written by `run` beside the results file (RESULTS.json -> RESULTS.degr) and
by `python -m hpcbench degr RESULTS.json`.
"""
from __future__ import annotations

import math
import numbers
import os
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from .._files import read_file, write_file

MAGIC = "hpcbench-degradation"
VERSION = 1
HEADER = f"{MAGIC} {VERSION}"
DEFAULT_NAME = "hpcbench-results.degr"
#: The largest file either reader accepts (bytes), and the largest count.
MAX_FILE_BYTES = 64 << 20
MAX_COUNT = 1_000_000
#: The table lines, in the order a file has them.
TABLES = ("ratDist", "ratNC")

_SMALLEST = sys.float_info.min        # values must be normal doubles
_BAD_BYTE = re.compile(rb"[^\t\n\x20-\x7e]")
_FIELD = re.compile(r"[^ \t]+")
_COUNT = re.compile(r"0|[1-9][0-9]{0,6}")
_VALUE = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_COMMENT_TEXT = re.compile(r"[\t\x20-\x7e]*")
_BYTE_NAMES = {0x00: "a NUL byte", 0x0D: "a carriage return (CRLF line ends are not allowed)"}


class RatioSource(Protocol):
    """What export_from_results reads: hpcbench.Results has it."""

    @property
    def network_dist_ratios(self) -> dict: ...

    @property
    def network_access_ratios(self) -> dict: ...

    @property
    def path(self) -> str | None: ...

    @property
    def context(self) -> Any: ...


# ---------------------------------------------------------------- writing

def _table_line(name: str, table: Mapping) -> str:
    """`name count v1 .. vcount`, or ValueError naming the rule the table breaks."""
    for key in table:
        if not isinstance(key, numbers.Integral) or isinstance(key, bool):
            raise ValueError(f"{name} keys must be integers, got {key!r}")
    keys = sorted(table)
    if len(keys) > MAX_COUNT:
        raise ValueError(f"{name} may hold at most {MAX_COUNT} values, got {len(keys)}")
    if keys != list(range(1, len(keys) + 1)):
        raise ValueError(f"{name} must hold every value from 1 to {len(keys)}, got keys {_brief(keys)}")
    fields = [name, str(len(keys))]
    for key in keys:
        value = table[key]
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            raise ValueError(f"{name}[{key}] must be a number, got {value!r}")
        try:
            value = float(value)
        except OverflowError:           # an int or Fraction beyond the largest double
            value = math.inf
        if not (math.isfinite(value) and value >= _SMALLEST):
            raise ValueError(f"{name}[{key}] must be finite and at least {_SMALLEST!r} (a normal double), "
                             f"got {value!r}")
        if key == 1 and value != 1.0:
            raise ValueError(f"{name}[1] is the reference and must be 1, got {value!r}")
        fields.append(repr(value))      # the shortest text that reads back as the same double
    return " ".join(fields)


def format_degradation(rat_dist: Mapping, rat_nc: Mapping, comments: Iterable[str] = ()) -> str:
    """The text of a degradation file; ValueError (one line) if a table or a
    comment breaks the grammar."""
    lines = [HEADER]
    for i, comment in enumerate(comments, 1):
        if not isinstance(comment, str) or not _COMMENT_TEXT.fullmatch(comment):
            raise ValueError(f"comment {i} must be one line of printable ASCII (tabs allowed), got {comment!r}")
        lines.append(f"# {comment}")
    lines += [_table_line("ratDist", rat_dist), _table_line("ratNC", rat_nc)]
    text = "\n".join(lines) + "\n"
    if len(text) > MAX_FILE_BYTES:
        raise ValueError(f"the degradation file would be {len(text)} bytes, more than the limit of {MAX_FILE_BYTES}")
    return text


def is_degradation_text(head: bytes) -> bool:
    """True if a file's first bytes start like a degradation file."""
    return head.startswith(f"{MAGIC} ".encode())


def write_degradation_file(path: str, rat_dist: Mapping, rat_nc: Mapping, comments: Iterable[str] = (),
                           force: bool = False) -> None:
    """Write ratDist and ratNC ({key: ratio}, keys 1..n, ratio[1] = 1) and
    comment lines; ValueError (one line) before anything is written if they
    break the grammar, or if `path` is a link, not a regular file, or (unless
    `force`) an existing file that is not a degradation file
    (hpcbench._files). Atomic write (temporary file, then rename)."""
    write_file(path, format_degradation(rat_dist, rat_nc, comments), "degradation file", is_degradation_text,
               force=force, what="an hpcbench degradation file")


# ---------------------------------------------------------------- reading

def _brief(thing: object, limit: int = 40) -> str:
    """repr(thing), cut short: a damaged line may be megabytes long."""
    text = repr(thing)
    return text if len(text) <= limit else text[:limit] + "..."


def _read_bytes(path: str) -> bytes:
    return read_file(path, "degradation file", MAX_FILE_BYTES)


def _lines(path: str, data: bytes, header: str = HEADER, noun: str = "a degradation file") -> list[str]:
    """The lines of the file (without their LF) once its bytes are allowed.
    The lexical rules of both text formats (this one and the parameters
    file, _params.py); `header` and `noun` name the format in the message
    for an empty file."""
    bad = _BAD_BYTE.search(data)
    if bad:
        code = data[bad.start()]
        what = _BYTE_NAMES.get(code, f"byte 0x{code:02x} (only tab, LF and printable ASCII are allowed)")
        line = data.count(b"\n", 0, bad.start()) + 1
        raise ValueError(f"{path}: line {line}: {what}")
    if not data:
        raise ValueError(f"{path}: empty file ({noun} starts with '{header}')")
    lines = data.decode("ascii").split("\n")
    if lines[-1]:
        raise ValueError(f"{path}: line {len(lines)}: no LF at the end of the file (truncated?)")
    return lines[:-1]


def _count(name: str, text: str, where: str) -> int:
    if not _COUNT.fullmatch(text):
        if text.isdigit() and not text.startswith("0"):
            raise ValueError(f"{where}: {name} count {_brief(text)} is more than {MAX_COUNT}")
        raise ValueError(f"{where}: {name} count must be digits without sign or leading zero, got {_brief(text)}")
    count = int(text)
    if count > MAX_COUNT:
        raise ValueError(f"{where}: {name} count {count} is more than {MAX_COUNT}")
    return count


def _value(text: str, where: str) -> float:
    if not _VALUE.fullmatch(text):
        raise ValueError(f"{where} is not a decimal number (digits, optional .digits, optional exponent; "
                         f"no sign, hex, inf or nan): {_brief(text)}")
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{where} is too large for a double: {_brief(text)}")
    if value < _SMALLEST:
        raise ValueError(f"{where} is 0 or below the smallest normal double {_SMALLEST!r}: {_brief(text)}")
    return value


def _table(fields: list, where: str) -> dict:
    name = fields[0]
    if len(fields) < 2:
        raise ValueError(f"{where}: {name} has no count")
    count = _count(name, fields[1], where)
    if len(fields) - 2 != count:
        raise ValueError(f"{where}: {name} count {count} does not match the {len(fields) - 2} value(s) that follow")
    table = {i: _value(text, f"{where}: {name}[{i}]") for i, text in enumerate(fields[2:], 1)}
    if table and table[1] != 1.0:
        raise ValueError(f"{where}: {name}[1] is the reference and must be 1, got {fields[2]}")
    return table


def _unexpected(fields: list, seen: int, where: str) -> ValueError:
    """The error for a line that is not the one expected after `seen` of
    header, ratDist, ratNC."""
    name = fields[0]
    if seen == 0:
        if name == MAGIC and len(fields) == 2 and _COUNT.fullmatch(fields[1]):
            return ValueError(f"{where}: version {fields[1]} is not supported (this hpcbench reads version {VERSION})")
        return ValueError(f"{where}: expected the header '{HEADER}', got {_brief(' '.join(fields))}")
    if name == MAGIC or name in TABLES[:seen - 1]:
        return ValueError(f"{where}: a second {'header' if name == MAGIC else name} line")
    if seen == 3:
        return ValueError(f"{where}: nothing but comments may follow the ratNC line, got {_brief(name)}")
    if name in TABLES:
        return ValueError(f"{where}: {name} before {TABLES[seen - 1]} (the order is ratDist, then ratNC)")
    return ValueError(f"{where}: expected the {TABLES[seen - 1]} line, got {_brief(name)}")


def read_degradation_file(path: str) -> tuple[dict[int, float], dict[int, float]]:
    """(ratDist, ratNC) as {key: ratio}; ValueError with one line naming the
    path, the line and the broken rule if the file is missing or breaks the
    grammar."""
    data = _read_bytes(path)
    lines = _lines(path, data)
    tables: list = []
    seen = 0                    # lines seen of: header, ratDist, ratNC
    for number, line in enumerate(lines, 1):
        fields = _FIELD.findall(line)
        if not fields or fields[0].startswith("#"):
            continue
        where = f"{path}: line {number}"
        if seen == 0 and fields == [MAGIC, str(VERSION)]:
            pass
        elif 0 < seen < 3 and fields[0] == TABLES[seen - 1]:
            tables.append(_table(fields, where))
        else:
            raise _unexpected(fields, seen, where)
        seen += 1
    if seen < 3:
        missing = "header" if seen == 0 else f"{TABLES[seen - 1]} line"
        raise ValueError(f"{path}: line {len(lines)}: the file ends before the {missing}")
    return tables[0], tables[1]


def degradation_path(results_path: str) -> str:
    """RESULTS.json -> RESULTS.degr (beside it)."""
    root, ext = os.path.splitext(results_path)
    return (root if ext == ".json" else results_path) + ".degr"


def _ascii(text: str) -> str:
    """One line of printable ASCII: anything else as a backslash escape."""
    return text.encode("unicode_escape").decode("ascii")


def export_from_results(results: RatioSource, path: str, force: bool = False) -> tuple:
    """Write the degradation file of a Results object (write_degradation_file,
    `force` as there); returns (ratDist, ratNC)."""
    rat_dist, rat_nc = results.network_dist_ratios, results.network_access_ratios
    if not rat_dist and not rat_nc:
        raise ValueError("these results have neither a distance nor a network-access benchmark that finished")
    comments = [f"from {results.path or 'a results file'} of {results.context.get('date', '?')}",
                f"hosts: {', '.join(results.context.get('hosts', []))}"]
    write_degradation_file(path, rat_dist, rat_nc, [_ascii(c) for c in comments], force=force)
    return rat_dist, rat_nc
