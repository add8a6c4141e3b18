"""g and L from h-communication times, and the MultiBSP cost of the inner
product (pure functions)."""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ._levels import MemoryLevel, level_of_slice
from ._records import GLFitRecord, GLFits, LeafRateRecord
from ._tree import Component


@dataclass(frozen=True)
class GLFit:
    g: float                  #: flops per word
    L: float                  #: flops
    first_h: int
    last_h: int
    residual: float           #: RMS of (fit - measured), flops

    def to_record(self) -> GLFitRecord:
        return GLFitRecord(g=self.g, L=self.L, h_range=[self.first_h, self.last_h], rms_residual=self.residual)


def fit_g_L(h: npt.ArrayLike, flops: npt.ArrayLike, first_h: int = 0) -> GLFit:
    """Least squares of flops(h) = g h + L over h >= first_h."""
    h = np.asarray(h, dtype=float)
    flops = np.asarray(flops, dtype=float)
    if h.shape != flops.shape or h.ndim != 1:
        raise ValueError("h and flops must be 1-D arrays of equal length")
    keep = h >= first_h
    if np.count_nonzero(keep) < 2:
        raise ValueError(f"a g/L fit needs at least 2 values of h >= {first_h}")
    a = np.column_stack([h[keep], np.ones(np.count_nonzero(keep))])
    (g, L), *_ = np.linalg.lstsq(a, flops[keep], rcond=None)
    resid = a @ np.array([g, L]) - flops[keep]
    return GLFit(float(g), float(L), int(h[keep][0]), int(h[keep][-1]), float(math.sqrt(np.mean(resid ** 2))))


def fits_side_by_side(h: npt.ArrayLike, flops: npt.ArrayLike, p: int) -> GLFits:
    """The whole range, and bspbench's fit over h >= p (where every thread
    writes to every other; None if fewer than 2 such h), each with its residual."""
    try:
        h_ge_p = fit_g_L(h, flops, first_h=p).to_record()
    except ValueError:
        h_ge_p = None
    return GLFits(all=fit_g_L(h, flops).to_record(), h_ge_p=h_ge_p)


#: A leaf's rate: flops per second of PU `pu` on a slice of `elements` doubles.
LeafRate = Callable[[int, int], float]


def predict_inner_product(node: Component | int, slices: dict, gl: dict, r: float,
                          r_leaf: float | LeafRate | None = None) -> float:
    """MultiBSP run time (seconds) of the inner product over the subtree
    `node`: a leaf (PU) computes 2 flops per element of its slice at rate
    r_leaf (default r; a function of the PU and its slice's length gives
    each leaf the rate of the memory level its slice sits in); a component
    waits for its slowest child, then one superstep in which its master
    gathers one word from each other child ((p - 1) g + L flops at rate r,
    the rate g and L were converted with) and adds p numbers. slices: PU ->
    elements; gl: component PUs tuple -> (g, L) in flops; r, r_leaf: flops
    per second."""
    if isinstance(node, int):
        rate = r_leaf(node, slices[node]) if callable(r_leaf) else (r_leaf or r)
        return 2.0 * slices[node] / rate
    slowest = max(predict_inner_product(ch, slices, gl, r, r_leaf) for ch in node.children)
    g, L = gl[node.pus]
    return slowest + ((node.p - 1) * g + L + node.p) / r


#: The inner product's prediction must stay within this factor range
#: (measured / predicted) from BOUND_FROM doubles on: below that, the run
#: lasts a few microseconds and the superstep's fixed costs (thread wake-up,
#: one cache line per gathered word) dominate what L and g price from
#: h-relations of many words. tests/test_multibsp.py holds the shipped
#: example to it, and `show` states it.
PREDICTION_BOUND = (0.5, 2.0)
BOUND_FROM = 1 << 14


def prediction_error(n: npt.ArrayLike, ratios: npt.ArrayLike, from_n: int = BOUND_FROM) -> tuple | None:
    """(smallest, largest) measured / predicted over the vector lengths
    (doubles) of at least from_n, or None if there are none."""
    n = np.asarray(n, dtype=float)
    ratios = np.asarray(ratios, dtype=float)
    keep = (n >= from_n) & np.isfinite(ratios)
    if not np.any(keep):
        return None
    return float(ratios[keep].min()), float(ratios[keep].max())


def rate_by_level(leaf_rates: list[LeafRateRecord]) -> LeafRate:
    """The leaf rate the prediction takes per memory level: PU `pu` with a
    slice of `elements` doubles runs at its own rate measured in the
    smallest level that holds the slices of the threads sharing it
    (level_of_slice), every thread running at once."""
    levels = [MemoryLevel(x.level, x.size, x.sharing) for x in leaf_rates]
    by_name = {x.level: dict(zip(x.pus, x.rate)) for x in leaf_rates}

    def rate(pu: int, elements: int) -> float:
        return by_name[level_of_slice(levels, 8.0 * elements).name][pu]
    return rate
