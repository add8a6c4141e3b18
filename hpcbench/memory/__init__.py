"""Memory-access overhead between cores and memory scalability (Servet 2010,
III-C, Fig. 6), with a STREAM-style copy kernel.

measure_* functions run the C kernel (hpcbench._core.copy_team); analyze_*
functions are pure and tested on synthetic data.
"""
from .analysis import MemoryOverhead, OverheadLevel, analyze_memory_overhead, analyze_scalability, pair_bandwidth
from .measure import copy_bandwidth, default_array_bytes, measure_pairs, measure_scalability

__all__ = ["MemoryOverhead", "OverheadLevel", "analyze_memory_overhead", "analyze_scalability", "copy_bandwidth",
           "default_array_bytes", "measure_pairs", "measure_scalability", "pair_bandwidth"]
