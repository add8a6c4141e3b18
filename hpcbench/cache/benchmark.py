"""The `cache` benchmark of the suite: measure, analyse, compare with hwloc,
and build the results record."""
from __future__ import annotations

import numpy as np

from .analysis import estimate_levels, gradient
from .measure import measure

#: A measured level "agrees" with hwloc within this relative difference.
AGREEMENT = 0.15

UNITS = {
    "sizes": "bytes", "cycles_per_access": "TSC ticks per access", "ns_per_access": "ns per access",
    "level.size": "bytes", "hwloc_size": "bytes", "relative_difference": "(measured - hwloc) / hwloc",
}


def compare_with_hwloc(levels, hwloc_caches) -> list:
    """Level records with hwloc's size beside the measured one."""
    out = []
    for lv in levels:
        rec = lv.to_dict()
        hw = next((c for c in hwloc_caches if c.level == lv.level), None)
        rec["hwloc_size"] = hw.size if hw else None
        if hw and hw.size:
            diff = (lv.size - hw.size) / hw.size
            rec["relative_difference"] = diff
            rec["agrees"] = abs(diff) <= AGREEMENT
        else:
            rec["relative_difference"] = None
            rec["agrees"] = None
        out.append(rec)
    return out


def unstable_sizes(samples, limit=0.10) -> list:
    """Sizes whose passes disagree: relative spread of pass medians above limit."""
    per_pass = np.min(samples, axis=2)
    med = np.nanmedian(per_pass, axis=1)
    spread = (np.nanmax(per_pass, axis=1) - np.nanmin(per_pass, axis=1)) / med
    return [int(i) for i in np.flatnonzero(spread > limit)]


def run(options: dict, topology, progress=None) -> dict:
    """Measure and analyse; returns the record's parameters/raw/derived parts."""
    sweep = measure(topology=topology, progress=progress, **options)
    page_size = sweep.parameters["page_size"]
    levels = estimate_levels(sweep.sizes, sweep.cycles, page_size=page_size, refined=sweep.refined)
    hw = topology.data_caches_of(sweep.parameters["pu"])
    warnings = []
    if sweep.parameters["pages"] == "huge":
        warnings.append("with 2 MiB pages the page-set model only describes caches whose way size (size / ways) "
                        "exceeds 2 MiB; for the others read 'misses from'")
    unstable = unstable_sizes(sweep.samples_cycles)
    if len(unstable) > 0.2 * sweep.sizes.size:
        warnings.append(f"{len(unstable)} of {sweep.sizes.size} sizes varied by more than 10% between passes: "
                        "the machine is busy; rerun on an idle node or raise --cache-passes")
    compared = compare_with_hwloc(levels, hw)
    for rec in compared:
        if rec["agrees"] is False:
            warnings.append(f"L{rec['level']}: measured {rec['size']} bytes, hwloc reports {rec['hwloc_size']}")
    if len(levels) != len(hw):
        warnings.append(f"found {len(levels)} cache levels, hwloc reports {len(hw)}")
    return {
        "parameters": sweep.parameters,
        "raw": {"sizes": sweep.sizes, "refined": sweep.refined, "accesses_per_sample": sweep.accesses_per_sample,
                "cycles_per_access": sweep.samples_cycles, "ns_per_access": sweep.samples_ns},
        "derived": {"cycles_per_access": sweep.cycles, "ns_per_access": sweep.ns,
                    "gradient": gradient(sweep.cycles), "levels": compared,
                    "hwloc_levels": [{"level": c.level, "size": c.size, "kind": c.kind,
                                      "associativity": c.associativity} for c in hw],
                    "unstable_sizes": unstable},
        "units": UNITS,
        "warnings": warnings,
    }
