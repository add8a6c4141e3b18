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
    from ._analysis import CacheLevel, MemoryPlateau, estimate_levels, memory_plateau, plateau_value
    from ._benchmark import BENCHMARK, CacheBenchmark
    from ._compare import hwloc_ways
    from ._curve import AnalysisSettings
    from ._grid import RefinementSettings, refinement_sizes, sweep_sizes
    from ._measure import CacheSweep, measure
    from ._options import CacheOptions, SharedOptions
    from ._passes import Passes, PassPlan, run_passes
    from ._placement import Placement, virtual_machine
    from ._plot import (
        cache_figure,
        plot_bandwidth,
        plot_gradient,
        plot_latency,
        plot_sharing,
        plot_spread,
        shared_figure,
    )
    from ._probabilistic import ProbabilisticFit, SizeFitSettings, binomial_tail, estimate_size
    from ._records import (
        CacheDerived,
        CacheParameters,
        CacheRaw,
        CacheRecord,
        MeasuredLevel,
        SharedCachesRecord,
        SharedDerived,
        SharedLevelRecord,
        SharedParameters,
        SharedRaw,
    )
    from ._rises import find_rises, gradient, monotone_fit
    from ._shared import PAPER_THRESHOLD, analyze_shared_caches, choose_corun_size, co_run_ratio, decision_threshold
    from ._shared_benchmark import SHARED_BENCHMARK, SharedCachesBenchmark
    from ._shared_measure import measure_co_runs

__all__ = ["BENCHMARK", "PAPER_THRESHOLD", "SHARED_BENCHMARK", "AnalysisSettings", "CacheBenchmark", "CacheDerived",
           "CacheLevel", "CacheOptions", "CacheParameters", "CacheRaw", "CacheRecord", "CacheSweep", "MeasuredLevel",
           "MemoryPlateau", "PassPlan", "Passes", "Placement", "ProbabilisticFit", "RefinementSettings",
           "SharedCachesBenchmark", "SharedCachesRecord", "SharedDerived", "SharedLevelRecord", "SharedOptions",
           "SharedParameters", "SharedRaw", "SizeFitSettings", "analyze_shared_caches", "binomial_tail",
           "cache_figure", "choose_corun_size", "co_run_ratio", "decision_threshold", "estimate_levels",
           "estimate_size", "find_rises", "gradient", "hwloc_ways", "measure", "measure_co_runs", "memory_plateau",
           "monotone_fit", "plateau_value", "plot_bandwidth", "plot_gradient", "plot_latency", "plot_sharing",
           "plot_spread", "refinement_sizes", "run_passes", "shared_figure", "sweep_sizes", "virtual_machine"]

# public name -> the submodule that defines it (imported on first use: hpcbench._lazy)
_EXPORTS = {
    'AnalysisSettings': '._curve',
    'BENCHMARK': '._benchmark',
    'CacheBenchmark': '._benchmark',
    'CacheDerived': '._records',
    'CacheLevel': '._analysis',
    'CacheOptions': '._options',
    'CacheParameters': '._records',
    'CacheRaw': '._records',
    'CacheRecord': '._records',
    'CacheSweep': '._measure',
    'MeasuredLevel': '._records',
    'MemoryPlateau': '._analysis',
    'PAPER_THRESHOLD': '._shared',
    'PassPlan': '._passes',
    'Passes': '._passes',
    'Placement': '._placement',
    'ProbabilisticFit': '._probabilistic',
    'RefinementSettings': '._grid',
    'SHARED_BENCHMARK': '._shared_benchmark',
    'SharedCachesBenchmark': '._shared_benchmark',
    'SharedCachesRecord': '._records',
    'SharedDerived': '._records',
    'SharedLevelRecord': '._records',
    'SharedOptions': '._options',
    'SharedParameters': '._records',
    'SharedRaw': '._records',
    'SizeFitSettings': '._probabilistic',
    'analyze_shared_caches': '._shared',
    'binomial_tail': '._probabilistic',
    'cache_figure': '._plot',
    'choose_corun_size': '._shared',
    'co_run_ratio': '._shared',
    'decision_threshold': '._shared',
    'estimate_levels': '._analysis',
    'estimate_size': '._probabilistic',
    'find_rises': '._rises',
    'gradient': '._rises',
    'hwloc_ways': '._compare',
    'measure': '._measure',
    'measure_co_runs': '._shared_measure',
    'memory_plateau': '._analysis',
    'monotone_fit': '._rises',
    'plateau_value': '._analysis',
    'plot_bandwidth': '._plot',
    'plot_gradient': '._plot',
    'plot_latency': '._plot',
    'plot_sharing': '._plot',
    'plot_spread': '._plot',
    'refinement_sizes': '._grid',
    'run_passes': '._passes',
    'shared_figure': '._plot',
    'sweep_sizes': '._grid',
    'virtual_machine': '._placement',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
