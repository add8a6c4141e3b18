"""Memory-access overhead between cores and memory scalability (Servet 2010,
III-C, Fig. 6), with a STREAM-style copy kernel.

measure_* functions run the C kernel (hpcbench._core.copy_team); analyze_*
functions are pure and tested on synthetic data. What several cores deliver
together is the aggregate bandwidth (aggregate_bandwidth: all bytes over the
first start to the last end), not the sum of their own rates. BENCHMARK is
the suite's `memory`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._analysis import (
        OVERSTATED,
        UNEVEN_CORES,
        MemoryOverhead,
        OverheadLevel,
        aggregate_bandwidth,
        analyze_memory_overhead,
        analyze_scalability,
        own_rates,
        pair_aggregate,
        pair_bandwidth,
        run_aggregate,
        uneven_cores_warning,
    )
    from ._benchmark import BENCHMARK, MemoryBenchmark
    from ._measure import (
        CopyRun,
        check_array_bytes,
        check_copy,
        copy_bandwidth,
        copy_run,
        default_array_bytes,
        measure_pairs,
        measure_scalability,
    )
    from ._options import MemoryOptions
    from ._plot import memory_figure, plot_pair_bandwidth, plot_scalability
    from ._records import MemoryDerived, MemoryParameters, MemoryRaw, MemoryRecord, ScalabilityPoint

__all__ = ["BENCHMARK", "CopyRun", "MemoryBenchmark", "MemoryDerived", "MemoryOptions", "MemoryOverhead",
           "MemoryParameters", "MemoryRaw", "MemoryRecord", "OVERSTATED", "OverheadLevel", "ScalabilityPoint",
           "UNEVEN_CORES", "aggregate_bandwidth", "analyze_memory_overhead", "analyze_scalability",
           "check_array_bytes", "check_copy", "copy_bandwidth", "copy_run", "default_array_bytes", "measure_pairs",
           "measure_scalability", "memory_figure", "own_rates", "pair_aggregate", "pair_bandwidth",
           "plot_pair_bandwidth", "plot_scalability", "run_aggregate", "uneven_cores_warning"]

# public name -> the submodule that defines it (imported on first use: hpcbench._lazy)
_EXPORTS = {
    'BENCHMARK': '._benchmark',
    'CopyRun': '._measure',
    'MemoryBenchmark': '._benchmark',
    'MemoryDerived': '._records',
    'MemoryOptions': '._options',
    'MemoryOverhead': '._analysis',
    'MemoryParameters': '._records',
    'MemoryRaw': '._records',
    'MemoryRecord': '._records',
    'OVERSTATED': '._analysis',
    'OverheadLevel': '._analysis',
    'ScalabilityPoint': '._records',
    'UNEVEN_CORES': '._analysis',
    'aggregate_bandwidth': '._analysis',
    'analyze_memory_overhead': '._analysis',
    'analyze_scalability': '._analysis',
    'check_array_bytes': '._measure',
    'check_copy': '._measure',
    'copy_bandwidth': '._measure',
    'copy_run': '._measure',
    'default_array_bytes': '._measure',
    'measure_pairs': '._measure',
    'measure_scalability': '._measure',
    'memory_figure': '._plot',
    'own_rates': '._analysis',
    'pair_aggregate': '._analysis',
    'pair_bandwidth': '._analysis',
    'plot_pair_bandwidth': '._plot',
    'plot_scalability': '._plot',
    'run_aggregate': '._analysis',
    'uneven_cores_warning': '._analysis',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
