"""The cache levels of one measured sweep, as every benchmark reads them
(the cache benchmark, and shared-caches when it sweeps for itself): one
call, so that both pass the analysis the same facts."""
from __future__ import annotations

from collections.abc import Sequence

from ..topology import Cache
from ._analysis import CacheLevel, estimate_levels
from ._capacity import envelope
from ._compare import hwloc_ways
from ._measure import CacheSweep
from ._placement import combined


def sweep_levels(sweep: CacheSweep, hwloc_caches: Sequence[Cache]) -> list[CacheLevel]:
    """estimate_levels on a measured sweep: its combined placement, the
    envelope of its passes, and hwloc's associativities and count of data
    caches (`hwloc_caches`, those of the PU swept; empty: none known)."""
    return estimate_levels(sweep.sizes, sweep.cycles, page_size=sweep.parameters["page_size"],
                           refined=sweep.refined, placement=combined(sweep.placements).kind,
                           ways=hwloc_ways(hwloc_caches), best=envelope(sweep.samples_cycles),
                           line=sweep.parameters["stride"], expected=len(hwloc_caches) or None)
