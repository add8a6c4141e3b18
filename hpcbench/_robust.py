"""One rule for "this one is out of line with its peers": a node whose
memory is slower than the other nodes', a link slower than the other
links, a figure of this run against the runs before it.

The population's centre is its median and its spread the median absolute
deviation (MAD), scaled by 1.4826 so that it estimates the standard
deviation of normal data. Both ignore up to half of the population being
odd, so one slow node cannot hide itself by moving the yardstick (a mean and
a standard deviation would). A member is out when it lies on the worse side
of the median by both

* more than K scaled MADs (it is far out for this population's spread), and
* more than FLOOR of the median (it matters: a population of near-identical
  nodes has a MAD near 0, and a 1 % difference there is no finding).

Only the worse side counts (a faster node is no fault). Fewer than
MIN_POPULATION finite members: nothing is out (there are no peers to judge
by). Every finding carries its evidence: the value, the median, the spread
and how far out it lies, so a reader can weigh it."""
from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

#: How many scaled MADs beyond the median a member must lie.
K = 5.0
#: ... and by at least this share of the median.
FLOOR = 0.15
#: The fewest finite members a population needs before anything can be out.
MIN_POPULATION = 3
#: Scales a MAD to a standard deviation for normal data (1 / Phi^-1(3/4)).
MAD_SCALE = 1.4826


@dataclass(frozen=True)
class Deviation:
    """One member out of line: `key` (a node, a (source, destination) pair,
    a run) with `value`, against the population's `median` and scaled MAD
    `spread`; `z` = its distance from the median in spreads (inf when the
    spread is 0), `relative` = that distance as a share of the median, both
    counted positive on the worse side."""
    key: Hashable
    value: float
    median: float
    spread: float
    z: float
    relative: float
    population: int

    def evidence(self, text=lambda v: f"{v:.3g}") -> str:
        """'12.1 MB/s against a median of 24.3 MB/s (spread 0.41 MB/s over 56), 50 % worse, 29 spreads out';
        `text` formats a value with its unit."""
        far = "the others are identical" if math.isinf(self.z) else f"{self.z:.0f} spreads out"
        return (f"{text(self.value)} against a median of {text(self.median)} (spread {text(self.spread)} over "
                f"{self.population}), {100 * self.relative:.0f} % worse, {far}")


def centre_and_spread(values) -> tuple[float, float]:
    """(median, scaled MAD) of the finite values; (nan, nan) when there are none."""
    x = np.asarray(list(values), dtype=float).ravel()
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan
    median = float(np.median(x))
    return median, MAD_SCALE * float(np.median(np.abs(x - median)))


def out_of_line(values: Mapping[Any, float], worse: str, k: float = K,
                floor: float = FLOOR) -> list[Deviation]:
    """The members of `values` (key -> figure) that lie out of line on the
    `worse` side ("lower": a bandwidth, "higher": a time), worst first; []
    when fewer than MIN_POPULATION are finite. Non-finite members are neither
    judged nor counted."""
    if worse not in ("lower", "higher"):
        raise ValueError(f"worse must be 'lower' or 'higher', got {worse!r}")
    finite = {key: float(v) for key, v in values.items() if v is not None and math.isfinite(v)}
    if len(finite) < MIN_POPULATION:
        return []
    median, spread = centre_and_spread(finite.values())
    found = []
    for key, value in finite.items():
        distance = (median - value) if worse == "lower" else (value - median)
        if distance <= 0:
            continue
        relative = distance / abs(median) if median != 0 else math.inf
        z = distance / spread if spread > 0 else math.inf
        if z > k and relative > floor:
            found.append(Deviation(key, value, median, spread, z, relative, len(finite)))
    return sorted(found, key=lambda d: -d.relative)
