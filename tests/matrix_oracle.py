"""An independent model of CoMet's matrix layer for the tests: the global
matrix after k applications of a kernel, built with NumPy (np.roll, .T,
row and column assignment), and any rank's local matrix cut out of it with
its wrapper. It shares nothing with csrc/kernels/matrix_verify.c but the
definitions: A(i, j) = i n + j + 1, -1 where the wrapper is not filled."""
import numpy as np

from hpcbench.comm import Mesh

UNSET = -1.0


def global_state(kernel: str, n: int, rows: int, cols: int, k: int, index: int = 0) -> tuple:
    """(the global matrix after k applications, whether it lies on the transposed mesh)."""
    i, j = np.indices((n, n))
    a = (i * n + j + 1).astype(float)
    h, w = n // rows, n // cols
    if kernel == "shift_north":               # each block k blocks up: row i holds row i + k h
        return np.roll(a, -k * h, axis=0), False
    if kernel == "shift_east":                # each block k blocks right
        return np.roll(a, k * w, axis=1), False
    if kernel == "transpose":
        return (a.T.copy(), True) if k % 2 else (a, False)
    s = a.copy()
    if kernel == "row_broadcast" and k:
        s[np.arange(n) % h == index % h, :] = a[index, :]
    if kernel == "col_broadcast" and k:
        s[:, np.arange(n) % w == index % w] = a[:, index][:, None]
    return s, False


def local_block(kernel: str, n: int, mesh: Mesh, rank: int, k: int, index: int = 0) -> np.ndarray:
    """Rank's local matrix, wrapper included, after k applications."""
    s, on_transposed = global_state(kernel, n, mesh.rows, mesh.cols, k, index)
    where = Mesh(mesh.cols, mesh.rows) if on_transposed else mesh
    r, c = where.position(rank)
    h, w = n // where.rows, n // where.cols
    rows = np.arange(r * h - 1, r * h + h + 1) % n
    cols = np.arange(c * w - 1, c * w + w + 1) % n
    block = s[np.ix_(rows, cols)].copy()
    guards = kernel in ("shift_north", "shift_east", "transpose") or (kernel == "update_guard" and k > 0)
    if not guards:
        block[0, :] = block[-1, :] = UNSET
        block[:, 0] = block[:, -1] = UNSET
    block[0, 0] = block[0, -1] = block[-1, 0] = block[-1, -1] = UNSET
    return block
