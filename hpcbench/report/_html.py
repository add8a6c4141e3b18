"""The few HTML pieces the report is built from. Every text that comes from
a results file goes through `esc`: a host name or an error message is data,
never markup."""
from __future__ import annotations

import html
import re
from collections.abc import Sequence

#: A table row: its cells' HTML, or (cells, the row's class).
Row = list[str] | tuple[list[str], str | None]


def esc(text: object) -> str:
    """Text as HTML (quotes too, so it may sit in an attribute)."""
    return html.escape(str(text), quote=True)


def tag(name: str, content: str = "", **attrs: object) -> str:
    """<name attrs>content</name>; attribute names take `_` for `-` and a
    trailing `_` for Python keywords (class_), values are escaped, None
    values left out."""
    text = "".join(f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in attrs.items() if v is not None)
    return f"<{name}{text}>{content}</{name}>"


def items(lines: Sequence[str], class_: str | None = None) -> str:
    """A list of text lines as <ul>."""
    return tag("ul", "".join(tag("li", esc(line)) for line in lines), class_=class_)


def rows(cells: Sequence[Row], header: Sequence[str] | None = None, class_: str | None = None) -> str:
    """A table of already-escaped cell HTML; each row a list of cells, or
    (cells, row class)."""
    head = tag("thead", tag("tr", "".join(tag("th", h) for h in header))) if header else ""
    body: list[str] = []
    for row in cells:
        values, row_class = row if isinstance(row, tuple) else (row, None)
        body.append(tag("tr", "".join(tag("td", v) for v in values), class_=row_class))
    return tag("table", head + tag("tbody", "".join(body)), class_=class_)


def slug(text: str) -> str:
    """A fragment identifier from text (letters, digits and dashes)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"
