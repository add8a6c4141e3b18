"""HMAX per level of the tree: the largest h of a component's h-relation
sweep (pure functions).

MBSPDiscover (section 3.2) sweeps h up to one HMAX for every level and
notes that HMAX "may need to be different for different levels". What it
must do: the least-squares fit of g h + L is well posed when the sweep
reaches from h = 0, where the superstep is all L, to where g h is many
times L; and every word of the sweep's buffer should stay in the memory
the level's children share, or g prices the memory above it. So, per
component: a short pilot sweep estimates g and L; HMAX is the power of two
at which g HMAX reaches HMAX_L_RATIO times L, within bounds set by the
component's p and m (hmax_bounds)."""
from __future__ import annotations

import math

from ._tree import Component

#: g HMAX must reach this many times L: L is then at most a ninth of the
#: longest superstep, and both the intercept and the slope are determined.
HMAX_L_RATIO = 8
#: The fewest and the most h a per-level sweep takes (powers of two); the
#: most keeps a component's sweep near a second on this kind of machine.
HMAX_FLOOR = 64
HMAX_CEILING = 1024
#: The pilot sweep that estimates g and L: h up to this, few supersteps.
PILOT_HMAX = 64
PILOT_ITERATIONS = 100
PILOT_BLOCKS = 3


def _floor_pow2(x: float) -> int:
    return 1 << max(0, int(math.floor(math.log2(x)))) if x >= 1 else 1


def hmax_bounds(p: int, m: int) -> tuple[int, int]:
    """(lowest, highest) HMAX for a component of p children sharing m bytes:
    at least HMAX_FLOOR and 4 p (bspbench's fit over h >= p needs h well
    past p); at most HMAX_CEILING and the largest power of two whose buffer
    (p x p x HMAX doubles) fits in m. Where the two cross, the lowest wins:
    a sweep too short to fit is worse than one that spills."""
    low = max(HMAX_FLOOR, 4 * p)
    high = min(HMAX_CEILING, _floor_pow2(m / (8.0 * p * p)))
    return low, max(low, high)


def choose_hmax(p: int, m: int, g: float, L: float) -> int:
    """HMAX for a component of p children sharing m bytes whose pilot sweep
    gave g (flops per word) and L (flops): the smallest power of two with
    g HMAX >= HMAX_L_RATIO L, within hmax_bounds(p, m). A g or L that is not
    positive (a noisy pilot) gives the highest bound."""
    low, high = hmax_bounds(p, m)
    if not (g > 0 and L > 0 and math.isfinite(g) and math.isfinite(L)):
        return high
    want = 1 << max(0, math.ceil(math.log2(HMAX_L_RATIO * L / g)))
    return min(high, max(low, want))


def level_hmax(component: Component, g: float, L: float) -> int:
    """choose_hmax for a component of the tree."""
    return choose_hmax(component.p, component.m, g, L)


#: The paper's HMAX: a per-level sweep spends the supersteps a sweep up to
#: it would, spread over its own h (sweep_iterations).
PAPER_HMAX = 256


def sweep_iterations(iterations: int, hmax: int) -> int:
    """Supersteps per timed block for a sweep up to hmax, from the NITERS
    given for the paper's HMAX of 256: scaled by 256 / hmax (at least 1),
    so a longer sweep times as many supersteps in all, each h with fewer,
    and a block stays short enough that a preempted one is outvoted."""
    return max(1, iterations * PAPER_HMAX // hmax)
