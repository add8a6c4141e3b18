"""hpcbench: characterise HPC nodes and clusters by benchmarking them.

    python -m hpcbench run            # the default suite, results to a JSON file
    python -m hpcbench show FILE      # a summary of a results file

From Python: hpcbench.load(path) reads a results file (with Servet 3.0's
get_network_dist_ratio / get_network_access_ratio). One package per domain
holds the measurement and analysis functions: hpcbench.topology (hwloc),
hpcbench.cache (levels and sizes; shared caches), hpcbench.memory (overhead
and scalability), hpcbench.comm (CoMet kernels, Servet layers, models),
hpcbench.network (ratDist, ratNC, grid advice), hpcbench.multibsp (tree,
g and L, inner-product prediction).
"""
__version__ = "0.1.0"

from .results import Results, ResultsError, load  # noqa: E402

__all__ = ["Results", "ResultsError", "load", "__version__"]
