"""How numbers read in summaries: sizes, times, bandwidths, groups of cores."""
from __future__ import annotations


def format_size(nbytes: float) -> str:
    """Bytes as a short binary-unit string: 32768 -> '32 KiB'."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(nbytes) >= scale:
            value = nbytes / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.2f} {unit}"
    return f"{int(nbytes)} B"


def groups_text(groups) -> str:
    """Groups of cores: [[0, 1], [2]] -> '{0,1} {2}'."""
    return " ".join("{" + ",".join(str(c) for c in g) + "}" for g in groups) or "-"


def microseconds(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.2f} us"


def gigabytes_per_second(value: float) -> str:
    return f"{value / 1e9:.1f} GB/s"
