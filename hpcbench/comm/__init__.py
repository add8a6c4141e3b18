"""Communication: CoMet's kernels (echo, pairwise exchange, broadcast,
global sum, barrier, echo with contention, overlap, DAXPY rate), Servet's
communication layers, and fitted cost models (Hockney, regionalised least
squares, hops, n_1/2).

Kernels are collective over any mpi4py communicator; models are pure
functions of (sizes, times). See docs/comm.md.
"""
from ._collective import CommError
from .kernels import (allreduce, barrier, bcast, contention, daxpy, exchange, overlap, pingpong)
from .layers import group_layers, measure_layers, pair_name
from .mesh import Mesh, gray, hop_node, make_mesh, mesh_dims
from .models import (bandwidth_thresholds, breakpoints, hockney_fit, hop_fit, predict, refinement_sizes,
                     regional_fit, vector_rate)
from .sweep import SizeSweep, message_sizes

__all__ = ["CommError", "Mesh", "SizeSweep", "allreduce", "bandwidth_thresholds", "barrier", "bcast",
           "breakpoints", "contention", "daxpy", "exchange", "gray", "group_layers", "hockney_fit", "hop_fit",
           "hop_node", "make_mesh", "measure_layers", "mesh_dims", "message_sizes", "overlap", "pair_name",
           "pingpong", "predict", "refinement_sizes", "regional_fit", "vector_rate"]
