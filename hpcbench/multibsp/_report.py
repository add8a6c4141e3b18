"""What `hpcbench report` says about a multibsp record: the tree's cost of
a superstep per level in words, how well the model predicts the inner
product, and the headline numbers."""
from __future__ import annotations

from .._headline import Headline, finite
from .._physical import superstep_failure
from ._records import GLLevel, InnerProductPoint, MultiBSPRecord

#: Measured / predicted beyond this factor (either way) is a disagreement of the model.
MODEL_FACTOR = 2.0
#: "Within" this share counts as the model predicting well.
GOOD_SHARE = 0.25


def _seconds(flops: float, rate: float) -> str:
    """Flops at `rate` flop/s, as a time."""
    if not rate or rate <= 0:
        return "?"
    s = flops / rate
    return f"{s * 1e9:.0f} ns" if s < 1e-6 else f"{s * 1e6:.1f} us"


def _power(n: int) -> str:
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def _ratio(v: InnerProductPoint) -> float:
    """Measured / predicted by the record's best model: r per memory level
    where it was measured, else r = DAXPY (files before issue 27)."""
    x = v.measured_over_predicted_level_rate
    return x if x is not None else v.measured_over_predicted


def multibsp_meaning(record: MultiBSPRecord) -> list:
    """Per level, what a superstep costs; then where the inner-product prediction holds."""
    d = record.derived
    daxpy = f", DAXPY {d.rate / 1e9:.2f} Gflop/s" if d.peak_rate is not None else ""
    lines = [f"The node is the MultiBSP tree {d.notation}; r = {d.r / 1e9:.2f} Gflop/s per core "
             f"({d.r_label}{daxpy}), the rate g and L are counted in flops at."]
    for lv in d.levels:
        if _level_failure(lv) is not None:          # a g or L that cannot be is no figure: multibsp_failed_fits
            continue
        lines.append(f"Level {lv.level}: a superstep among its {lv.p if isinstance(lv.p, int) else max(lv.p)} "
                     f"children costs L = {lv.L:.0f} flops ({_seconds(lv.L, d.r)}) to synchronise plus "
                     f"g = {lv.g:.1f} flops ({_seconds(lv.g, d.r)}) per word each child sends: a superstep "
                     f"pays off when it computes well over {lv.L:.0f} flops.")
    good = [v.n for v in d.inner_product if abs(_ratio(v) - 1) <= GOOD_SHARE]
    if good:
        lines.append(f"The model predicts the inner product within {100 * GOOD_SHARE:.0f}% for "
                     f"{len(good)} of {len(d.inner_product)} vector lengths ({_power(min(good))} to "
                     f"{_power(max(good))} doubles); outside them "
                     + ("the supersteps' fixed costs (small vectors) or other processes on the team's PUs dominate."
                        if d.leaf_rates else "thread start-up (small) or memory bandwidth (large) dominates."))
    elif d.inner_product:
        lines.append(f"The model misses the inner product by more than {100 * GOOD_SHARE:.0f}% at every "
                     "vector length measured.")
    return lines


def _level_failure(lv: GLLevel) -> str | None:
    """Why the g/L fit of a level failed (a negative g or L), None where both can be."""
    return superstep_failure(f"g/L fit of level {lv.level}", finite(lv.g), finite(lv.L))


def multibsp_failed_fits(record: MultiBSPRecord) -> list:
    """The levels whose g or L is not physical, each with why."""
    return [why for why in (_level_failure(lv) for lv in record.derived.levels) if why]


def multibsp_disagreements(record: MultiBSPRecord) -> list:
    """The model against the measurement at the largest vector, where the
    computation dominates: off by more than MODEL_FACTOR either way."""
    ip = record.derived.inner_product
    if not ip:
        return []
    last = max(ip, key=lambda v: v.n)
    x = _ratio(last)
    if x > MODEL_FACTOR or x < 1 / MODEL_FACTOR:
        return [f"inner product of {_power(last.n)} doubles: measured x{x:.2f} the MultiBSP prediction"]
    return []


def multibsp_headlines(record: MultiBSPRecord) -> list:
    """r, g and L of every level, and measured / predicted at the largest vector."""
    d = record.derived
    out = [Headline(f"r ({d.r_label.split(' (')[0]}, one core)", finite(d.r), "flop/s", "higher")]
    if d.peak_rate is not None:
        out.append(Headline("DAXPY, one core", finite(d.rate), "flop/s", "higher"))
    for lv in d.levels:
        out.append(Headline(f"level {lv.level} g", finite(lv.g), "flops/word", "lower"))
        out.append(Headline(f"level {lv.level} L", finite(lv.L), "flops", "lower"))
    if d.inner_product:
        last = max(d.inner_product, key=lambda v: v.n)
        out.append(Headline(f"inner product of {_power(last.n)} doubles", finite(last.measured_s), "s", "lower"))
        out.append(Headline(f"inner product of {_power(last.n)} doubles, measured / predicted",
                            finite(_ratio(last)), "ratio"))
    return out
