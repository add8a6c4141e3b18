"""Where the distributed matrix lies: the mesh of processes, the matrix
dimensions it can hold, and the rows and columns the broadcasts send.

The matrix kernels need a two-dimensional mesh: rows x columns processes,
both at least 2, using every rank of the communicator (a 1 x P strip is a
ring, not a mesh). The mesh is CoMet's, laid out by hpcbench.comm's Mesh
(Gray-coded where both sides are powers of two, so that mesh neighbours are
hypercube neighbours; row-major otherwise). A dimension n must split into
equal blocks: a multiple of both sides. The rules about n and about the
rank lists are the C kernel's (csrc/kernels/matrix.c), quoted through
matrix_check; this file states only what C cannot know: which meshes a
number of ranks allows.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ... import _core
from ..._errors import OptionError
from .._mesh import Mesh, mesh_dims

#: CoMet's shift directions, and the kernel each names.
DIRECTIONS = {"north": _core.MATRIX_NORTH, "east": _core.MATRIX_EAST}
#: Every kernel of the matrix layer, in the order the benchmark runs them:
#: name -> (C op, shift direction).
KERNELS = {"update_guard": (_core.MATRIX_UPDATE_GUARD, 0),
           "shift_north": (_core.MATRIX_SHIFT, _core.MATRIX_NORTH),
           "shift_east": (_core.MATRIX_SHIFT, _core.MATRIX_EAST),
           "transpose": (_core.MATRIX_TRANSPOSE, 0),
           "row_broadcast": (_core.MATRIX_ROW_BROADCAST, 0),
           "col_broadcast": (_core.MATRIX_COL_BROADCAST, 0)}
#: Block sides (elements) the default dimensions give the mesh's longer
#: side, in steps of sqrt(2): from latency-bound blocks (8 KiB) to 8 MiB.
DEFAULT_BLOCK_SIDES = tuple(round(32 * 2 ** (k / 2)) for k in range(11))


def mesh_shapes(ranks: int) -> list:
    """Every (rows, cols) with rows * cols == ranks and both at least 2."""
    return [(r, ranks // r) for r in range(2, ranks // 2 + 1) if ranks % r == 0]


def _usable_counts(upto: int = 16) -> str:
    return ", ".join(str(p) for p in range(4, upto + 1) if mesh_shapes(p))


def matrix_mesh(ranks: int, shape: tuple | None = None) -> Mesh:
    """The mesh of `ranks` processes the matrix kernels use: `shape` (rows,
    cols) if given, else the one closest to square (rows <= cols).
    OptionError("mesh") if there is none, or `shape` does not fit."""
    shapes = mesh_shapes(ranks)
    allowed = " or ".join(f"{r}x{c}" for r, c in shapes)
    if not shapes:
        raise OptionError("mesh", f"must be rows x columns processes, both at least 2, using every rank; {ranks} "
                                  f"rank(s) make no such mesh (the rank count must be a product of two whole numbers "
                                  f"of at least 2: {_usable_counts()}, ...; not 1, 2, 3 or a prime)")
    if shape is None:
        return Mesh(*mesh_dims(ranks))
    rows, cols = shape
    if (rows, cols) not in shapes:
        raise OptionError("mesh", f"must use every one of the {ranks} ranks with at least 2 rows and 2 columns: "
                                  f"{allowed}; got {rows}x{cols}")
    return Mesh(rows, cols)


def parse_mesh(text: str) -> tuple | None:
    """'2x4' -> (2, 4); 'auto' -> None; ValueError otherwise."""
    if text.strip().lower() == "auto":
        return None
    m = re.fullmatch(r"\s*(\d{1,9})\s*[xX]\s*(\d{1,9})\s*", text)
    if not m:
        raise ValueError(f"a mesh is ROWSxCOLS (e.g. 2x4) or auto, got {text!r}")
    return int(m.group(1)), int(m.group(2))


def ranks_of(mesh: Mesh) -> tuple:
    """The rank at each position, row by row, of the mesh and of its
    transpose (cols x rows, where a transpose leaves the matrix)."""
    flipped = Mesh(mesh.cols, mesh.rows)
    return ([mesh.rank_at(r, c) for r in range(mesh.rows) for c in range(mesh.cols)],
            [flipped.rank_at(r, c) for r in range(flipped.rows) for c in range(flipped.cols)])


def check_dimension(n: int, mesh: Mesh, kernel: str = "update_guard", index: int | None = None,
                    names: dict | None = None) -> None:
    """OptionError if the C kernel would refuse n (or the broadcast index)
    on this mesh: its own rules, in its words, naming the caller's
    parameter (`names` maps C's "n" and "index" to it)."""
    names = {"n": "n", "index": "index", **(names or {})}
    for name, value in (("n", n), ("index", index)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
            raise OptionError(names[name], f"must be a whole number, got {value!r}")
    op, direction = KERNELS[kernel]
    mesh_ranks, transposed = ranks_of(mesh)
    try:
        _core.matrix_check(op, int(n), mesh.rows, mesh.cols, mesh_ranks, transposed, direction=direction,
                           index=0 if index is None else int(index))
    except _core.ParameterError as e:   # C's rule, under the caller's name (the rule's text quotes C's formulas)
        raise OptionError(names.get(e.parameter, e.parameter), e.rule) from None


def default_dims(mesh: Mesh) -> list:
    """The dimensions the benchmark sweeps by default: those that give the
    mesh's longer side blocks of DEFAULT_BLOCK_SIDES elements, each rounded
    up to a multiple of both sides. With 2 x 2: 64, 90, 128, 182, ..., 2048."""
    step = math.lcm(mesh.rows, mesh.cols)
    longer = max(mesh.rows, mesh.cols)
    return sorted({step * math.ceil(side * longer / step) for side in DEFAULT_BLOCK_SIDES})


def broadcast_index(n: int, mesh: Mesh, kernel: str) -> int:
    """The global row (row_broadcast) or column (col_broadcast) the
    benchmark broadcasts: the middle one of the last block row or column,
    so that the sender is not rank 0's block."""
    if kernel == "row_broadcast":
        h = n // mesh.rows
        return (mesh.rows - 1) * h + h // 2
    w = n // mesh.cols
    return (mesh.cols - 1) * w + w // 2


def local_bytes(n: int, mesh: Mesh) -> int:
    """Bytes one rank holds for a kernel at dimension n: the local matrix
    and its spare (shift and transpose), wrapper included, and the column
    buffers."""
    h, w = n // mesh.rows, n // mesh.cols
    return 8 * (2 * (h + 2) * (w + 2) + 4 * max(h, w))
