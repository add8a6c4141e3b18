"""Values with units as a site writes them in a reference file ("45 GB/s",
"1.5 us", "32 KiB", "130 Gflop/s", "5%"), read into a headline's unit
(hpcbench._headline.UNITS) and its base scale."""
from __future__ import annotations

import math
import re

from .._headline import UNITS

#: A unit as written -> (the headline unit it is in, its factor to that unit).
SPELLINGS: dict[str, tuple[str, float]] = {
    **{unit: (unit, 1.0) for unit in UNITS},
    "ns": ("s", 1e-9), "us": ("s", 1e-6), "µs": ("s", 1e-6), "ms": ("s", 1e-3),
    "B": ("bytes", 1.0), "KB": ("bytes", 1e3), "MB": ("bytes", 1e6), "GB": ("bytes", 1e9),
    "KiB": ("bytes", 1024.0), "MiB": ("bytes", 1024.0 ** 2), "GiB": ("bytes", 1024.0 ** 3),
    "B/s": ("bytes/s", 1.0), "KB/s": ("bytes/s", 1e3), "MB/s": ("bytes/s", 1e6), "GB/s": ("bytes/s", 1e9),
    "TB/s": ("bytes/s", 1e12), "MiB/s": ("bytes/s", 1024.0 ** 2), "GiB/s": ("bytes/s", 1024.0 ** 3),
    "Mflop/s": ("flop/s", 1e6), "Gflop/s": ("flop/s", 1e9), "Tflop/s": ("flop/s", 1e12),
    "x": ("ratio", 1.0),
}

_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_VALUE = re.compile(rf"^\s*({_NUMBER})\s*(\S+)?\s*$")
_SHARE = re.compile(rf"^\s*({_NUMBER})\s*%\s*$")


def known_units() -> str:
    """The spellings a reference file may use, for an error message."""
    return ", ".join(SPELLINGS)


def parse_value(text: str) -> tuple[float, str | None]:
    """'45 GB/s' -> (4.5e10, 'bytes/s'); '12' -> (12.0, None). ValueError (in words) if it is not a
    number with a known unit."""
    match = _VALUE.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a number and a unit (e.g. \"45 GB/s\", \"1.5 us\")")
    number, unit = float(match.group(1)), match.group(2)
    if unit is None:
        return number, None
    if unit not in SPELLINGS:
        raise ValueError(f"unknown unit {unit!r} in {text!r} (known: {known_units()})")
    base, factor = SPELLINGS[unit]
    return number * factor, base


def parse_share(text: object) -> float:
    """A tolerance: '5%' or '5 %' -> 0.05. ValueError (in words) unless it is a percentage from 0 to 100."""
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not a percentage: write it as a string, e.g. \"5%\"")
    match = _SHARE.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a percentage (e.g. \"5%\")")
    share = float(match.group(1)) / 100
    if not (math.isfinite(share) and 0 <= share < 1):
        raise ValueError(f"{text!r} must be at least 0 % and under 100 %")
    return share
