"""Cache levels and sizes by timing array traversals (Servet 2010, III-A),
and which cores share each level (III-B).

measure() runs the sweep on this machine; estimate_levels() turns any
(sizes, cycles) curve into cache levels; both are independent so analysis
can be tested and re-run without hardware. The shared-cache analysis
(analyze_shared_caches, co_run_ratio) is likewise pure. BENCHMARK and
SHARED_BENCHMARK are the suite's `cache` and `shared-caches`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._analysis import estimate_levels
    from ._benchmark import BENCHMARK
    from ._compare import hwloc_ways
    from ._curve import AnalysisSettings
    from ._grid import RefinementSettings, refinement_sizes
    from ._measure import measure
    from ._options import CacheOptions
    from ._passes import PassPlan, run_passes
    from ._placement import Placement, virtual_machine
    from ._plot import plot_bandwidth, plot_gradient, plot_latency, plot_sharing, plot_spread
    from ._probabilistic import SizeFitSettings, estimate_size
    from ._records import CacheRecord, SharedCachesRecord
    from ._rises import gradient
    from ._shared import co_run_ratio
    from ._shared_benchmark import SHARED_BENCHMARK

__all__ = ["AnalysisSettings", "BENCHMARK", "CacheOptions", "CacheRecord", "PassPlan", "Placement",
           "RefinementSettings", "SHARED_BENCHMARK", "SharedCachesRecord", "SizeFitSettings", "co_run_ratio",
           "estimate_levels", "estimate_size", "gradient", "hwloc_ways", "measure", "plot_bandwidth", "plot_gradient",
           "plot_latency", "plot_sharing", "plot_spread", "refinement_sizes", "run_passes", "virtual_machine"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._analysis": ("estimate_levels",),
    "._benchmark": ("BENCHMARK",),
    "._compare": ("hwloc_ways",),
    "._curve": ("AnalysisSettings",),
    "._grid": ("RefinementSettings", "refinement_sizes"),
    "._measure": ("measure",),
    "._options": ("CacheOptions",),
    "._passes": ("PassPlan", "run_passes"),
    "._placement": ("Placement", "virtual_machine"),
    "._plot": ("plot_bandwidth", "plot_gradient", "plot_latency", "plot_sharing", "plot_spread"),
    "._probabilistic": ("SizeFitSettings", "estimate_size"),
    "._records": ("CacheRecord", "SharedCachesRecord"),
    "._rises": ("gradient",),
    "._shared": ("co_run_ratio",),
    "._shared_benchmark": ("SHARED_BENCHMARK",),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
