"""MultiBSP (MBSPDiscover, 2014): the node's tree from hwloc, g and L per
level from h-communications on pinned threads, and an inner product whose
run time the model predicts. See docs/multibsp.md. BENCHMARK is the suite's
`multibsp`."""
from .._protocol import Benchmark
from ._benchmark import MultiBSPBenchmark
from ._measure import flatten, leaf_kernel_rate, measure_component, measure_inner_product, split_slices
from ._model import (BOUND_FROM, PREDICTION_BOUND, GLFit, fit_g_L, fits_side_by_side, predict_inner_product,
                     prediction_error)
from ._options import MultiBSPOptions
from ._plot import multibsp_figure, plot_hcomm, plot_inner_product, plot_tree
from ._records import GLFits, MultiBSPDerived, MultiBSPRecord
from ._tree import Component, Level, describe, tree

BENCHMARK: Benchmark = MultiBSPBenchmark()

__all__ = ["BENCHMARK", "BOUND_FROM", "PREDICTION_BOUND", "Component", "GLFit", "GLFits", "Level",
           "MultiBSPBenchmark", "MultiBSPDerived", "MultiBSPOptions", "MultiBSPRecord", "describe", "fit_g_L",
           "fits_side_by_side", "flatten", "leaf_kernel_rate", "measure_component", "measure_inner_product",
           "multibsp_figure", "plot_hcomm", "plot_inner_product", "plot_tree", "predict_inner_product",
           "prediction_error", "split_slices", "tree"]
