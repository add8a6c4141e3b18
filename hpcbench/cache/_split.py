"""One rise, two caches: where hwloc reports more cache levels than the
curve has rises, the widest page-set rise is tried as two levels (pure
NumPy, no hardware).

Why a rise can hold two caches: with random pages and random replacement
a level's rise runs from about half its size to several times it, so an L2
of 3 MiB and an L3 of 12 MiB (Dunnington) rise as one from 1.5 MiB to about
40 MiB. On a grid of 4 sizes per octave the gradient keeps a shallow valley
between them and rise detection splits there; on the paper's grid (1 MiB
steps from 2 MiB) it does not, and the page-set fit of the one rise gave
one level of 10 MiB. Rise detection cannot tell, but the page-set model
can: a single level cannot bend its curve twice. So, only where hwloc's
count of caches says a level is missing, the widest rise is split at
SPLIT_POINTS sizes spread over it, each split fitted jointly with the other
levels (_joint.py), and the best split is kept when its whole model lies
closer to the curve by SPLIT_GAIN and its two sizes are SPLIT_RATIO apart.
Without hwloc's count nothing is split: two levels always fit a little
better than one, and a gradual rise on a virtual machine is one cache.

The lower level of a split has its plateau but no plateau after it, which
the capacity bounds (_capacity.py) read its misses' cost from: the joint
model gives that cost instead (lower_bounds).
"""
from __future__ import annotations

import numpy as np

from ._capacity import CapacityBounds, bounds_below
from ._joint import JointSettings, PageSetLevel, joint_fit, miss_rate, plateaus
from ._probabilistic import FloatArray, estimate_size

#: Split points tried, spread evenly in log size over the rise (its first
#: and last octave excepted: each part needs a rise of its own).
SPLIT_POINTS = 6
#: A split is kept when its residual is at most this share of one level's.
#: Dunnington's merged rise (simulated, the paper's grid): 0.26 cycles with
#: the best split against 5.3 for one level; LRU machines whose rises were
#: found apart are never tried.
SPLIT_GAIN = 0.5
#: ... and when its two sizes are at least this far apart.
SPLIT_RATIO = 1.5
#: A rise narrower than this (last size over first) is not tried.
MIN_SPLIT_SPAN = 8.0


def split_widest(sizes: FloatArray, curve: FloatArray, levels: list[PageSetLevel], score: float,
                 settings: JointSettings) -> tuple[int, list[PageSetLevel]] | None:
    """(k, levels): the page-set levels with level k split in two (k and
    k + 1 in the result, fitted jointly with the others), or None where no
    split explains the curve clearly better than `score` (the joint fit's
    score of `levels`, _joint.joint_fit)."""
    if not levels:
        return None
    k = max(range(len(levels)), key=lambda i: levels[i].hi / levels[i].lo)
    wide = levels[k]
    if wide.hi / wide.lo < MIN_SPLIT_SPAN:
        return None
    best: tuple[list[PageSetLevel], float] | None = None
    for mid in np.geomspace(wide.lo * 2.0, wide.hi / 2.0, SPLIT_POINTS):
        parts = _halves(sizes, curve, wide, float(mid), settings)
        if parts is None:
            continue
        fitted, trial_score = joint_fit(sizes, curve, levels[:k] + parts + levels[k + 1:], settings)
        if best is None or trial_score < best[1]:
            best = (fitted, trial_score)
    if best is None:
        return None
    fitted, trial_score = best
    if trial_score > SPLIT_GAIN * score or fitted[k + 1].fit.size < SPLIT_RATIO * fitted[k].fit.size:
        return None
    return k, fitted


def _halves(sizes: FloatArray, curve: FloatArray, wide: PageSetLevel, mid: float,
            settings: JointSettings) -> list[PageSetLevel] | None:
    """The two levels `wide` becomes when split at `mid` bytes, each from a
    fit of its own part of the rise under the first policy; None where a
    part holds fewer than 3 sizes."""
    parts = []
    for lo, hi in ((wide.lo, mid), (mid, wide.hi)):
        inside = (sizes >= lo) & (sizes <= hi)
        if np.count_nonzero(inside) < 3:
            return None
        start = estimate_size(sizes[inside], curve[inside], settings.size_fit(settings.policies[0], "random"))
        parts.append(PageSetLevel(fit=start, lo=float(lo), hi=float(hi)))
    return parts


def lower_bounds(sizes: FloatArray, best: FloatArray, levels: list[PageSetLevel], k: int, plateau: tuple[int, int],
                 page_size: int) -> CapacityBounds | None:
    """The capacity bounds of level k of a split (`levels` as split_widest
    returned them), whose plateau is `plateau`: its misses cost H_{k+1}
    of the joint model (_joint.py) fitted to the envelope `best` (ticks),
    and the bounds read the envelope up to the size of the level above it,
    past which that level's own misses take over the curve."""
    s, y = np.asarray(sizes, dtype=float), np.asarray(best, dtype=float)
    keep = np.isfinite(y) & (s >= levels[0].lo)
    if np.count_nonzero(keep) < len(levels) + 1:
        return None
    rates = [miss_rate(s[keep], lv.fit, page_size) for lv in levels]
    h = plateaus(s[keep], y[keep], rates)
    return bounds_below(sizes, best, plateau, float(h[k + 1]), float(levels[k + 1].fit.size))
