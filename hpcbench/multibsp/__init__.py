"""MultiBSP (MBSPDiscover, 2014): the node's tree from hwloc, g and L per
level from h-communications on pinned threads, and an inner product whose
run time the model predicts. See docs/multibsp.md. BENCHMARK is the suite's
`multibsp`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._benchmark import BENCHMARK, MultiBSPBenchmark
    from ._measure import flatten, leaf_kernel_rate, measure_component, measure_inner_product, split_slices
    from ._model import (
        BOUND_FROM,
        PREDICTION_BOUND,
        GLFit,
        fit_g_L,
        fits_side_by_side,
        predict_inner_product,
        prediction_error,
    )
    from ._options import MultiBSPOptions
    from ._plot import multibsp_figure, plot_hcomm, plot_inner_product, plot_tree
    from ._records import GLFits, MultiBSPDerived, MultiBSPRecord
    from ._tree import Component, Level, describe, tree

__all__ = ["BENCHMARK", "BOUND_FROM", "PREDICTION_BOUND", "Component", "GLFit", "GLFits", "Level",
           "MultiBSPBenchmark", "MultiBSPDerived", "MultiBSPOptions", "MultiBSPRecord", "describe", "fit_g_L",
           "fits_side_by_side", "flatten", "leaf_kernel_rate", "measure_component", "measure_inner_product",
           "multibsp_figure", "plot_hcomm", "plot_inner_product", "plot_tree", "predict_inner_product",
           "prediction_error", "split_slices", "tree"]

# public name -> the submodule that defines it (imported on first use: hpcbench._lazy)
_EXPORTS = {
    'BENCHMARK': '._benchmark',
    'BOUND_FROM': '._model',
    'Component': '._tree',
    'GLFit': '._model',
    'GLFits': '._records',
    'Level': '._tree',
    'MultiBSPBenchmark': '._benchmark',
    'MultiBSPDerived': '._records',
    'MultiBSPOptions': '._options',
    'MultiBSPRecord': '._records',
    'PREDICTION_BOUND': '._model',
    'describe': '._tree',
    'fit_g_L': '._model',
    'fits_side_by_side': '._model',
    'flatten': '._measure',
    'leaf_kernel_rate': '._measure',
    'measure_component': '._measure',
    'measure_inner_product': '._measure',
    'multibsp_figure': '._plot',
    'plot_hcomm': '._plot',
    'plot_inner_product': '._plot',
    'plot_tree': '._plot',
    'predict_inner_product': '._model',
    'prediction_error': '._model',
    'split_slices': '._measure',
    'tree': '._tree',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
