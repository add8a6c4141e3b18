"""The sizes a cache sweep measures: the base grid, and the sizes added
inside the rises of a first sweep (pure functions, no hardware).

Two base grids: "fine", 4 points per octave (every step 19 %, so no cache
edge lies more than a step from a measured size), and "servet", the paper's
(doubling up to 2 MiB, then 1 MiB steps). Refinement then brackets each
edge finely and fills each rise, so that neither the edge method nor the
page-set model depends on the base grid.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import OptionError
from ._rises import DEFAULT_MIN_RISE, DEFAULT_STEP_THRESHOLD, Rise, find_rises

IntArray = npt.NDArray[np.int64]

GRIDS = ("fine", "servet")
#: Points per octave of the "fine" grid.
POINTS_PER_OCTAVE = 4


def _on_stride(values: npt.ArrayLike, stride: int) -> np.ndarray:
    """Positive multiples of `stride` nearest to `values`, unique, increasing."""
    snapped = np.maximum(np.round(np.asarray(values, dtype=float) / stride), 1).astype(np.int64) * stride
    return np.unique(snapped)


def sweep_sizes(min_size: int, max_size: int, stride: int, grid: str = "fine") -> np.ndarray:
    """The base grid from min_size to max_size (bytes), multiples of stride."""
    if grid == "servet":
        sizes, s = [], min_size
        while s < (2 << 20) and s <= max_size:
            sizes.append(s)
            s *= 2
        s = max(-(-s // (1 << 20)) * (1 << 20), 2 << 20)
        while s <= max_size:
            sizes.append(s)
            s += 1 << 20
        return np.array([x for x in sizes if x % stride == 0], dtype=np.int64)
    if grid != "fine":
        raise OptionError("grid", f"must be one of {', '.join(GRIDS)}, got {grid!r}")
    steps = int(np.floor(POINTS_PER_OCTAVE * np.log2(max_size / min_size) + 1e-9))
    sizes = _on_stride(min_size * 2.0 ** (np.arange(steps + 1) / POINTS_PER_OCTAVE), stride)
    return sizes[(sizes >= min_size) & (sizes <= max_size)]


def extension_sizes(top: int, limit: int, stride: int) -> np.ndarray:
    """Sizes past `top` (bytes), POINTS_PER_OCTAVE per octave, up to `limit`:
    what a sweep whose curve still rises at `top` measures next. Geometric
    on either grid: past the base sweep the question is only where the
    last rise ends, and the paper's 1 MiB steps would cost a traversal of
    tens of megabytes per step to answer it."""
    if limit <= top:
        return np.zeros(0, dtype=np.int64)
    steps = int(np.floor(POINTS_PER_OCTAVE * np.log2(limit / top) + 1e-9))
    sizes = _on_stride(top * 2.0 ** (np.arange(1, steps + 1) / POINTS_PER_OCTAVE), stride)
    return sizes[(sizes > top) & (sizes <= limit)]


@dataclass(frozen=True)
class RefinementSettings:
    """Where refinement_sizes adds sizes; every field is also a keyword of
    refinement_sizes."""

    stride: int = 64                  #: bytes: every size is a multiple of it
    edge_points: int = 15             #: sizes across a rise's first step below linear_from
    per_octave: int = 16              #: geometric steps per octave across a rise below linear_from
    linear_from: int = 2 << 20        #: bytes: above this, steps of linear_step
    linear_step: int = 256 << 10      #: bytes
    max_per_rise: int = 8             #: linear steps per rise, at most
    large_edge_points: int = 5        #: sizes across a rise's first step above linear_from
    budget: float | None = None       #: bytes: the sum of the extra sizes above budget_from, at most (None: no bound)
    budget_from: int = 0              #: bytes
    step_threshold: float = DEFAULT_STEP_THRESHOLD   #: rise detection (find_rises)
    min_rise: float = DEFAULT_MIN_RISE


def refinement_sizes(sizes: npt.ArrayLike, cycles: npt.ArrayLike, settings: RefinementSettings | None = None,
                     **keywords: Any) -> IntArray:
    """Extra sizes (bytes) to measure inside each rise of a first sweep.

    settings (RefinementSettings), each field of which may also be given as
    a keyword (stride=, edge_points=, per_octave=, linear_from=,
    linear_step=, max_per_rise=, large_edge_points=, budget=, budget_from=,
    step_threshold=, min_rise=), overriding `settings`.

    For every rise: `edge_points` sizes evenly spaced across its first step
    (between the last size on the plateau and the first above it: the edge
    of a cache evenly placed lies there, and the spacing bounds the error
    to a few percent), and `per_octave` geometric steps across the whole
    rise below `linear_from`, `linear_step` steps above it (at most
    `max_per_rise` of those), so that the page-set model sees the shape.
    Above `linear_from` every size costs a traversal of megabytes in every
    pass, so an edge there gets `large_edge_points`; and `budget`, if
    given, bounds the sum of the extra sizes above `budget_from` (bytes,
    the cost of one traversal of each): edges come first, rise by rise, then
    the other sizes from the smallest. All multiples of `stride`, none
    already in `sizes`.
    """
    s = replace(settings or RefinementSettings(), **keywords)
    sizes = np.asarray(sizes, dtype=np.int64)
    known = {int(x) for x in sizes}
    edges: list[int] = []
    fills: set[int] = set()
    for rise in find_rises(cycles, s.step_threshold, s.min_rise, sizes=sizes):
        edges += [x for x in _edge_sizes(sizes, rise, s) if x not in known]
        fills |= _fill_sizes(sizes, rise, s)
    return _within_budget(list(dict.fromkeys(edges)) + sorted(fills - known - set(edges)), s)


def _edge_sizes(sizes: IntArray, rise: Rise, s: RefinementSettings) -> list[int]:
    """Sizes evenly spaced inside the rise's first step (bytes)."""
    a, b = int(sizes[rise.start]), int(sizes[rise.start + 1])
    points = s.edge_points if a < s.linear_from else s.large_edge_points
    return [int(x) for x in _on_stride(np.linspace(a, b, points + 2)[1:-1], s.stride) if a < x < b]


def _fill_sizes(sizes: IntArray, rise: Rise, s: RefinementSettings) -> set[int]:
    """Sizes across the whole rise (bytes): geometric below linear_from,
    linear above it (at most max_per_rise, spread evenly)."""
    lo, hi = int(sizes[max(rise.start - 1, 0)]), int(sizes[rise.end])
    top = min(hi, s.linear_from)
    small = lo * 2.0 ** (np.arange(1, int(s.per_octave * np.log2(top / lo)) + 1) / s.per_octave)
    fills = {int(x) for x in _on_stride(small, s.stride) if lo < x < top}
    bottom = max(lo, s.linear_from)
    large = _on_stride(np.arange(bottom + s.linear_step, hi, s.linear_step), s.stride)
    large = large[(large > bottom) & (large < hi)]
    if large.size > s.max_per_rise:
        large = large[np.unique(np.linspace(0, large.size - 1, s.max_per_rise).round().astype(int))]
    return fills | {int(x) for x in large}


def _within_budget(candidates: list[int], s: RefinementSettings) -> IntArray:
    """The candidates (bytes, in order of priority) that the budget affords, increasing."""
    chosen: list[int] = []
    spent = 0.0
    for x in candidates:
        cost = x if x > s.budget_from else 0
        if s.budget is not None and spent + cost > s.budget:
            continue
        chosen.append(x)
        spent += cost
    return np.array(sorted(chosen), dtype=np.int64)
