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
from .._collective import CommError
from .._protocol import Benchmark
from ._benchmark import CommBenchmark
from ._contention import CONTENTION_SIZES, ContentionRanks, choose_contention_ranks, contention_study
from ._kernels import Overheads, allreduce, barrier, bcast, contention, daxpy, exchange, overheads, pingpong
from ._layerplan import LayerPlan, PairNamer, node_order, pair_name, plan_layers
from ._layers import DEFAULT_TOLERANCE as LAYER_TOLERANCE
from ._layers import LayerSurvey, group_layers, measure_layers, measure_round, survey_layers
from ._mesh import Mesh, gray, hop_node, make_mesh, mesh_dims
from ._models import (Linear, bandwidth_thresholds, breakpoints, hockney_fit, hop_fit, predict, refinement_sizes,
                      regional_fit, vector_rate)
from ._options import CommOptions
from ._overlap import OverlapGrid, overlap
from ._plot import comm_figure, plot_collectives, plot_echo, plot_layers, plot_overlap, plot_scaling
from ._records import CommDerived, CommParameters, CommRaw, CommRecord, SweepFit, SweepSummary
from ._sanity import crowding, overlap_flags
from ._scaling import Scaling, growth_fit, measure_scaling, process_counts
from ._sweep import SizeSweep, message_sizes

BENCHMARK: Benchmark = CommBenchmark()

__all__ = ["BENCHMARK", "CONTENTION_SIZES", "CommBenchmark", "CommDerived", "CommError", "CommOptions",
           "CommParameters", "CommRaw", "CommRecord", "ContentionRanks", "LAYER_TOLERANCE", "LayerPlan", "LayerSurvey",
           "Linear", "Mesh", "Overheads", "OverlapGrid", "PairNamer", "Scaling", "SizeSweep", "SweepFit",
           "SweepSummary", "allreduce", "bandwidth_thresholds", "barrier", "bcast", "breakpoints",
           "choose_contention_ranks", "comm_figure", "contention", "contention_study", "crowding", "daxpy", "exchange",
           "gray", "group_layers", "growth_fit", "hockney_fit", "hop_fit", "hop_node", "make_mesh", "measure_layers",
           "measure_round", "measure_scaling", "mesh_dims", "message_sizes", "node_order", "overheads", "overlap",
           "overlap_flags", "pair_name", "pingpong", "plan_layers", "plot_collectives", "plot_echo", "plot_layers",
           "plot_overlap", "plot_scaling", "predict", "process_counts", "refinement_sizes", "regional_fit",
           "survey_layers", "vector_rate"]
