"""Measured levels set beside hwloc's, and the ones not reported as caches
(pure functions, no hardware).

A latency step is a cache level only if hwloc knows a cache there: the
measured levels are aligned with hwloc's in order, by size (a dynamic
program over log-size differences, where leaving a level unmatched costs
as much as a factor SKIP_FACTOR). Then

* a measured level matched with hwloc's and within EFFECTIVE_SHARE of its
  size is reported as that cache;
* one matched but far smaller is flagged, "effective capacity 6 MiB under
  load; hwloc: 32 MiB": other tenants or the other hardware thread hold the
  rest (a shared L3 on a busy host), so the size is not the cache's;
* one hwloc has no cache for (a TLB running out of reach, a cache hwloc
  does not report) is flagged too, never reported as a cache;
* a cache of hwloc's that the alignment left alone takes the largest
  unmatched step below it between its neighbours, as its effective capacity;
* a cache of hwloc's with no step of its own is said in words.

Without hwloc caches (an unknown machine) every level is reported as found.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .._format import format_size
from ..topology import Cache

#: A measured level "agrees" with hwloc within this relative difference.
AGREEMENT = 0.10
#: A matched level below this share of hwloc's size is an effective capacity.
EFFECTIVE_SHARE = 0.5
#: Leaving a level unmatched costs as much as a size ratio of this factor.
SKIP_FACTOR = 2.8


@dataclass(frozen=True)
class Verdict:
    """What one measured level is, beside hwloc."""

    number: int                 #: its level number (hwloc's where matched)
    hwloc_size: int | None      #: bytes, where matched
    status: str                 #: "cache" or "flagged"
    note: str | None            #: why flagged


def align(measured: list[int], hwloc: list[int]) -> list[int | None]:
    """For each measured size, the index of the hwloc size it matches (both
    lists increasing; matches keep the order), or None."""
    skip = math.log2(SKIP_FACTOR)
    n, m = len(measured), len(hwloc)
    cost = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 or j == 0:
                cost[i][j] = skip * (i + j)
                continue
            match = abs(math.log2(measured[i - 1] / hwloc[j - 1]))
            cost[i][j] = min(cost[i - 1][j - 1] + match, cost[i - 1][j] + skip, cost[i][j - 1] + skip)
    out: list[int | None] = [None] * n
    i, j = n, m
    while i > 0 and j > 0:
        match = abs(math.log2(measured[i - 1] / hwloc[j - 1]))
        if math.isclose(cost[i][j], cost[i - 1][j - 1] + match):
            out[i - 1] = j - 1
            i, j = i - 1, j - 1
        elif math.isclose(cost[i][j], cost[i - 1][j] + skip):
            i -= 1
        else:
            j -= 1
    return out


def _effective_matches(measured: list[int], hwloc: Sequence[Cache],
                       matches: list[int | None]) -> list[int | None]:
    """A cache of hwloc's that the alignment left unmatched takes the
    largest unmatched step between its neighbours' matches that is smaller
    than it: its effective capacity when other work holds most of it (a
    shared L3 on a busy host can show a fraction of its size)."""
    matches = list(matches)
    for j, cache in enumerate(hwloc):
        if j in matches:
            continue
        before = max((i for i, m in enumerate(matches) if m is not None and m < j), default=-1)
        after = min((i for i, m in enumerate(matches) if m is not None and m > j), default=len(measured))
        free = [i for i in range(before + 1, after) if matches[i] is None and measured[i] < cache.size]
        if free:
            matches[max(free, key=lambda i: measured[i])] = j
    return matches


def hwloc_ways(caches: Sequence[Cache]) -> tuple[int, ...]:
    """The associativities hwloc reports for the caches past the first
    (those the page-set model sizes); empty (any) where it reports none."""
    return tuple(sorted({c.associativity for c in caches if c.level > 1 and c.associativity > 0}))


def judge(measured: list[int], hwloc: Sequence[Cache]) -> tuple[list[Verdict], list[str]]:
    """Verdicts for measured sizes (bytes, increasing) against hwloc's
    caches (objects with .level and .size), and the words for hwloc's caches
    that no step matched."""
    if not hwloc:
        return [Verdict(i + 1, None, "cache", None) for i in range(len(measured))], []
    matches = _effective_matches(measured, hwloc, align(measured, [c.size for c in hwloc]))
    verdicts, number = [], 0
    for size, j in zip(measured, matches):
        if j is None:
            verdicts.append(Verdict(max(number, 1), None, "flagged",
                                    f"a latency step at {format_size(size)} that hwloc does not report: a TLB "
                                    "running out of reach, or a cache hwloc does not know; not reported as a "
                                    "cache"))
            continue
        hw = hwloc[j]
        number = hw.level
        if size < EFFECTIVE_SHARE * hw.size:
            verdicts.append(Verdict(number, hw.size, "flagged",
                                    f"effective capacity {format_size(size)} under load; hwloc: "
                                    f"{format_size(hw.size)} (other tenants or hardware threads hold the rest)"))
        else:
            verdicts.append(Verdict(number, hw.size, "cache", None))
    matched = {j for j in matches if j is not None}
    missing = [f"hwloc's L{c.level} ({format_size(c.size)}) shows no latency step of its own in the sweep"
               for j, c in enumerate(hwloc) if j not in matched]
    return verdicts, missing
