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
    from ._analysis import analyze_scalability, own_rates, pair_aggregate, pair_bandwidth, run_aggregate
    from ._benchmark import BENCHMARK
    from ._measure import copy_run, default_array_bytes
    from ._plot import plot_pair_bandwidth, plot_scalability
    from ._records import MemoryRecord

__all__ = ["BENCHMARK", "MemoryRecord", "analyze_scalability", "copy_run", "default_array_bytes", "own_rates",
           "pair_aggregate", "pair_bandwidth", "plot_pair_bandwidth", "plot_scalability", "run_aggregate"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._analysis": ("analyze_scalability", "own_rates", "pair_aggregate", "pair_bandwidth", "run_aggregate"),
    "._benchmark": ("BENCHMARK",),
    "._measure": ("copy_run", "default_array_bytes"),
    "._plot": ("plot_pair_bandwidth", "plot_scalability"),
    "._records": ("MemoryRecord",),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
