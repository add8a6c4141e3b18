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
    from ._benchmark import BENCHMARK, CommBenchmark
    from ._contention import CONTENTION_SIZES, ContentionRanks, choose_contention_ranks, contention_study
    from ._kernels import Overheads, allreduce, barrier, bcast, contention, daxpy, exchange, overheads, pingpong
    from ._layerplan import LayerPlan, PairNamer, node_order, pair_name, plan_layers
    from ._layers import DEFAULT_TOLERANCE as LAYER_TOLERANCE
    from ._layers import LayerSettings, LayerSurvey, group_layers, measure_layers, measure_round, survey_layers
    from ._mesh import Mesh, gray, hop_node, make_mesh, mesh_dims
    from ._models import (
        Linear,
        bandwidth_thresholds,
        breakpoints,
        hockney_fit,
        hop_fit,
        predict,
        refinement_sizes,
        regional_fit,
        vector_rate,
    )
    from ._options import CommOptions
    from ._overlap import OverlapGrid, overlap
    from ._plot import comm_figure, plot_collectives, plot_echo, plot_layers, plot_overlap, plot_scaling
    from ._records import CommDerived, CommParameters, CommRaw, CommRecord, SweepFit, SweepSummary
    from ._sanity import crowding, overlap_flags
    from ._scaling import Scaling, growth_fit, measure_scaling, process_counts
    from ._sweep import SizeSweep, message_sizes

__all__ = ["BENCHMARK", "CONTENTION_SIZES", "CommBenchmark", "CommDerived", "CommError", "CommOptions",
           "CommParameters", "CommRaw", "CommRecord", "ContentionRanks", "LAYER_TOLERANCE", "LayerPlan",
           "LayerSettings", "LayerSurvey",
           "Linear", "Mesh", "Overheads", "OverlapGrid", "PairNamer", "Scaling", "SizeSweep", "SweepFit",
           "SweepSummary", "allreduce", "bandwidth_thresholds", "barrier", "bcast", "breakpoints",
           "choose_contention_ranks", "comm_figure", "contention", "contention_study", "crowding", "daxpy", "exchange",
           "gray", "group_layers", "growth_fit", "hockney_fit", "hop_fit", "hop_node", "make_mesh", "measure_layers",
           "measure_round", "measure_scaling", "mesh_dims", "message_sizes", "node_order", "overheads", "overlap",
           "overlap_flags", "pair_name", "pingpong", "plan_layers", "plot_collectives", "plot_echo", "plot_layers",
           "plot_overlap", "plot_scaling", "predict", "process_counts", "refinement_sizes", "regional_fit",
           "survey_layers", "vector_rate"]

# public name -> the submodule that defines it (imported on first use: hpcbench._lazy)
_EXPORTS = {
    'BENCHMARK': '._benchmark',
    'CONTENTION_SIZES': '._contention',
    'CommBenchmark': '._benchmark',
    'CommDerived': '._records',
    'CommError': '.._collective',
    'CommOptions': '._options',
    'CommParameters': '._records',
    'CommRaw': '._records',
    'CommRecord': '._records',
    'ContentionRanks': '._contention',
    'LAYER_TOLERANCE': '._layers:DEFAULT_TOLERANCE',
    'LayerPlan': '._layerplan',
    'LayerSettings': '._layers',
    'LayerSurvey': '._layers',
    'Linear': '._models',
    'Mesh': '._mesh',
    'Overheads': '._kernels',
    'OverlapGrid': '._overlap',
    'PairNamer': '._layerplan',
    'Scaling': '._scaling',
    'SizeSweep': '._sweep',
    'SweepFit': '._records',
    'SweepSummary': '._records',
    'allreduce': '._kernels',
    'bandwidth_thresholds': '._models',
    'barrier': '._kernels',
    'bcast': '._kernels',
    'breakpoints': '._models',
    'choose_contention_ranks': '._contention',
    'comm_figure': '._plot',
    'contention': '._kernels',
    'contention_study': '._contention',
    'crowding': '._sanity',
    'daxpy': '._kernels',
    'exchange': '._kernels',
    'gray': '._mesh',
    'group_layers': '._layers',
    'growth_fit': '._scaling',
    'hockney_fit': '._models',
    'hop_fit': '._models',
    'hop_node': '._mesh',
    'make_mesh': '._mesh',
    'measure_layers': '._layers',
    'measure_round': '._layers',
    'measure_scaling': '._scaling',
    'mesh_dims': '._mesh',
    'message_sizes': '._sweep',
    'node_order': '._layerplan',
    'overheads': '._kernels',
    'overlap': '._overlap',
    'overlap_flags': '._sanity',
    'pair_name': '._layerplan',
    'pingpong': '._kernels',
    'plan_layers': '._layerplan',
    'plot_collectives': '._plot',
    'plot_echo': '._plot',
    'plot_layers': '._plot',
    'plot_overlap': '._plot',
    'plot_scaling': '._plot',
    'predict': '._models',
    'process_counts': '._scaling',
    'refinement_sizes': '._models',
    'regional_fit': '._models',
    'survey_layers': '._layers',
    'vector_rate': '._models',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
