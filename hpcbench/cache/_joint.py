"""Page-set levels fitted together (pure NumPy, no hardware).

Where the placement is random, the rise of a level spreads from about half
its size to several times it (with random replacement), so the rises of two
levels overlap when their sizes are within a few times of each other (an
L2 of 3 MiB and an L3 of 12 MiB): the curve never settles on the plateau
between them, the miss rate of either cannot be read off alone, and a fit
of one rise takes the other's misses for its own. A non-inclusive hierarchy
adds up instead: with H_k the time per access when the first k page-set
levels miss and the next one hits (H_0 the time of the first of them, H_m
memory's),

    time(S) = H_0 + sum_k (H_{k+1} - H_k) * MR_k(S),

where MR_k is level k's page-set miss rate. Given the levels, the H_k are a
linear least-squares fit; given the H_k, each level is fitted alone to the
curve with the others' shares taken out, anchored between H_k and H_{k+1}
(which also tells LRU from random replacement, whose rise reaches the next
plateau far later). JOINT_ITERATIONS rounds of both. The policies are
not fitted continuously: every assignment of LRU-like or random replacement
to the levels is fitted this way, and the one whose whole model lies
closest to the curve wins (random needing a clear margin, RANDOM_PENALTY).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ._probabilistic import (
    DEFAULT_WAYS,
    FloatArray,
    ProbabilisticFit,
    SizeFitSettings,
    candidate_sizes,
    estimate_size,
    predicted_miss_rate,
)

JOINT_ITERATIONS = 3
#: The alternating fit tries sizes within this factor of each level's current estimate.
NEAR = 1.5
#: A level is called random-replacement only when that explains the curve
#: clearly better: each such level multiplies the residual an assignment is
#: judged by with this factor. With random placement every pass's curve is one
#: draw of page colours over prefixes of one buffer, so a few passes leave
#: correlated wobbles that random replacement's broader rise can absorb about
#: as well as the true LRU-like one (simulated LRU machines: residuals of the
#: two within 10 % of each other; simulated random ones: 0.6 to 0.85 of LRU's).
RANDOM_PENALTY = 1.1


@dataclass(frozen=True)
class PageSetLevel:
    """One page-set level being fitted: its estimate and the sizes it is fitted over."""

    fit: ProbabilisticFit
    lo: float                 #: bytes: the first size of its rise's range
    hi: float                 #: bytes: the last size of its rise's range


@dataclass(frozen=True)
class JointSettings:
    """What every page-set fit of one sweep assumes."""

    page_size: int = 4096                       #: bytes of the base page
    policies: tuple[str, ...] = ("lru",)        #: replacement policies tried (POLICIES)
    selection: str = "simplest"                 #: how a fit picks its size (SELECTIONS)
    placements: tuple[str, ...] = ("random",)   #: page placements tried, for all the levels at once
    ways: tuple[int, ...] = DEFAULT_WAYS        #: associativities tried
    iterations: int = JOINT_ITERATIONS          #: rounds of the alternating fit

    def size_fit(self, policy: str, placement: str) -> SizeFitSettings:
        """The settings of one level's fit under one policy and placement."""
        return SizeFitSettings(page_size=self.page_size, policies=(policy,), selection=self.selection,
                               placement=placement, ways=self.ways)


def miss_rate(sizes: FloatArray, fit: ProbabilisticFit, page_size: int) -> FloatArray:
    """A fitted level's page-set miss rate at `sizes` (bytes)."""
    pages = np.asarray(sizes, dtype=float) / page_size
    return predicted_miss_rate(pages, fit.ways * page_size / fit.size, np.full(pages.shape, fit.ways),
                               "lines", fit.policy, fit.placement)


def plateaus(sizes: FloatArray, cycles: FloatArray, rates: list[FloatArray]) -> FloatArray:
    """H_0..H_m, least squares of the sum above given each level's miss
    rates, made non-decreasing (a deeper level is never faster)."""
    m = len(rates)
    columns = [1.0 - rates[0]] + [rates[k - 1] - rates[k] for k in range(1, m)] + [rates[m - 1]]
    h, *_ = np.linalg.lstsq(np.stack(columns, axis=1), cycles, rcond=None)
    return np.maximum.accumulate(h)


def _model(s: FloatArray, y: FloatArray, levels: list[PageSetLevel],
           page_size: int) -> tuple[list[FloatArray], FloatArray]:
    """Each level's miss rates at `s` and the plateaus H_0..H_m that fit `y` best with them."""
    rates = [miss_rate(s, lv.fit, page_size) for lv in levels]
    return rates, plateaus(s, y, rates)


def _refit(s: FloatArray, y: FloatArray, levels: list[PageSetLevel], k: int,
           model: tuple[list[FloatArray], FloatArray], fit_settings: SizeFitSettings) -> PageSetLevel:
    """Level k fitted alone to the curve with the other levels' shares
    taken out (`model`: the levels' miss rates and plateaus, _model),
    anchored between its plateaus; as it was where the fit cannot see it
    (no rise between the plateaus, fewer than 3 sizes)."""
    rates, h = model
    lv = levels[k]
    others = sum((h[j + 1] - h[j]) * rates[j] for j in range(len(levels)) if j != k)
    own = y - others - h[0] + h[k]   # = H_k + (H_{k+1} - H_k) * MR_k, if the model holds
    hi = levels[k + 1].hi if k + 1 < len(levels) else s[-1]
    inside = (s >= lv.lo) & (s <= hi)
    if not h[k + 1] > h[k] or np.count_nonzero(inside) < 3:
        return lv
    near = candidate_sizes(max(lv.fit.size / NEAR, s[inside].min()), min(lv.fit.size * NEAR, s[inside].max()))
    fit = estimate_size(s[inside], own[inside], fit_settings, normalisation="anchored",
                        anchors=(float(h[k]), float(h[k + 1])), candidates=near if near.size else None)
    return PageSetLevel(fit=fit, lo=lv.lo, hi=lv.hi)


def _alternate(s: FloatArray, y: FloatArray, levels: list[PageSetLevel], assignment: tuple[str, ...],
               placement: str, settings: JointSettings) -> tuple[list[PageSetLevel], float]:
    """The alternating fit with one policy per level (`assignment`); the
    levels and the mean absolute residual of the whole model (cycles)."""
    for _ in range(settings.iterations):
        model = _model(s, y, levels, settings.page_size)
        levels = [_refit(s, y, levels, k, model, settings.size_fit(assignment[k], placement))
                  for k in range(len(levels))]
    rates, h = _model(s, y, levels, settings.page_size)
    curve = h[0] + sum((h[k + 1] - h[k]) * rates[k] for k in range(len(levels)))
    return levels, float(np.mean(np.abs(y - curve)))


def joint_fit(sizes: FloatArray, cycles: FloatArray, levels: list[PageSetLevel],
              settings: JointSettings) -> tuple[list[PageSetLevel], float]:
    """The page-set levels of one sweep (smallest first, each with an
    estimate from its own rise) fitted together, as the module says: for
    every assignment of the policies to the levels, the alternating fit
    from each level's best estimate under its policy; the assignment whose
    whole model lies closest to the curve wins. The curve is used from the
    first level's range on. Every assignment is tried (two policies and
    at most a few page-set levels: a handful of fits), with RANDOM_PENALTY
    per random level; and each of the settings' placements for all the
    levels at once (the buffer's placement is one: where it is unknown, the
    curve tells whether its pages were evenly coloured or scattered).
    Returns the levels and the winner's score: its mean absolute residual
    (cycles), times RANDOM_PENALTY per random level."""
    if not levels:
        return levels, 0.0
    keep = sizes >= levels[0].lo
    s, y = sizes[keep], cycles[keep]
    best: tuple[list[PageSetLevel], float] | None = None
    for placement, assignment in itertools.product(settings.placements,
                                                   itertools.product(settings.policies, repeat=len(levels))):
        start = []
        for lv, policy in zip(levels, assignment):
            inside = (sizes >= lv.lo) & (sizes <= lv.hi)
            fit = lv.fit if (lv.fit.policy, lv.fit.placement) == (policy, placement) else estimate_size(
                sizes[inside], cycles[inside], settings.size_fit(policy, placement))
            start.append(PageSetLevel(fit=fit, lo=lv.lo, hi=lv.hi))
        fitted, residual = _alternate(s, y, start, assignment, placement, settings)
        residual *= RANDOM_PENALTY ** assignment.count("random")
        if best is None or residual < best[1]:
            best = (fitted, residual)
    return best if best else (levels, float("inf"))
