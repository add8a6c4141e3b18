"""The parameters of a wavefront code (Hammond et al. 2009, Table 1), the
one description the model, the real kernel and the simulator share.

Layout, as Table 2 reads: the Nx x Ny x Nz grid is cut over an m x n array
of processes, m rows (y is cut into m) by n columns (x is cut into n), so
each process holds Nx/n x Ny/m cells per plane (r1b) and the whole z
column. Process (i, j), column i = 0..n-1 from the west, row j = 0..m-1
from the south, is rank j * n + i: rank 0 bottom left, as Figure 3 draws.
An east-west face is Ny/m cells of H_tile planes and every angle; a
north-south face is Nx/n cells (Table 1's message sizes, 8 bytes a value).

The eight sweeps (SWEEP_ORDER) start from the corners in an order that
gives Chimaera's n_full = 4 and n_diag = 2 (section 4.1: sweep 2 starts top
right, sweep 3 bottom right, and the pairs 2-3 and 6-7 overlap): a sweep
that starts where the last one started follows it at once, one that starts
at a neighbouring corner waits for a diagonal fill, one at the opposite
corner for a full fill, and the last sweep's full fill ends the iteration.
Each corner sweeps twice, once up and once down in z.

What every process does for every tile of a sweep, in this order (Table
2, r4; the real kernel, the model and the simulated program all follow
it): receive the face from the upstream x neighbour, receive the face from
the upstream y neighbour, compute the tile, send the face to the downstream
x neighbour, send the face to the downstream y neighbour. Sends are eager
(the sender does not wait for the receiver): a message sent at s arrives at
s + t_send and is received in t_recv after it arrived and was asked for, so
Table 2's Total_comm = t_send + t_recv.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ._errors import PredictError
from ._octants import CHIMAERA, Sweep, fills

BYTES_PER_VALUE = 8     # doubles, as Table 1's "8 H_tile x #angles x ..."

#: The largest count a parameter may take: a whole number a float holds
#: exactly, so that every size and time derived from it stays finite.
MAX_COUNT = 2 ** 53

#: The eight sweeps of an iteration: (starts east?, starts north?, z upward?).
#: Corners: SW, NE, SE, SE, NW, NW, SW, NE (see the module docstring; any
#: other order: the `octants` field, _octants.py).
SWEEP_ORDER = CHIMAERA

#: How the energy groups cross the pipeline: "each" group its own pass
#: through the tiles with its own faces (SNAP), or "all" groups in one face.
GROUP_FACES = ("each", "all")


@dataclass(frozen=True)
class WavefrontParams:
    """Table 1's parameters. wg and wg_pre are seconds per cell (all angles
    of a cell, one group, one sweep: what one process spends on it),
    measured on the machine.

    What real sweep codes add (docs/predict.md, "Predicting a code you did
    not write"): `groups` energy groups crossing the pipeline as
    `group_faces` says; `octants`, the order of the sweeps (empty: the
    first n_sweeps of SWEEP_ORDER with the n_full and n_diag given, as
    before; else n_sweeps, n_full, n_diag and n_col are the order's and
    any given are replaced); `inners` x `outers` iterations in a run;
    `eager_limits`, (class, bytes) pairs: a face of more bytes between a
    pair of that class is coupled to its receive (none: every send eager).
    A grid the array does not divide is split as MPI's block distribution
    does: the first Nx mod n columns hold one cell more (rows alike)."""

    nx: int
    ny: int
    nz: int
    m: int                       #: process rows (y is cut into m)
    n: int                       #: process columns (x is cut into n)
    wg: float = 0.0              #: W_g: seconds of work per cell
    wg_pre: float = 0.0          #: W_g,pre: seconds per cell before the kernel (0 in Chimaera)
    h_tile: int = 1              #: H_tile: planes per tile
    angles: int = 6              #: angles per cell (the faces carry one value per angle)
    n_sweeps: int = 8
    n_full: int = 4
    n_diag: int = 2
    t_nonwavefront: float = 0.0  #: seconds per iteration outside the sweeps
    groups: int = 1              #: energy groups
    group_faces: str = "each"    #: GROUP_FACES: a pass and faces per group, or one face for all groups
    octants: tuple[Sweep, ...] = ()  #: the sweeps in order (empty: SWEEP_ORDER[:n_sweeps])
    n_col: int = 0               #: fills across the columns (r3c)
    inners: int = 1              #: inner iterations per outer
    outers: int = 1              #: outer iterations in a run
    eager_limits: tuple[tuple[str, int], ...] = field(default=())  #: (class, bytes): larger faces are coupled

    def __post_init__(self) -> None:
        for name in ("nx", "ny", "nz", "m", "n", "h_tile", "angles", "n_sweeps", "groups", "inners", "outers"):
            if not 1 <= int(getattr(self, name)) <= MAX_COUNT:
                raise PredictError(f"{name} must be a positive whole number up to 2**53, got {getattr(self, name)}")
        if self.group_faces not in GROUP_FACES:
            raise PredictError(f"group_faces must be one of {', '.join(GROUP_FACES)}, got {self.group_faces!r}")
        if self.octants:
            counts = fills(tuple(self.octants))
            for name, value in (("n_sweeps", counts.sweeps), ("n_full", counts.full), ("n_diag", counts.diag),
                                ("n_col", counts.col)):
                object.__setattr__(self, name, value)
        for name in ("n_full", "n_diag", "n_col"):
            if int(getattr(self, name)) < 0:
                raise PredictError(f"{name} must not be negative, got {getattr(self, name)}")
        for name in ("wg", "wg_pre", "t_nonwavefront"):
            value = float(getattr(self, name))
            if not value >= 0.0 or value == float("inf"):
                raise PredictError(f"{name} must be a finite time >= 0 seconds, got {value}")
        if self.nx < self.n:
            raise PredictError(f"Nx = {self.nx} cells cannot be cut over n = {self.n} columns: every process needs "
                               "at least one cell")
        if self.ny < self.m:
            raise PredictError(f"Ny = {self.ny} cells cannot be cut over m = {self.m} rows: every process needs "
                               "at least one cell")
        for klass, limit in self.eager_limits:
            if int(limit) != limit or limit < 0:
                raise PredictError(f"an eager limit is a whole number of bytes >= 0, got {limit!r} for {klass}")
        if self.nz % self.h_tile:
            raise PredictError(f"H_tile = {self.h_tile} does not divide Nz = {self.nz}")

    @property
    def nranks(self) -> int:
        return self.m * self.n

    @property
    def cells_x(self) -> int:
        """Nx/n: cells of a process along x (the largest block's, if uneven)."""
        return -(-self.nx // self.n)

    @property
    def cells_y(self) -> int:
        """Ny/m: cells of a process along y (the largest block's, if uneven)."""
        return -(-self.ny // self.m)

    @property
    def blocks_x(self) -> np.ndarray:
        """Cells of each column along x (n values): the first Nx mod n hold
        one more, as MPI's block distribution splits."""
        return _blocks(self.nx, self.n)

    @property
    def blocks_y(self) -> np.ndarray:
        """Cells of each row along y (m values), split as blocks_x."""
        return _blocks(self.ny, self.m)

    @property
    def even(self) -> bool:
        """The array divides the grid: every process holds the same block."""
        return self.nx % self.n == 0 and self.ny % self.m == 0

    @property
    def tiles(self) -> int:
        """Tiles in a process's stack per sweep: Nz/H_tile, once per group
        when the groups pass one after the other (group_faces "each")."""
        return self.nz // self.h_tile * (self.groups if self.group_faces == "each" else 1)

    @property
    def tile_planes(self) -> int:
        """Cell-planes of work in one tile: H_tile, times the groups when one
        tile carries them all (group_faces "all")."""
        return self.h_tile * (self.groups if self.group_faces == "all" else 1)

    @property
    def sweeps(self) -> tuple[Sweep, ...] | None:
        """The sweeps in order: `octants`, else the first n_sweeps of
        SWEEP_ORDER (None if there are more than it has)."""
        if self.octants:
            return tuple(self.octants)
        return SWEEP_ORDER[:self.n_sweeps] if self.n_sweeps <= len(SWEEP_ORDER) else None

    @property
    def iterations(self) -> int:
        """Iterations of r5 in a run: inners x outers."""
        return self.inners * self.outers

    @property
    def message_ew(self) -> int:
        """Bytes of an east-west face: 8 H_tile x angles x Ny/m (Table 1;
        times the groups if a face carries them all; the largest, if uneven)."""
        return BYTES_PER_VALUE * self.tile_planes * self.angles * self.cells_y

    @property
    def message_ns(self) -> int:
        """Bytes of a north-south face: 8 H_tile x angles x Nx/n (Table 1),
        as message_ew."""
        return BYTES_PER_VALUE * self.tile_planes * self.angles * self.cells_x

    def split_words(self) -> str:
        """How the grid is cut, in words: 'x 240 = 48 x 4 + 16 x 3 cells; y ...'."""
        return "; ".join(f"{axis} {total} = {_split_text(total, parts)} cells"
                         for axis, total, parts in (("x", self.nx, self.n), ("y", self.ny, self.m)))

    def rank(self, i: int, j: int) -> int:
        """The rank of process column i, row j (0-based; rank 0 bottom left)."""
        return j * self.n + i

    def with_(self, **changes: Any) -> WavefrontParams:
        """A copy with some fields changed (checked again)."""
        return replace(self, **changes)


def _blocks(total: int, parts: int) -> np.ndarray:
    """`total` cells over `parts` blocks: the first total mod parts hold one more."""
    q, r = divmod(int(total), int(parts))
    return np.where(np.arange(int(parts)) < r, q + 1, q).astype(np.int64)


def _split_text(total: int, parts: int) -> str:
    q, r = divmod(int(total), int(parts))
    return f"{parts} x {q}" if r == 0 else f"{r} x {q + 1} + {parts - r} x {q}"


def square_array(count: int) -> tuple[int, int]:
    """The most square process array of `count` processes: (m rows, n
    columns) with m * n = count and m <= n (so the ranks a node holds in
    node-fill order sit side by side in a row)."""
    if int(count) != count or count < 1:
        raise PredictError(f"a process count must be a positive whole number, got {count!r}")
    m = max(d for d in range(1, math.isqrt(int(count)) + 1) if count % d == 0)
    return m, int(count) // m


def parse_grid(text: str) -> tuple[int, int, int]:
    """'NXxNYxNZ' (or one number for a cube) -> (nx, ny, nz); PredictError otherwise."""
    parts = str(text).lower().split("x")
    nx, ny, nz = _counts(parts * 3 if len(parts) == 1 else parts, 3, text,
                         "a grid is NXxNYxNZ with three positive whole numbers up to 2**53 (or one for a cube)")
    return nx, ny, nz


def parse_procs(text: str) -> tuple[int, int]:
    """'MxN' -> (m rows, n columns); PredictError otherwise."""
    m, n = _counts(str(text).lower().split("x"), 2, text,
                   "a process array is MxN (rows x columns), two positive whole numbers up to 2**53")
    return m, n


def _counts(parts: list[str], length: int, text: str, rule: str) -> tuple[int, ...]:
    """`parts` as `length` whole numbers in 1..MAX_COUNT, or PredictError
    "<rule>, got '<text>'"."""
    try:
        values = tuple(int(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != length or min(values) < 1 or max(values) > MAX_COUNT:
        raise PredictError(f"{rule}, got {str(text)[:40]!r}")
    return values
