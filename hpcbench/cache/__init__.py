"""Cache levels and sizes by timing array traversals (Servet 2010, III-A).

measure() runs the sweep on this machine; estimate_levels() turns any
(sizes, cycles) curve into cache levels; both are independent so analysis
can be tested and re-run without hardware.
"""
from .analysis import CacheLevel, estimate_levels, find_rises, gradient, monotone_fit, refinement_sizes
from .measure import CacheSweep, measure

__all__ = ["CacheLevel", "CacheSweep", "estimate_levels", "find_rises", "gradient", "measure",
           "monotone_fit", "refinement_sizes"]
