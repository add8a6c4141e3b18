"""CoMet's matrix layer (Ganapati 1993, sections 3.2.2 and 3.3.8-3.3.11): a
global n x n matrix of doubles block-decomposed over a Gray-code mesh of
the ranks, each block in a one-element guard wrapper, a fixed setup, five
kernels (update_guard, shift_matrix north or east, transpose, row_broadcast,
col_broadcast) timed in C on any mpi4py communicator, and a verification of
every element after each. See docs/comm.md. BENCHMARK is the suite's
`matrix`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._analysis import THESIS_EXPONENT, Growth, fit_growth
    from ._benchmark import BENCHMARK
    from ._kernels import MatrixTimes, col_broadcast, local_matrix, row_broadcast, shift_matrix, transpose, update_guard
    from ._layout import KERNELS, default_dims, matrix_mesh, mesh_shapes
    from ._measure import measure_matrix
    from ._plot import plot_kernel, plot_matrix

__all__ = ["BENCHMARK", "Growth", "KERNELS", "MatrixTimes", "THESIS_EXPONENT", "col_broadcast", "default_dims",
           "fit_growth", "local_matrix", "matrix_mesh", "measure_matrix", "mesh_shapes", "plot_kernel", "plot_matrix",
           "row_broadcast", "shift_matrix", "transpose", "update_guard"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._analysis": ("Growth", "THESIS_EXPONENT", "fit_growth"),
    "._benchmark": ("BENCHMARK",),
    "._kernels": ("MatrixTimes", "col_broadcast", "local_matrix", "row_broadcast", "shift_matrix", "transpose",
                  "update_guard"),
    "._layout": ("KERNELS", "default_dims", "matrix_mesh", "mesh_shapes"),
    "._measure": ("measure_matrix",),
    "._plot": ("plot_kernel", "plot_matrix"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
