"""MultiBSP (MBSPDiscover, 2014): the node's tree from hwloc, g and L per
level from h-communications on pinned threads, and an inner product whose
run time the model predicts. See docs/multibsp.md. BENCHMARK is the suite's
`multibsp`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._benchmark import BENCHMARK
    from ._model import BOUND_FROM, PREDICTION_BOUND, fits_side_by_side
    from ._plot import plot_hcomm, plot_inner_product, plot_tree
    from ._records import MultiBSPRecord
    from ._tree import describe, tree

__all__ = ["BENCHMARK", "BOUND_FROM", "MultiBSPRecord", "PREDICTION_BOUND", "describe", "fits_side_by_side",
           "plot_hcomm", "plot_inner_product", "plot_tree", "tree"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._benchmark": ("BENCHMARK",),
    "._model": ("BOUND_FROM", "PREDICTION_BOUND", "fits_side_by_side"),
    "._plot": ("plot_hcomm", "plot_inner_product", "plot_tree"),
    "._records": ("MultiBSPRecord",),
    "._tree": ("describe", "tree"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
