"""Argument checks shared by the public functions and the benchmarks' option
checks, and the size notation of the CLI (format_size is in _format).

Every check raises OptionError (a ValueError) naming the parameter, the rule
and the value received; the CLI maps the parameter to its flag, prints the
line and exits with status 2.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _core
from ._errors import OptionError
from ._format import format_size

_SIZE_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
               "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30}


@contextmanager
def c_rules(names: dict[str, str]) -> Iterator[None]:
    """Turn the C core's ParameterError (the rule is C's, stated once in its
    kernel's check) into an OptionError naming the caller's parameter:
    `names` maps the C params field to it, and the field's name in the rule
    text too ("stride_bytes" -> "stride")."""
    try:
        yield
    except _core.ParameterError as e:
        rule = e.rule
        for c_name, name in names.items():
            rule = rule.replace(c_name, name)
        raise OptionError(names.get(e.parameter, e.parameter), rule) from None


def positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise OptionError(name, f"must be a positive integer, got {value!r}")
    return int(value)


def non_negative_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise OptionError(name, f"must be a non-negative integer, got {value!r}")
    return int(value)


def sweep_array(name: str, values) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise OptionError(name, "must be a sequence of numbers") from None
    if arr.ndim != 1:
        raise OptionError(name, f"must be one-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise OptionError(name, "must hold positive finite numbers")
    return arr


def parse_size(text: str) -> int:
    """'64MiB', '32k', '1048576' -> bytes (binary units: k = KiB)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", str(text))
    if not m or m.group(2).lower() not in _SIZE_UNITS:
        raise ValueError(f"a size is a number with an optional unit (B, KiB, MiB, GiB), got {text!r}")
    value = float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()]
    if not math.isfinite(value) or value != int(value):
        raise ValueError(f"a size must be a whole number of bytes, got {text!r}")
    return int(value)


@dataclass(frozen=True)
class Range:
    """The documented range of a numeric option: lo..hi, each end included
    unless marked open; numbers must be finite. `str(Range)` is how --help
    and the messages write it: "1..100", "(0, 60] s", "64 B..1 GiB"."""

    lo: float
    hi: float
    lo_open: bool = False
    hi_open: bool = False
    unit: str = ""          #: written after the range ("s")
    size: bool = False      #: bytes: the ends are written as sizes

    def text(self, value: Any) -> str:
        if self.size and isinstance(value, (int, np.integer)):
            return format_size(int(value))
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
            value = int(value)
        return str(value) if isinstance(value, (int, np.integer)) else f"{value:g}"

    def __str__(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        if not (self.lo_open or self.hi_open):
            return f"{self.text(self.lo)}..{self.text(self.hi)}{unit}"
        return (f"{'(' if self.lo_open else '['}{self.text(self.lo)}, {self.text(self.hi)}"
                f"{')' if self.hi_open else ']'}{unit}")

    def check(self, name: str, value: Any) -> Any:
        """`value` if it lies in the range; else OptionError naming `name`."""
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise OptionError(name, f"must be a number in {self}, got {value!r}")
        if not math.isfinite(value) or value < self.lo or value > self.hi or \
                (self.lo_open and value == self.lo) or (self.hi_open and value == self.hi):
            raise OptionError(name, f"must be in {self}, got {self.text(value)}")
        return value
