"""Cache levels and sizes by timing array traversals (Servet 2010, III-A),
and which cores share each level (III-B).

measure() runs the sweep on this machine; estimate_levels() turns any
(sizes, cycles) curve into cache levels; both are independent so analysis
can be tested and re-run without hardware. The shared-cache analysis
(analyze_shared_caches, co_run_ratio) is likewise pure. BENCHMARK and
SHARED_BENCHMARK are the suite's `cache` and `shared-caches`.
"""
from .._protocol import Benchmark
from ._analysis import CacheLevel, MemoryPlateau, estimate_levels, memory_plateau, plateau_value
from ._grid import refinement_sizes, sweep_sizes
from ._passes import Passes, run_passes
from ._placement import Placement, virtual_machine
from ._rises import find_rises, gradient, monotone_fit
from ._benchmark import CacheBenchmark
from ._compare import hwloc_ways
from ._measure import CacheSweep, measure
from ._options import CacheOptions, SharedOptions
from ._plot import cache_figure, plot_bandwidth, plot_gradient, plot_latency, plot_sharing, plot_spread, shared_figure
from ._probabilistic import ProbabilisticFit, binomial_tail, estimate_size
from ._records import (CacheDerived, CacheParameters, CacheRaw, CacheRecord, MeasuredLevel, SharedCachesRecord,
                       SharedDerived, SharedLevelRecord, SharedParameters, SharedRaw)
from ._shared import (PAPER_THRESHOLD, analyze_shared_caches, choose_corun_size, co_run_ratio,
                      decision_threshold)
from ._shared_benchmark import SharedCachesBenchmark
from ._shared_measure import measure_co_runs

BENCHMARK: Benchmark = CacheBenchmark()
SHARED_BENCHMARK: Benchmark = SharedCachesBenchmark()

__all__ = ["BENCHMARK", "PAPER_THRESHOLD", "SHARED_BENCHMARK", "CacheBenchmark", "CacheDerived", "CacheLevel",
           "CacheOptions", "CacheParameters", "CacheRaw", "CacheRecord", "CacheSweep", "MeasuredLevel", "MemoryPlateau",
           "Passes", "Placement",
           "ProbabilisticFit", "SharedCachesBenchmark", "SharedCachesRecord", "SharedDerived",
           "SharedLevelRecord", "SharedOptions", "SharedParameters", "SharedRaw", "analyze_shared_caches",
           "binomial_tail", "cache_figure", "choose_corun_size", "co_run_ratio", "decision_threshold",
           "estimate_levels", "estimate_size", "find_rises", "gradient", "hwloc_ways", "measure", "measure_co_runs",
           "memory_plateau", "monotone_fit", "plateau_value", "plot_bandwidth", "plot_gradient", "plot_latency",
           "plot_sharing", "plot_spread", "refinement_sizes", "run_passes", "shared_figure", "sweep_sizes",
           "virtual_machine"]
