"""Headline numbers: the few figures of a record that a reader compares
between two runs (two machines, two dates). A benchmark lists them with
`Benchmark.headlines(record)`; the side-by-side report matches them by
label and prints the ratio of each."""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from ._format import format_size

#: The units a headline may have, and how its value reads.
UNITS = ("bytes", "s", "bytes/s", "flop/s", "flops", "flops/word", "ratio", "count", "%")


@dataclass(frozen=True)
class Headline:
    """One number of a record worth comparing.

    label: what it is, unique within the record ("L1 latency", "echo
    latency 8 B"); the side-by-side report pairs the numbers of two records
    by it. value: in `unit` (bytes, s, bytes/s, flop/s, flops, flops/word,
    ratio, count or %), None where the record has no finite value. better:
    "higher", "lower", or None where neither is (a cache size). samples:
    the stored per-sample values behind `value`, in `unit` (the echo's
    one-way times at 8 B, STREAM's repetitions), or None where the record
    keeps none; `hpcbench check` tests two runs' samples against each other
    (Mann-Whitney U) where both have them (docs/check.md). tolerance: how
    far (a share of the value) this figure moves between runs of an
    unchanged machine, where the benchmark knows it to move more than
    check's --min-change (a map's pair, a fitted figure): a change within
    it is no finding, whatever a test says; None: check's default."""

    label: str
    value: float | None
    unit: str
    better: str | None = None
    samples: tuple[float, ...] | None = field(default=None, repr=False, compare=False)
    tolerance: float | None = None

    def text(self) -> str:
        """The value in words with a readable unit ('1.52 us', '32 KiB', '9.39 GB/s')."""
        return format_value(self.value, self.unit)


def format_value(value: float | None, unit: str) -> str:
    """A number of `unit` (see UNITS) as a short string; '-' for None or not finite."""
    if value is None or not math.isfinite(value):
        return "-"
    if unit == "bytes":
        return format_size(value)
    if unit == "s":
        for scale, name in ((1e-9, "ns"), (1e-6, "us"), (1e-3, "ms")):
            if abs(value) < scale * 1000:
                return f"{value / scale:.3g} {name}"
        return f"{value:.3g} s"
    if unit == "bytes/s":
        return f"{value / 1e9:.3g} GB/s" if abs(value) >= 1e9 else f"{value / 1e6:.3g} MB/s"
    if unit == "flop/s":
        return f"{value / 1e9:.3g} Gflop/s"
    if unit == "ratio":
        return f"x{value:.2f}"
    if unit == "count":
        return f"{value:.0f}"
    if unit == "%":
        return f"{value:.0f}%"
    return f"{value:.3g} {unit}"


def ratio(a: Headline | None, b: Headline | None) -> float | None:
    """b / a, or None where either is missing, not finite or a is zero."""
    if a is None or b is None or a.value is None or b.value is None:
        return None
    if not (math.isfinite(a.value) and math.isfinite(b.value)) or a.value == 0:
        return None
    return b.value / a.value


def sample_tuple(values: Iterable[float] | None, scale: float = 1.0) -> tuple[float, ...] | None:
    """The finite values times `scale` as a Headline's samples; None where
    there are none or the stored samples are not a flat list of numbers
    (an odd or hand-edited file: the headline then has no samples)."""
    if values is None:
        return None
    try:
        out = tuple(float(v) * scale for v in values)
    except (TypeError, ValueError):
        return None
    out = tuple(v for v in out if math.isfinite(v))
    return out or None


def finite(value: float | None) -> float | None:
    """The value where it is a finite number, else None (for building headlines from optional fields)."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def unique_labels(headlines: Iterable[object]) -> dict[str, Headline]:
    """label -> Headline of a record's headlines (anything else skipped); a
    label repeated in one record gets ' (2)', ' (3)' ...: how check, the
    side-by-side report and the history pair the figures of two runs."""
    out: dict[str, Headline] = {}
    for h in headlines:
        if not isinstance(h, Headline):
            continue
        label, n = h.label, 1
        while label in out:
            n += 1
            label = f"{h.label} ({n})"
        out[label] = h
    return out
