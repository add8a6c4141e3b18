"""Physical constraints of fitted and derived figures: a figure that cannot
be (a negative cost per hop, a negative latency, an infinite bandwidth) is
never a finding. Each kind of fit states its constraints here once, and
its benchmark's report asks `fit_failure` before it says anything about
the fit: where a constraint is broken, the fit is reported as failed, with
why, and none of its figures is shown as a result.

A "peak" read as the single highest point of a noisy curve is one
transient sample, not what the hardware sustains: `robust_peak` takes the
median of the curve's few highest points instead (PEAK_RULE says so in
words), so one spike cannot set it."""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

#: How many of a curve's highest points `robust_peak` takes the median of.
PEAK_POINTS = 3
#: What `robust_peak` is, for the sentences that quote it.
PEAK_RULE = f"the median of the curve's {PEAK_POINTS} highest points"


@dataclass(frozen=True)
class Bound:
    """One constraint of a fit: `name` (what the figure is, "per-hop
    cost") with `value` must be at least `minimum` (above it when
    `strict`); `text` is the value with its unit for the sentence, and
    `why` what a broken bound says about the data ("the times do not grow
    with distance")."""
    name: str
    value: float | None
    text: str
    why: str
    minimum: float = 0.0
    strict: bool = False

    def broken(self) -> bool:
        """Whether the value is missing, not finite, or below the bound."""
        if self.value is None or not math.isfinite(self.value):
            return True
        return self.value <= self.minimum if self.strict else self.value < self.minimum


def fit_failure(model: str, *bounds: Bound) -> str | None:
    """Why the fit of `model` failed, for the first bound it breaks ('the
    per-hop model failed: its fitted per-hop cost is negative (-259.67 us):
    the times do not grow with distance; no per-hop cost is reported'), or
    None when every bound holds."""
    for b in bounds:
        if b.broken():
            what = "not a finite number" if b.value is None or not math.isfinite(b.value) else (
                "negative" if b.minimum == 0 and b.value < 0 else
                "zero" if b.minimum == 0 else f"below {b.minimum:g}")
            return (f"the {model} failed: its fitted {b.name} is {what} ({b.text}): {b.why}; "
                    f"no {b.name} is reported")
    return None


def hop_cost_failure(per_hop: float | None, text: str) -> str | None:
    """CoMet's t = t0 + N tb + (n - 1) h: the cost per extra hop h cannot be negative."""
    return fit_failure("per-hop model", Bound("per-hop cost", per_hop, text,
                                              "the times do not grow with distance"))


def latency_failure(model: str, latency: float | None, text: str) -> str | None:
    """A fitted start-up time (a line's intercept at 0 bytes) cannot be negative."""
    return fit_failure(model, Bound("latency", latency, text,
                                    "the times grow faster than linearly with the size there, so a line "
                                    "through them crosses zero above 0 bytes"))


def superstep_failure(model: str, g: float | None, L: float | None) -> str | None:
    """BSP's superstep cost g h + L (flops): neither the cost per word g nor the synchronisation L can be negative."""
    return fit_failure(model, Bound("L", L, f"{L:.0f} flops" if L is not None else "none",
                                    "the superstep times do not stay above zero as h falls to 0"),
                       Bound("g", g, f"{g:.1f} flops per word" if g is not None else "none",
                             "the superstep times do not grow with the words each child sends"))


def robust_peak(values: Iterable[float | None]) -> float | None:
    """The median of the PEAK_POINTS highest finite, positive values (of a
    bandwidth curve); all of them where there are fewer; None where there
    are none."""
    x = np.asarray([v for v in values if v is not None], dtype=float)
    x = x[np.isfinite(x) & (x > 0)]
    if x.size == 0:
        return None
    return float(np.median(np.sort(x)[-PEAK_POINTS:]))
