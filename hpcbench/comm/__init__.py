"""Communication: CoMet's kernels (echo, pairwise exchange, broadcast,
global sum, barrier, echo with contention, overlap, DAXPY rate), Servet's
communication layers, and fitted cost models (Hockney, regionalised least
squares, hops, n_1/2).

Kernels are collective over any mpi4py communicator; models are pure
functions of (sizes, times). See docs/comm.md. BENCHMARK is the suite's `comm`.
"""
from .._protocol import Benchmark
from .._collective import CommError
from ._benchmark import CommBenchmark
from ._kernels import allreduce, barrier, bcast, contention, daxpy, exchange, overlap, pingpong
from ._layers import DEFAULT_TOLERANCE as LAYER_TOLERANCE
from ._layers import group_layers, measure_layers, pair_name
from ._mesh import Mesh, gray, hop_node, make_mesh, mesh_dims
from ._models import (Linear, bandwidth_thresholds, breakpoints, hockney_fit, hop_fit, predict, refinement_sizes,
                      regional_fit, vector_rate)
from ._options import CommOptions
from ._plot import comm_figure, plot_collectives, plot_echo, plot_layers, plot_overlap
from ._records import CommDerived, CommParameters, CommRaw, CommRecord, SweepFit, SweepSummary
from ._sweep import SizeSweep, message_sizes

BENCHMARK: Benchmark = CommBenchmark()

__all__ = ["BENCHMARK", "CommBenchmark", "CommDerived", "CommError", "CommOptions", "CommParameters", "CommRaw",
           "CommRecord", "LAYER_TOLERANCE", "Linear", "Mesh", "SizeSweep", "SweepFit", "SweepSummary", "allreduce",
           "bandwidth_thresholds", "barrier", "bcast", "breakpoints", "comm_figure", "contention", "daxpy",
           "exchange", "gray", "group_layers", "hockney_fit", "hop_fit", "hop_node", "make_mesh", "measure_layers",
           "mesh_dims", "message_sizes", "overlap", "pair_name", "pingpong", "plot_collectives", "plot_echo",
           "plot_layers", "plot_overlap", "predict", "refinement_sizes", "regional_fit", "vector_rate"]
