"""Cache levels and sizes by timing array traversals (Servet 2010, III-A)."""
from .analysis import CacheLevel, estimate_levels, find_rises, gradient, monotone_fit

__all__ = ["CacheLevel", "estimate_levels", "find_rises", "gradient", "monotone_fit"]
