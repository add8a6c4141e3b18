"""The NUMA local/remote matrix: for every pair (cores of NUMA node i,
memory of NUMA node j), the read bandwidth of node i's cores together and
the load latency of one of them over a buffer bound to node j with hwloc,
their ratios to local, and hwloc's own distances beside them.

plan_numa is pure (any Topology, synthetic ones too); measure_cell runs the
C kernel (hpcbench._core.numa_cell); analyze_numa is pure and tested on
synthetic measurements. BENCHMARK is the suite's `numa`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._analysis import NumaAnalysis, analyze_numa
    from ._benchmark import BENCHMARK
    from ._distances import hwloc_distances
    from ._measure import measure_cell
    from ._plan import NumaPlan, plan_numa
    from ._plot import plot_numa_matrices
    from ._records import NumaRecord

__all__ = ["BENCHMARK", "NumaAnalysis", "NumaPlan", "NumaRecord", "analyze_numa", "hwloc_distances", "measure_cell",
           "plan_numa", "plot_numa_matrices"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._analysis": ("NumaAnalysis", "analyze_numa"),
    "._benchmark": ("BENCHMARK",),
    "._distances": ("hwloc_distances",),
    "._measure": ("measure_cell",),
    "._plan": ("NumaPlan", "plan_numa"),
    "._plot": ("plot_numa_matrices",),
    "._records": ("NumaRecord",),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
