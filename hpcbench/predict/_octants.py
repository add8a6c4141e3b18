"""The order of a wavefront code's sweeps and the fills it implies
(Hammond et al. 2009, section 4.1, generalised to any order).

A sweep starts at a corner of the m x n process array: S is row 1 (the
bottom row, rank 0's), N row m, W column 1, E column n; its z direction
(+ up, - down) changes no time, since every process holds its whole z
column. Written `SW+,NE+,...`; `chimaera` is Chimaera's order (SWEEP_ORDER).

Between consecutive sweeps (section 4.1's reading of Chimaera's order,
where 4 full and 2 diagonal fills come from it): a sweep from the corner
the last one started at follows it at once; one from the corner across
the rows (N <-> S, same column) waits for the last sweep to reach it, a
diagonal fill (Start P_{1,m}, r3a); one from the corner across the columns
(E <-> W, same row) a column fill (Start P_{n,1}, r3c: Table 2 has no such
term, because Chimaera's order never needs it); one from the opposite
corner a full fill (Start P_{n,m}, r3b). The last sweep's full fill ends
the iteration.
"""
from __future__ import annotations

from dataclasses import dataclass

from ._errors import PredictError

#: A sweep: (starts east?, starts north?, z upward?).
Sweep = tuple[bool, bool, bool]

#: Chimaera's eight sweeps: SW, NE, SE, SE, NW, NW, SW, NE, each corner
#: once up and once down in z (4 full fills, 2 diagonal).
CHIMAERA: tuple[Sweep, ...] = ((False, False, True), (True, True, True), (True, False, True), (True, False, False),
                               (False, True, True), (False, True, False), (False, False, False), (True, True, False))

#: Named orders `--octants` takes besides a list of corners.
NAMED = {"chimaera": CHIMAERA}

#: Sweeps an iteration may have: a 2-D code sweeps 4 quadrants, a 3-D one 8
#: octants, a code that repeats them a few times more.
MAX_SWEEPS = 64

_CORNERS = {"SW": (False, False), "SE": (True, False), "NW": (False, True), "NE": (True, True)}


@dataclass(frozen=True)
class Fills:
    """The fills an order implies, per iteration (r5's counts)."""

    sweeps: int      #: n_sweeps
    full: int        #: n_full: opposite corners, and the one that ends the iteration
    diag: int        #: n_diag: across the rows (Table 2's diagonal fill)
    col: int         #: n_col: across the columns


def parse_octants(text: str) -> tuple[Sweep, ...]:
    """'chimaera' or 'SW+,NE+,...' -> the sweeps; PredictError (one line
    saying what is unsupported) otherwise."""
    raw = str(text).strip()
    if raw.lower() in NAMED:
        return NAMED[raw.lower()]
    words = [w.strip() for w in raw.split(",")]
    if not raw or any(not w for w in words):
        raise PredictError(f"--octants is a comma-separated list of corners (SW, SE, NW, NE, each with an optional "
                           f"+ or - for z) or {', '.join(NAMED)}, got {raw[:60]!r}")
    if len(words) > MAX_SWEEPS:
        raise PredictError(f"--octants lists {len(words)} sweeps; the model takes at most {MAX_SWEEPS} per iteration")
    return tuple(_sweep(w) for w in words)


def _sweep(word: str) -> Sweep:
    if any(sep in word for sep in "|&/ "):
        raise PredictError(f"unsupported sweep pattern {word[:40]!r}: sweeps started together (concurrent octants) "
                           "are not modelled; the model takes one sweep at a time, in the order given")
    corner, z = word[:2].upper(), word[2:]
    if corner not in _CORNERS or z not in ("", "+", "-"):
        raise PredictError(f"unsupported sweep {word[:40]!r}: a sweep is a corner SW, SE, NW or NE of the process "
                           "array (S: row 1, W: column 1) with an optional + or - for its z direction")
    east, north = _CORNERS[corner]
    return east, north, z != "-"


def octant_names(order: tuple[Sweep, ...]) -> str:
    """The order as `--octants` writes it."""
    return ",".join(("N" if north else "S") + ("E" if east else "W") + ("+" if up else "-")
                    for east, north, up in order)


def fills(order: tuple[Sweep, ...]) -> Fills:
    """The counts of r5 for `order` (see the module docstring)."""
    if not order:
        raise PredictError("an order of sweeps needs at least one sweep")
    full = diag = col = 0
    for (e0, n0, _), (e1, n1, _) in zip(order, order[1:]):
        if e0 != e1 and n0 != n1:
            full += 1
        elif n0 != n1:
            diag += 1
        elif e0 != e1:
            col += 1
    return Fills(sweeps=len(order), full=full + 1, diag=diag, col=col)
