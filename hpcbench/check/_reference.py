"""The hand-written reference file: the headline figures a site expects of
a machine, each with a tolerance (TOML, read with the standard tomllib, or tomli on Python 3.10;
docs/check.md shows one). Every error names the line of the file it is on,
in one line (CheckError, an InputError: exit status 2).

    [defaults]
    tolerance = "5%"

    [[figure]]
    benchmark = "stream"
    label = "Triad, all cores"
    node = "node01"          # optional: every node's record of the benchmark
    value = "45 GB/s"        # or value = 4.5e10 with unit = "bytes/s"
    tolerance = "10%"        # optional: the [defaults] one, else --min-change
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .. import _registry
from .._errors import InputError
from .._files import read_file
from ._units import parse_share, parse_value

#: The largest reference file read: far above any hand-written one.
MAX_BYTES = 4 << 20
_FIGURE_KEYS = ("benchmark", "label", "node", "value", "unit", "tolerance")
_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")


class CheckError(InputError):
    """A reference or results file `check` cannot use: one line naming the file (and the line in it)."""


@dataclass(frozen=True)
class ReferenceFigure:
    """One expected figure: benchmark, node (None: every node), label,
    value in `unit` (a headline unit), tolerance (a share, None: the
    default), and the line of the file that starts it."""
    benchmark: str
    node: str | None
    label: str
    value: float
    unit: str | None
    tolerance: float | None
    line: int


def _key_lines(text: str) -> tuple[list[int], list[dict[str, int]], dict[str, int]]:
    """Where things are, since tomllib does not say: the line of each
    [[figure]] header, each figure's key lines, and the [defaults] keys' lines."""
    headers: list[int] = []
    keys: list[dict[str, int]] = []
    defaults: dict[str, int] = {}
    current: dict[str, int] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line) if line.lstrip().startswith("[") else None
        if header:
            if header.group(1) == "figure":
                headers.append(number)
                keys.append({"": number})
                current = keys[-1]
            else:
                current = defaults if header.group(1) == "defaults" else None
            continue
        key = _KEY.match(line)
        if key and current is not None:
            current.setdefault(key.group(1), number)
    return headers, keys, defaults


def _toml_module() -> ModuleType:
    """tomllib (Python 3.11 on), else tomli, its back-port (Python 3.10)."""
    try:
        import tomllib
        return tomllib
    except ImportError:
        try:
            import tomli  # type: ignore[import-not-found, unused-ignore]
            return tomli  # type: ignore[no-any-return, unused-ignore]
        except ImportError:
            raise CheckError("reading a reference file needs Python 3.11 or later, or the tomli package "
                             "(pip install tomli)") from None


def _toml(text: str, path: str) -> dict[str, Any]:
    toml = _toml_module()
    try:
        data: dict[str, Any] = toml.loads(text)
        return data
    except toml.TOMLDecodeError as e:
        # tomllib says where in its message only ("... (at line 3, column 7)"): move it to the front.
        where = re.search(r"\s*\(at line (\d+), column \d+\)", str(e))
        line = f", line {where.group(1)}" if where else ""
        what = str(e).replace(where.group(0), "") if where else str(e)
        raise CheckError(f"{path}{line}: not a reference file (not valid TOML: {what})") from None


def read_reference(path: str) -> tuple[list[ReferenceFigure], float | None]:
    """(the figures of the reference file `path`, its default tolerance or
    None). CheckError (one line, naming the line) for anything malformed."""
    try:
        text = read_file(path, "reference file", MAX_BYTES, CheckError).decode("utf-8")
    except UnicodeDecodeError:
        raise CheckError(f"{path}: not a reference file (not UTF-8 text)") from None
    data = _toml(text, path)
    headers, keys, default_lines = _key_lines(text)
    unknown = [k for k in data if k not in ("defaults", "figure")]
    if unknown:
        raise CheckError(f"{path}: unknown table or key {unknown[0]!r} (a reference file has [defaults] and "
                         "[[figure]] tables)")
    default = _defaults(data.get("defaults", {}), path, default_lines)
    tables = data.get("figure", [])
    if not isinstance(tables, list) or not tables:
        raise CheckError(f"{path}: no [[figure]] tables: the reference file lists no figures")
    figures: list[ReferenceFigure] = []
    seen: dict[tuple[str, str | None, str], int] = {}
    for i, table in enumerate(tables):
        lines = keys[i] if i < len(keys) else {"": 0}
        figure = _figure(table, lines, path)
        key = (figure.benchmark, figure.node, figure.label)
        if key in seen:
            raise CheckError(f"{path}, line {figure.line}: the figure {figure.label!r} of {figure.benchmark} is "
                             f"already given on line {seen[key]}")
        seen[key] = figure.line
        figures.append(figure)
    return figures, default


def _defaults(table: Any, path: str, lines: dict[str, int]) -> float | None:
    if not isinstance(table, dict):
        raise CheckError(f"{path}: [defaults] must be a table")
    for key in table:
        if key != "tolerance":
            raise CheckError(f"{path}, line {lines.get(key, 0)}: unknown key {key!r} in [defaults] (known: tolerance)")
    if "tolerance" not in table:
        return None
    try:
        return parse_share(table["tolerance"])
    except ValueError as e:
        raise CheckError(f"{path}, line {lines.get('tolerance', 0)}: tolerance: {e}") from None


def _figure(table: dict[str, Any], lines: dict[str, int], path: str) -> ReferenceFigure:
    """One [[figure]] table; CheckError naming the line of the key at fault."""
    def fail(key: str, what: str) -> CheckError:
        return CheckError(f"{path}, line {lines.get(key, lines[''])}: {what}")

    for key in table:
        if key not in _FIGURE_KEYS:
            raise fail(key, f"unknown key {key!r} (a figure has {', '.join(_FIGURE_KEYS)})")
    for key in ("benchmark", "label", "value"):
        if key not in table:
            raise fail("", f"this figure has no {key}")
    for key in ("benchmark", "label", "node", "unit"):
        if key in table and (not isinstance(table[key], str) or not table[key].strip()):
            raise fail(key, f"{key} must be a non-empty string")
    if table["benchmark"] not in _registry.names():
        raise fail("benchmark", f"unknown benchmark {table['benchmark']!r} (known: {', '.join(_registry.names())})")
    value, unit = _value(table, fail)
    tolerance = None
    if "tolerance" in table:
        try:
            tolerance = parse_share(table["tolerance"])
        except ValueError as e:
            raise fail("tolerance", f"tolerance: {e}") from None
    return ReferenceFigure(table["benchmark"], table.get("node"), table["label"], value, unit, tolerance,
                           lines[""])


def _value(table: dict[str, Any], fail: Any) -> tuple[float, str | None]:
    """(value in its headline unit, that unit or None) from `value` and `unit`."""
    raw, unit_key = table["value"], table.get("unit")
    try:
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
            raise ValueError(f"{raw!r} is not a number")
        value, unit = parse_value(raw) if isinstance(raw, str) else (float(raw), None)
        if unit_key is not None:
            factor_value, factor_unit = parse_value(f"1 {unit_key}")
            if unit is not None:
                raise ValueError(f"give the unit once: in the value ({raw!r}) or as unit = {unit_key!r}")
            value, unit = value * factor_value, factor_unit
    except ValueError as e:
        raise fail("unit" if "unknown unit" in str(e) and unit_key else "value", f"value: {e}") from None
    if not math.isfinite(value):
        raise fail("value", "value: must be a finite number")
    return value, unit
