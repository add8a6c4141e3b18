"""Samples far beyond the others: a rank stalled (stopped, swapped out,
descheduled for seconds) or a neighbour's burst. They are kept, in the raw
samples and in the statistics (hpcbench reports medians and minima, which
such samples do not move), but counted, and a benchmark warns about them:
a stall is one line with its length; many smaller ones, a noisy machine.

A sample is an outlier when it lies FAR times beyond the median of its set
(slower: a time above FAR x median, or a bandwidth below median / FAR)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ._record import Count, Mapping, NonNegative

#: How far beyond the median a sample must lie to count.
FAR = 20.0
#: A time outlier at least this long (seconds) is called a stall.
STALL_S = 0.1
#: Warn about the noise when more than this share of the samples are outliers.
NOISY_SHARE = 0.01


@dataclass(kw_only=True)
class Outliers(Mapping):
    """How many samples lay FAR times beyond the median of their set
    (kept: the reported statistics are medians and minima), out of how many,
    and the worst: its ratio to its median, and its value (seconds or bytes/s)."""
    count: Count
    samples: Count
    worst_ratio: NonNegative
    worst: NonNegative
    kept: bool = True

    def warning(self, label: str, unit: str = "s") -> str | None:
        """One line when the outliers matter: a stall, or a noisy share."""
        if self.count == 0:
            return None
        if unit == "s" and self.worst >= STALL_S:
            return (f"{label}: a sample took {self.worst:.3g} s, {self.worst_ratio:.0f}x its median (a stalled rank "
                    f"or a noisy neighbour); {self.count} such sample(s) of {self.samples} kept, "
                    "the medians are robust")
        if self.count > NOISY_SHARE * self.samples:
            return (f"{label}: {self.count} of {self.samples} samples were more than {FAR:.0f}x beyond their median "
                    "(a noisy machine); kept, the medians are robust")
        return None


def find_outliers(sets: Iterable[npt.ArrayLike], slower: str = "higher") -> Outliers:
    """Outliers over several sets of samples (one set per size, say), each
    judged against its own median; `slower` is "higher" for times, "lower"
    for bandwidths. NaN (a rank that sat out) is ignored."""
    count = total = 0
    worst_ratio, worst = 0.0, 0.0
    for values in sets:
        x = np.asarray(values, dtype=float).ravel()
        x = x[np.isfinite(x)]
        if x.size == 0:
            continue
        median = float(np.median(x))
        total += x.size
        if median <= 0:
            continue
        ratio = x / median if slower == "higher" else median / np.maximum(x, 1e-300)
        far = ratio > FAR
        count += int(far.sum())
        i = int(np.argmax(ratio))
        if ratio[i] > worst_ratio:
            worst_ratio, worst = float(ratio[i]), float(x[i])
    return Outliers(count=count, samples=total, worst_ratio=worst_ratio, worst=worst)
