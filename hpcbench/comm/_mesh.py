"""CoMet's topology helpers (section 3.4.1): a 2-D mesh of ranks laid out
with a Gray code, each rank's neighbours, and the rank n hops away.

CoMet ran on hypercubes, where rank numbers are node addresses and two
nodes are neighbours when their numbers differ in one bit. Numbering the
mesh rows and columns with a reflected Gray code (g(i) = i ^ (i >> 1)) makes
mesh neighbours differ in exactly one bit, i.e. one hop apart: that is why
the mesh is laid out this way. Gray coding needs power-of-two mesh
dimensions; other sizes fall back to row-major numbering (said in `layout`).
"""
from __future__ import annotations

from dataclasses import dataclass


def gray(i: int) -> int:
    """The reflected Gray code of i: neighbours in i differ in one bit."""
    return i ^ (i >> 1)


def _is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def mesh_dims(size: int) -> tuple:
    """(rows, cols) with rows * cols == size, as square as possible, rows <= cols."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"a mesh needs a positive number of ranks, got {size!r}")
    rows = int(size ** 0.5)
    while size % rows:
        rows -= 1
    return rows, size // rows


@dataclass(frozen=True)
class Mesh:
    rows: int
    cols: int

    @property
    def layout(self) -> str:
        return "gray" if _is_power_of_two(self.rows) and _is_power_of_two(self.cols) else "row-major"

    def rank_at(self, row: int, col: int) -> int:
        row %= self.rows
        col %= self.cols
        if self.layout == "gray":
            return (gray(row) << (self.cols.bit_length() - 1)) | gray(col)
        return row * self.cols + col

    def position(self, rank: int) -> tuple:
        for r in range(self.rows):
            for c in range(self.cols):
                if self.rank_at(r, c) == rank:
                    return r, c
        raise ValueError(f"rank {rank} is not in a {self.rows}x{self.cols} mesh")

    def neighbours(self, rank: int) -> dict:
        """CoMet's top, bottom, pred and succ (the mesh wraps around)."""
        r, c = self.position(rank)
        return {"top": self.rank_at(r - 1, c), "bottom": self.rank_at(r + 1, c),
                "pred": self.rank_at(r, c - 1), "succ": self.rank_at(r, c + 1)}


def make_mesh(size: int) -> Mesh:
    """The mesh of `size` ranks, as square as possible (see mesh_dims)."""
    return Mesh(*mesh_dims(size))


def hop_node(rank: int, hops: int, size: int) -> int | None:
    """The rank `hops` links away from `rank` in a hypercube of `size` ranks
    (flip the lowest `hops` bits), or None if it lies outside."""
    if hops < 0:
        raise ValueError(f"hops must be >= 0, got {hops}")
    other = rank ^ ((1 << hops) - 1)
    return other if other < size else None


def max_hops(size: int) -> int:
    """Largest hop count from rank 0 inside `size` ranks."""
    return max(size.bit_length() - 1, 0)
