"""Which cores share each cache level (Servet 2010, III-B, Fig. 5): analysis.

Pure functions, no hardware: they turn the single-core curve of the cache
benchmark and the co-run ratios of pairs of cores into sharing pairs and
groups, and compare them with hwloc.

The co-run test: each core of a pair traverses its own array of size s at
the same time. If the pair shares a cache of size CS, the two arrays compete
for it, and each core sees roughly what one core sees with an array of 2s.
Servet takes s = (2/3) CS and calls the pair sharing when the time per access
rises by more than 2. Two things break that rule on modern caches, and both
can be read off the single-core curve C(size) that the cache benchmark has
already measured:

* s must still hit in the cache when one core runs alone, or the reference
  itself misses and the ratio shrinks. On highly associative caches with
  non-LRU replacement, misses start below (2/3) CS (and the size estimate
  may be off); so s is capped at the level's onset, the largest size the
  curve shows still on the level's plateau.
* A shared cache only doubles the time if C(2s) >= 2 C(s). Where the next
  level is close in latency (an L2 backed by a fast L3), C(2s)/C(s) may be
  1.6: a threshold of 2 would then call every cache private. The expected
  ratio E = C(2s)/C(s) is therefore computed from the curve, and the default
  ("auto") threshold is min(2, sqrt(E)): Servet's 2 where the curve allows
  it, otherwise the midpoint between "private" (ratio 1) and "shared"
  (ratio E) on a log scale. When E is below MIN_EXPECTED_RATIO, sharing
  cannot be told from noise at that level, and the level is reported as
  undecidable instead of guessed.
"""
from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..topology import Topology, components
from ..topology._pairs import PairPlan, hwloc_shares_cache
from ._records import PairRatio, SharedLevelRecord

#: Two PU OS indexes, the smaller first.
Pair = tuple[int, int]

#: Servet's threshold and co-run share of the cache size.
PAPER_THRESHOLD = 2.0
CORUN_SHARE = 2.0 / 3.0
#: Below this expected shared/private ratio a level is undecidable.
MIN_EXPECTED_RATIO = 1.3


def curve_at(sizes: npt.ArrayLike, cycles: npt.ArrayLike, size: float) -> float:
    """Cycles per access at `size`, interpolated on log2(size); clamped to
    the ends of the measured range."""
    sizes = np.asarray(sizes, dtype=float)
    cycles = np.asarray(cycles, dtype=float)
    return float(np.interp(math.log2(size), np.log2(sizes), cycles))


def choose_corun_size(cache_size: int, onset: int | None = None, stride: int = 1024, sizes: npt.ArrayLike | None = None,
                      cycles: npt.ArrayLike | None = None) -> tuple[int, float | None]:
    """(s, expected_ratio) for one level: s = (2/3) * cache_size, capped at
    the onset of misses, rounded down to the stride; expected_ratio =
    C(2s) / C(s) from the single-core curve, or None without a curve."""
    if cache_size <= 0:
        raise ValueError(f"a cache size must be positive, got {cache_size}")
    s = int(CORUN_SHARE * cache_size)
    if onset:
        s = min(s, int(onset))
    s = max(stride, s // stride * stride)
    expected = None
    if sizes is not None and cycles is not None and np.size(sizes) >= 2:
        expected = curve_at(sizes, cycles, 2 * s) / curve_at(sizes, cycles, s)
    return s, expected


def decision_threshold(expected: float | None, requested: float | None = None) -> tuple[float, bool]:
    """(threshold, decidable). `requested` (a number) overrides the rule."""
    if requested is not None:
        return float(requested), True
    if expected is None:
        return PAPER_THRESHOLD, True
    if expected < MIN_EXPECTED_RATIO:
        return math.sqrt(max(expected, 1.0)), False
    return min(PAPER_THRESHOLD, math.sqrt(expected)), True


def co_run_ratio(alone: npt.ArrayLike, together: npt.ArrayLike) -> float:
    """Servet's ratio for one pair: time per access of the pair running at
    once over the same cores running alone. Both are arrays (rounds, members,
    samples): the minimum over samples (interference only adds time), the
    mean over the two members, the median over rounds of the ratio."""
    alone = np.asarray(alone, dtype=float)
    together = np.asarray(together, dtype=float)
    per_round = together.min(axis=2).mean(axis=1) / alone.min(axis=2).mean(axis=1)
    return float(np.median(per_round))


def infer_verdicts(verdict: dict[Pair, bool], plan: PairPlan) -> dict[Pair, bool]:
    """Every pair's verdict: measured where tested; in auto mode, the verdict
    of its relation's representative elsewhere."""
    out = {}
    for pair in plan.all_pairs:
        if pair in verdict:
            out[pair] = verdict[pair]
        else:
            rep = plan.representative[plan.relation_of[pair]]
            out[pair] = verdict[rep]
    return out


def hwloc_groups(topology: Topology, pus: list[int], level: int) -> list[list[int]]:
    """The groups of `pus` that share one cache of `level` according to hwloc."""
    edges = [(a, b) for i, a in enumerate(pus) for b in pus[i + 1:] if hwloc_shares_cache(topology, a, b, level)]
    return components(edges, pus)


def analyze_shared_caches(level: int, cache_size: int, corun_size: int, ratios: dict[Pair, float], plan: PairPlan,
                          topology: Topology | None = None, threshold: float | None = None,
                          expected_ratio: float | None = None) -> SharedLevelRecord:
    """Sharing pairs, groups and disagreements for one level, as the record keeps them.

    ratios: tested pair -> co-run ratio. plan: the PairPlan that chose the
    pairs (auto mode infers untested pairs from their relation). topology:
    if given, hwloc's groups are computed and every tested pair where the
    measurement and hwloc differ is reported, as is every sampled pair whose
    verdict differs from its relation's representative."""
    missing = [p for p in plan.tested if p not in ratios]
    if missing:
        raise ValueError(f"no co-run ratio for tested pair {missing[0]}")
    limit, decidable = decision_threshold(expected_ratio, threshold)
    measured = {p: ratios[p] > limit for p in plan.tested}
    verdicts = infer_verdicts(measured, plan)
    sharing = [p for p, v in verdicts.items() if v]
    groups = components(sharing, plan.pus) if decidable else []
    return SharedLevelRecord(
        level=level, cache_size=int(cache_size), corun_size=int(corun_size), threshold=limit,
        expected_ratio=expected_ratio, decidable=decidable,
        ratios=[PairRatio(pair=list(p), ratio=r) for p, r in ratios.items()],
        sharing_pairs=[list(p) for p in sharing] if decidable else [], groups=groups,
        hwloc_groups=hwloc_groups(topology, plan.pus, level) if topology is not None else [],
        disagreements=_disagreements(level, measured, ratios, limit, plan, topology)
        if topology is not None and decidable else [])


def _disagreements(level: int, measured: dict[Pair, bool], ratios: dict[Pair, float], limit: float, plan: PairPlan,
                   topology: Topology) -> list[str]:
    lines = []
    for pair, shares in measured.items():
        claimed = hwloc_shares_cache(topology, pair[0], pair[1], level)
        if shares != claimed:
            lines.append(f"L{level}: cores {pair[0]} and {pair[1]} {'share' if shares else 'do not share'} "
                         f"(ratio {ratios[pair]:.2f}, threshold {limit:.2f}) but hwloc says they "
                         f"{'do' if claimed else 'do not'}")
    for pair in plan.sampled:
        rep = plan.representative[plan.relation_of[pair]]
        if measured[pair] != measured[rep]:
            lines.append(f"L{level}: cores {pair[0]},{pair[1]} and {rep[0]},{rep[1]} have the same hwloc relation "
                         f"but different verdicts (ratios {ratios[pair]:.2f} and {ratios[rep]:.2f})")
    return lines
