"""hpcbench: characterise HPC nodes and clusters by benchmarking them.

    python -m hpcbench run            # the default suite, results to a JSON file
    python -m hpcbench show FILE      # a summary of a results file

From Python: hpcbench.load(path) reads a results file into typed records
(with Servet 3.0's get_network_dist_ratio / get_network_access_ratio). One
package per domain holds the measurement and analysis functions and its
benchmark: hpcbench.topology (hwloc, binding, pairs of cores),
hpcbench.cache (levels and sizes; shared caches), hpcbench.memory (overhead
and scalability), hpcbench.comm (CoMet kernels, Servet layers, models),
hpcbench.network (ratDist, ratNC, grid advice), hpcbench.multibsp (tree,
g and L, inner-product prediction). hpcbench.BENCHMARKS lists the suite.
"""
from ._errors import OptionError, Skipped
from ._protocol import Benchmark, Context, Job
from ._record import Record, SchemaError
from ._registry import BENCHMARKS, default_suite
from ._results import Results, ResultsError, load
from ._runner import run_suite
from ._version import __version__
from .topology import Topology

__all__ = ["BENCHMARKS", "Benchmark", "Context", "Job", "OptionError", "Record", "Results", "ResultsError",
           "SchemaError", "Skipped", "Topology", "__version__", "default_suite", "load", "run_suite"]
