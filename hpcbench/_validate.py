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

import numpy as np

from . import _core
from ._errors import OptionError

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
