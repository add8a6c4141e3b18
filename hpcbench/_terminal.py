"""What reaches a terminal: text from files is shown, never obeyed.

Results files travel, and any string in one (a host name, a CPU model, a
failed benchmark's error) ends up printed by `show`, `map` or a message. A
terminal obeys escape sequences (clear the screen, set the window title,
hyperlinks), a carriage return overwrites what a line said, and Unicode
bidirectional overrides reorder it: printed raw, a file could forge what
the user reads. So the command line's output streams go through
`SafeStream`, which shows every such character as a visible escape
(`\\x1b`, `\\r`, `\\u202e`), and every character the stream's encoding cannot
carry (PYTHONIOENCODING=ascii, LANG=C) as a backslash escape instead of an
error. Tab and newline pass: the tool's own tables use them. A newline
inside a single name is escaped where the name is formatted (`shown`),
since only there is it known to be one name.
"""
from __future__ import annotations

import re
from typing import Any, TextIO

# C0 controls but tab and newline, DEL, C1 controls, the Unicode line and
# paragraph separators, and the bidirectional marks, embeddings, overrides
# and isolates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_UNSAFE_IN_NAME = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t", "\x1b": "\\x1b"}


def _escape(match: re.Match[str]) -> str:
    c = match.group(0)
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def escape_controls(text: str) -> str:
    """`text` with every control character but tab and newline shown as an escape."""
    return _UNSAFE.sub(_escape, text)


def shown(name: object) -> str:
    """One name from a file, as it may be printed: every control character,
    newline and tab included, shown as an escape, so that it stays on its
    line."""
    return _UNSAFE_IN_NAME.sub(_escape, str(name))


class SafeStream:
    """A text stream whose writes have their control characters escaped
    and their unencodable characters replaced (see the module docstring).
    Everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO):
        self.wrapped = stream
        encoding = getattr(stream, "encoding", None)
        self._encoding = encoding if isinstance(encoding, str) else None

    def write(self, text: str) -> int:
        text = escape_controls(text)
        if self._encoding:
            text = text.encode(self._encoding, "backslashreplace").decode(self._encoding, "replace")
        self.wrapped.write(text)
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)
