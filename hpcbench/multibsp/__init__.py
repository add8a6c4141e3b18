"""MultiBSP (MBSPDiscover, 2014): the node's tree from hwloc, g and L per
level from h-communications on pinned threads, and an inner product whose
run time the model predicts. See docs/multibsp.md."""
from .model import GLFit, fit_g_L, fits_side_by_side, predict_inner_product
from .tree import Component, Level, describe, tree

__all__ = ["Component", "GLFit", "Level", "describe", "fit_g_L", "fits_side_by_side", "predict_inner_product",
           "tree"]
