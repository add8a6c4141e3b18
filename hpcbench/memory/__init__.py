"""Memory-access overhead between cores and memory scalability (Servet 2010,
III-C, Fig. 6), with a STREAM-style copy kernel.

measure_* functions run the C kernel (hpcbench._core.copy_team); analyze_*
functions are pure and tested on synthetic data. What several cores deliver
together is the aggregate bandwidth (aggregate_bandwidth: all bytes over the
first start to the last end), not the sum of their own rates. BENCHMARK is
the suite's `memory`.
"""
from .._protocol import Benchmark
from ._analysis import (OVERSTATED, UNEVEN_CORES, MemoryOverhead, OverheadLevel, aggregate_bandwidth,
                        analyze_memory_overhead, analyze_scalability, own_rates, pair_aggregate, pair_bandwidth,
                        run_aggregate, uneven_cores_warning)
from ._benchmark import MemoryBenchmark
from ._measure import (CopyRun, check_array_bytes, check_copy, copy_bandwidth, copy_run, default_array_bytes,
                       measure_pairs, measure_scalability)
from ._options import MemoryOptions
from ._plot import memory_figure, plot_pair_bandwidth, plot_scalability
from ._records import MemoryDerived, MemoryParameters, MemoryRaw, MemoryRecord, ScalabilityPoint

BENCHMARK: Benchmark = MemoryBenchmark()

__all__ = ["BENCHMARK", "CopyRun", "MemoryBenchmark", "MemoryDerived", "MemoryOptions", "MemoryOverhead",
           "MemoryParameters", "MemoryRaw", "MemoryRecord", "OVERSTATED", "OverheadLevel", "ScalabilityPoint",
           "UNEVEN_CORES", "aggregate_bandwidth", "analyze_memory_overhead", "analyze_scalability",
           "check_array_bytes", "check_copy", "copy_bandwidth", "copy_run", "default_array_bytes", "measure_pairs",
           "measure_scalability", "memory_figure", "own_rates", "pair_aggregate", "pair_bandwidth",
           "plot_pair_bandwidth", "plot_scalability", "run_aggregate", "uneven_cores_warning"]
