"""Memory-access overhead between cores and memory scalability (Servet 2010,
III-C, Fig. 6), with a STREAM-style copy kernel.

measure_* functions run the C kernel (hpcbench._core.copy_team); analyze_*
functions are pure and tested on synthetic data. BENCHMARK is the suite's
`memory`.
"""
from .._protocol import Benchmark
from ._analysis import MemoryOverhead, OverheadLevel, analyze_memory_overhead, analyze_scalability, pair_bandwidth
from ._benchmark import MemoryBenchmark
from ._measure import (check_array_bytes, check_copy, copy_bandwidth, default_array_bytes, measure_pairs,
                       measure_scalability)
from ._options import MemoryOptions
from ._plot import memory_figure, plot_pair_bandwidth, plot_scalability
from ._records import MemoryDerived, MemoryParameters, MemoryRaw, MemoryRecord, ScalabilityPoint

BENCHMARK: Benchmark = MemoryBenchmark()

__all__ = ["BENCHMARK", "MemoryBenchmark", "MemoryDerived", "MemoryOptions", "MemoryOverhead", "MemoryParameters",
           "MemoryRaw", "MemoryRecord", "OverheadLevel", "ScalabilityPoint", "analyze_memory_overhead",
           "analyze_scalability", "check_array_bytes", "check_copy", "copy_bandwidth", "default_array_bytes",
           "measure_pairs", "measure_scalability", "memory_figure", "pair_bandwidth", "plot_pair_bandwidth",
           "plot_scalability"]
