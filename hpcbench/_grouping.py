"""Grouping measured values into levels separated by gaps (used for memory
overhead levels and communication layers).

Servet groups greedily in measuring order ("similar to a level already
found"), so its levels depend on that order. Here the values are sorted and
a new level starts wherever one value exceeds the previous one by more than
`tolerance` (relative): the same values always give the same levels, and
many values of one kind spread by noise stay one level.
"""
from __future__ import annotations


def split_at_gaps(values: dict, tolerance: float) -> list:
    """{key: value} -> lists of keys, lowest values first."""
    if not (isinstance(tolerance, (int, float)) and tolerance > 0):
        raise ValueError(f"the tolerance must be a positive number, got {tolerance!r}")
    levels, previous = [], None
    for key, v in sorted(values.items(), key=lambda kv: (kv[1], kv[0])):
        if previous is not None and v <= previous * (1 + tolerance):
            levels[-1].append(key)
        else:
            levels.append([key])
        previous = v
    return levels
