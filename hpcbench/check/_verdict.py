"""The one rule that says whether a headline figure got better, stayed the
same or got worse between a reference and this run; `hpcbench check` and
the side-by-side report (`report A B`) both call `judge` (docs/check.md).

Where both sides keep the per-sample values behind the figure (Headline
.samples), a two-sided Mann-Whitney U test asks whether the samples moved,
as google/benchmark's compare.py does (pyperf's compare_to uses Student's
t test for the same question); the figures tested in one
comparison form one family, corrected by Holm's step-down method. A figure
changed only when the test is significant AND the figure moved by at least
`min_change` (default 5 %): with a thousand samples a side, a 0.5 % shift is
significant and no regression an admin acts on. Without samples (or with too
few for the test ever to reach its level), the figure changed when it moved
beyond its tolerance (the reference file's, else `min_change`)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .._headline import Headline

#: Two-sided significance of the Mann-Whitney test, over the whole family (Holm).
ALPHA = 0.01
#: The smallest relative change of a figure that counts, and the tolerance where none is given.
MIN_CHANGE = 0.05
#: The fewest samples a side needs for the test.
MIN_SAMPLES = 2

#: The verdicts; WORSE and MISSING fail a check (exit status 1).
BETTER, SAME, WORSE, DIFFERENT, MISSING, NEW, NO_VALUE = (
    "better", "same", "worse", "different", "missing", "new", "no value")
FAILING = (WORSE, MISSING)


@dataclass(frozen=True)
class Settings:
    """How sure and how large: the test's level over the family, and the smallest change that counts."""
    alpha: float = ALPHA
    min_change: float = MIN_CHANGE


#: check's defaults (--alpha 0.01, --min-change 5 %).
DEFAULTS = Settings()


@dataclass(frozen=True)
class Pair:
    """One figure of the reference against this run's; either may be absent.
    tolerance: the reference file's for this figure (a share), else the
    figure's own (Headline.tolerance), else None: check's --min-change."""
    reference: Headline | None
    current: Headline | None
    tolerance: float | None = None


@dataclass(frozen=True)
class Verdict:
    """The verdict on one Pair: `word` (better, same, worse, different for
    a figure with no better side, missing, new, no value), the relative
    change (current / reference - 1), what decided it (`test`: 'Mann-Whitney
    U', 'tolerance', or '-'), the test's raw and Holm-adjusted p-values, the
    tolerance applied, and `why` in words."""
    word: str
    change: float | None
    test: str
    why: str
    p_value: float | None = None
    p_adjusted: float | None = None
    tolerance: float | None = None

    @property
    def failing(self) -> bool:
        """A regression: the figure got worse, or the reference had it and this run does not."""
        return self.word in FAILING


def relative_change(reference: Headline | None, current: Headline | None) -> float | None:
    """current / reference - 1; None where either value is missing, not finite, or the reference is zero."""
    if reference is None or current is None or reference.value is None or current.value is None:
        return None
    a, b = reference.value, current.value
    if not (math.isfinite(a) and math.isfinite(b)) or a == 0:
        return None
    return b / a - 1.0


def smallest_p(n1: int, n2: int) -> float:
    """The smallest two-sided p-value the exact Mann-Whitney test can give
    with n1 and n2 samples (every sample of one side beyond every sample of
    the other): 2 / C(n1 + n2, n1)."""
    log_ways = math.lgamma(n1 + n2 + 1) - math.lgamma(n1 + 1) - math.lgamma(n2 + 1)
    return min(1.0, 2.0 * math.exp(-log_ways))     # exp underflows to 0 for large samples, never overflows


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """The two-sided Mann-Whitney U test's p-value of samples a against b (scipy)."""
    from scipy.stats import mannwhitneyu
    p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
    return p if math.isfinite(p) else 1.0     # all samples equal on both sides: no evidence of a shift


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (in the given order): the k-th
    smallest times (m - k + 1), kept non-decreasing, at most 1. A figure is
    significant at level alpha over the family when its adjusted p < alpha."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def _testable(pair: Pair) -> bool:
    ref, cur = pair.reference, pair.current
    return (ref is not None and cur is not None and ref.samples is not None and cur.samples is not None
            and len(ref.samples) >= MIN_SAMPLES and len(cur.samples) >= MIN_SAMPLES
            and relative_change(ref, cur) is not None)


def _both_samples(pair: Pair) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The reference's and this run's samples of a pair _testable accepted."""
    assert pair.reference is not None and pair.current is not None, "a testable pair has both sides"
    assert pair.reference.samples is not None and pair.current.samples is not None, "and their samples"
    return pair.reference.samples, pair.current.samples


def tested_family(pairs: Sequence[Pair], alpha: float) -> list[int]:
    """The indexes of the pairs the test decides: both sides have samples,
    and enough of them that the test could reach alpha / m even at its most
    extreme (m: how many pairs have samples at all); the others fall back to
    the tolerance, since a test that cannot reject is no test."""
    candidates = [i for i, pair in enumerate(pairs) if _testable(pair)]
    level = alpha / max(1, len(candidates))
    return [i for i in candidates if smallest_p(*(len(side) for side in _both_samples(pairs[i]))) <= level]


def judge(pairs: Sequence[Pair], settings: Settings = DEFAULTS) -> list[Verdict]:
    """The verdict on every pair, in order: the figures with samples on
    both sides by the Mann-Whitney test (Holm over the family), the others
    by their tolerance."""
    family = tested_family(pairs, settings.alpha)
    raw = [mann_whitney_p(*_both_samples(pairs[i])) for i in family]
    adjusted = dict(zip(family, zip(raw, holm(raw))))
    out = []
    for i, pair in enumerate(pairs):
        if i in adjusted:
            out.append(_by_test(pair, adjusted[i][0], adjusted[i][1], settings))
        else:
            out.append(_by_tolerance(pair, settings))
    return out


def _presence(pair: Pair) -> Verdict | None:
    """The verdict where a side has no value (missing, new, no value), else None."""
    ref, cur = pair.reference, pair.current
    has_ref = ref is not None and ref.value is not None and math.isfinite(ref.value)
    has_cur = cur is not None and cur.value is not None and math.isfinite(cur.value)
    if has_ref and not has_cur:
        return Verdict(MISSING, None, "-", "the reference has this figure and this run does not")
    if has_cur and not has_ref:
        return Verdict(NEW, None, "-", "this run has this figure and the reference does not")
    if not has_ref:
        return Verdict(NO_VALUE, None, "-", "neither side has a value")
    return None


def _direction(pair: Pair, change: float) -> str:
    """better / worse by the figure's better side; different where it has none (a cache size)."""
    better = (pair.reference or pair.current).better  # type: ignore[union-attr]
    if better not in ("higher", "lower"):
        return DIFFERENT
    return BETTER if (change > 0) == (better == "higher") else WORSE


def _by_test(pair: Pair, p: float, p_adjusted: float, settings: Settings) -> Verdict:
    change = relative_change(pair.reference, pair.current)
    assert change is not None, "tested pairs have both values"
    n = " and ".join(str(len(side)) for side in _both_samples(pair)) + " samples"
    if p_adjusted >= settings.alpha:
        why = f"no significant shift ({n}, Holm-adjusted p = {p_adjusted:.2g} >= {settings.alpha:g})"
        return Verdict(SAME, change, "Mann-Whitney U", why, p, p_adjusted)
    smallest = max(settings.min_change, pair.tolerance or 0.0)     # a figure's own tolerance, where it has one
    if abs(change) < smallest:
        why = (f"a significant shift ({n}, Holm-adjusted p = {p_adjusted:.2g}) smaller than "
               f"{100 * smallest:g} %")
        return Verdict(SAME, change, "Mann-Whitney U", why, p, p_adjusted)
    why = f"a significant shift ({n}, Holm-adjusted p = {p_adjusted:.2g}) of {100 * change:+.1f} %"
    return Verdict(_direction(pair, change), change, "Mann-Whitney U", why, p, p_adjusted)


def _by_tolerance(pair: Pair, settings: Settings) -> Verdict:
    absent = _presence(pair)
    if absent is not None:
        return absent
    change = relative_change(pair.reference, pair.current)
    if change is None:
        return _from_zero(pair)
    tolerance = pair.tolerance if pair.tolerance is not None else settings.min_change
    source = "the figure's" if pair.tolerance is not None else "the default"
    if abs(change) <= tolerance:
        why = f"{100 * change:+.1f} % is within {source} tolerance of {100 * tolerance:g} %"
        return Verdict(SAME, change, "tolerance", why, tolerance=tolerance)
    why = f"{100 * change:+.1f} % is beyond {source} tolerance of {100 * tolerance:g} %"
    return Verdict(_direction(pair, change), change, "tolerance", why, tolerance=tolerance)


def _from_zero(pair: Pair) -> Verdict:
    """A reference of 0 (no slow links found): any other value is beyond every tolerance."""
    current = pair.current.value  # type: ignore[union-attr]
    if current == 0:
        return Verdict(SAME, 0.0, "tolerance", "0 in both", tolerance=pair.tolerance)
    why = f"{current:g} against a reference of 0: beyond any relative tolerance"
    return Verdict(_direction(pair, current or 0.0), None, "tolerance", why, tolerance=pair.tolerance)
