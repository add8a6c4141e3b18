"""Communication: CoMet's kernels (echo, pairwise exchange, broadcast,
global sum, barrier, echo with contention, overlap, DAXPY rate, LogP's
overheads and gap of a pair), the
collectives against the number of processes, Servet's communication layers
(every pair, or one pair per class of relation), checks that flag results
that cannot be right, and fitted cost models (Hockney, regionalised least
squares, hops, n_1/2, growth with the process count).

Kernels are collective over any mpi4py communicator; models are pure
functions of (sizes, times). See docs/comm.md. BENCHMARK is the suite's `comm`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from .._collective import CommError
    from ._benchmark import BENCHMARK
    from ._contention import choose_contention_ranks, contention_study
    from ._kernels import allreduce, barrier, bcast, contention, daxpy, exchange, overheads, pingpong
    from ._layerplan import node_order, plan_layers
    from ._layerplot import plot_layer_bandwidth, plot_layer_scalability
    from ._layers import LayerSettings, measure_layers, survey_layers
    from ._mesh import Mesh, gray, hop_node, make_mesh
    from ._models import (
        bandwidth_thresholds,
        hockney_fit,
        hop_fit,
        predict,
        refinement_sizes,
        regional_fit,
        vector_rate,
    )
    from ._overlap import overlap
    from ._plot import plot_collectives, plot_echo, plot_layers, plot_overlap, plot_scaling
    from ._records import CommRecord
    from ._sanity import crowding, overlap_flags
    from ._scaling import growth_fit, measure_scaling

__all__ = ["BENCHMARK", "CommError", "CommRecord", "LayerSettings", "Mesh", "allreduce", "bandwidth_thresholds",
           "barrier", "bcast", "choose_contention_ranks", "contention", "contention_study", "crowding", "daxpy",
           "exchange", "gray", "growth_fit", "hockney_fit", "hop_fit", "hop_node", "make_mesh", "measure_layers",
           "measure_scaling", "node_order", "overheads", "overlap", "overlap_flags", "pingpong", "plan_layers",
           "plot_collectives", "plot_echo", "plot_layer_bandwidth", "plot_layer_scalability", "plot_layers",
           "plot_overlap", "plot_scaling", "predict",
           "refinement_sizes", "regional_fit", "survey_layers", "vector_rate"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    ".._collective": ("CommError",),
    "._benchmark": ("BENCHMARK",),
    "._contention": ("choose_contention_ranks", "contention_study"),
    "._kernels": ("allreduce", "barrier", "bcast", "contention", "daxpy", "exchange", "overheads", "pingpong"),
    "._layerplan": ("node_order", "plan_layers"),
    "._layerplot": ("plot_layer_bandwidth", "plot_layer_scalability"),
    "._layers": ("LayerSettings", "measure_layers", "survey_layers"),
    "._mesh": ("Mesh", "gray", "hop_node", "make_mesh"),
    "._models": ("bandwidth_thresholds", "hockney_fit", "hop_fit", "predict", "refinement_sizes", "regional_fit",
                 "vector_rate"),
    "._overlap": ("overlap",),
    "._plot": ("plot_collectives", "plot_echo", "plot_layers", "plot_overlap", "plot_scaling"),
    "._records": ("CommRecord",),
    "._sanity": ("crowding", "overlap_flags"),
    "._scaling": ("growth_fit", "measure_scaling"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
