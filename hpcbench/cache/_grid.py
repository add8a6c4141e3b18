"""The sizes a cache sweep measures: the base grid, and the sizes added
inside the rises of a first sweep (pure functions, no hardware).

Two base grids: "fine", 4 points per octave (every step 19 %, so no cache
edge lies more than a step from a measured size), and "servet", the paper's
(doubling up to 2 MiB, then 1 MiB steps). Refinement then brackets each
edge finely and fills each rise, so that neither the edge method nor the
page-set model depends on the base grid.
"""
from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._rises import DEFAULT_MIN_RISE, DEFAULT_STEP_THRESHOLD, find_rises

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
        raise ValueError(f"grid must be one of {', '.join(GRIDS)}, got {grid!r}")
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


def refinement_sizes(sizes: npt.ArrayLike, cycles: npt.ArrayLike, stride: int = 64, edge_points: int = 15,
                     per_octave: int = 16, linear_from: int = 2 << 20, linear_step: int = 256 << 10,
                     max_per_rise: int = 8, large_edge_points: int = 5, budget: float | None = None,
                     budget_from: int = 0,
                     step_threshold: float = DEFAULT_STEP_THRESHOLD,
                     min_rise: float = DEFAULT_MIN_RISE) -> np.ndarray:
    """Extra sizes (bytes) to measure inside each rise of a first sweep.

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
    sizes = np.asarray(sizes, dtype=np.int64)
    known = {int(s) for s in sizes}
    edges: list = []
    fills: set = set()
    for rise in find_rises(cycles, step_threshold, min_rise, sizes=sizes):
        a, b = int(sizes[rise.start]), int(sizes[rise.start + 1])
        points = edge_points if a < linear_from else large_edge_points
        edge = _on_stride(np.linspace(a, b, points + 2)[1:-1], stride)
        edges += [int(x) for x in edge if a < x < b and int(x) not in known]
        mine: set = set()
        lo, hi = int(sizes[max(rise.start - 1, 0)]), int(sizes[rise.end])
        small = lo * 2.0 ** (np.arange(1, int(per_octave * np.log2(min(hi, linear_from) / lo)) + 1) / per_octave)
        mine |= {int(x) for x in _on_stride(small, stride) if lo < x < min(hi, linear_from)}
        large = _on_stride(np.arange(max(lo, linear_from) + linear_step, hi, linear_step), stride)
        large = large[(large > max(lo, linear_from)) & (large < hi)]
        if large.size > max_per_rise:
            large = large[np.unique(np.linspace(0, large.size - 1, max_per_rise).round().astype(int))]
        mine |= {int(x) for x in large}
        fills |= mine
    chosen: list = []
    spent = 0.0
    for x in list(dict.fromkeys(edges)) + sorted(fills - known - set(edges)):
        cost = x if x > budget_from else 0
        if budget is not None and spent + cost > budget:
            continue
        chosen.append(x)
        spent += cost
    return np.array(sorted(chosen), dtype=np.int64)
