"""hpcbench: characterise HPC nodes and clusters by benchmarking them.

    python -m hpcbench run            # the default suite, results to a JSON file
    python -m hpcbench show FILE      # a summary of a results file

From Python: hpcbench.load(path) reads a results file into typed records
(with Servet 3.0's get_network_dist_ratio / get_network_access_ratio). One
package per domain holds the measurement and analysis functions and its
benchmark: hpcbench.topology (hwloc, binding, pairs of cores),
hpcbench.cache (levels and sizes; shared caches), hpcbench.memory (overhead
and scalability), hpcbench.stream (STREAM's four kernels per core count),
hpcbench.bandwidth (likwid-bench's kernels per cache level), hpcbench.flops
(peak FLOP/s), hpcbench.numa (the local/remote matrix), hpcbench.micro (the
OSU and IMB families), hpcbench.comm (CoMet kernels, Servet layers, models),
hpcbench.network (ratDist, ratNC, grid advice), hpcbench.multibsp (tree,
g and L, inner-product prediction). hpcbench.BENCHMARKS lists the suite.

The names below are imported on first use (PEP 562): `python -m hpcbench
--help` imports this package first and must not pay for NumPy, the C core or
every benchmark before it prints a line.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from ._version import __version__

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_LAZY = {
    "._errors": ("HpcbenchError", "InputError", "MeasurementError", "OptionError", "OutputError", "ResultsError",
                 "Skipped", "Unavailable"),
    "._protocol": ("Benchmark", "Context", "Job"),
    "._record": ("Record", "SchemaError"),
    "._registry": ("BENCHMARKS", "default_suite"),
    "._results": ("Results", "load"),
    "._runner": ("run_suite",),
    ".topology": ("Topology",),
}

__all__ = ["BENCHMARKS", "Benchmark", "Context", "HpcbenchError", "InputError", "Job", "MeasurementError",
           "OptionError", "OutputError", "Record", "Results", "ResultsError", "SchemaError", "Skipped", "Topology",
           "Unavailable", "__version__", "default_suite", "load", "run_suite"]

if TYPE_CHECKING:   # what type checkers and IDEs see: the eager imports
    from ._errors import (
        HpcbenchError,
        InputError,
        MeasurementError,
        OptionError,
        OutputError,
        ResultsError,
        Skipped,
        Unavailable,
    )
    from ._protocol import Benchmark, Context, Job
    from ._record import Record, SchemaError
    from ._registry import BENCHMARKS, default_suite
    from ._results import Results, load
    from ._runner import run_suite
    from .topology import Topology


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
