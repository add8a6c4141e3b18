"""Memory-access overhead levels and scalability: pure analysis.

Servet's Fig. 6 compares the copy bandwidth one core gets alone (the
reference) with what it gets while another core copies too. Pairs clearly
below the reference (by more than `tolerance`) have an overhead; pairs with
similar bandwidth form one overhead level BW[i] with its pairs P_m[i], and
the pairs of a level join into groups of cores (connected components: pairs
(0,1),(0,2),(3,4),(3,5) give {0,1,2} and {3,4,5}).

Two changes to the paper, both for noisy real machines:
* Each pair is compared with its own two cores measured alone in the same
  round, not with one global reference, so cores of unequal speed (NUMA,
  frequency) and drifting load do not fake an overhead. The level value is
  the relative bandwidth (pair / alone); BW[i] is reported in bytes/s too.
* The paper groups bandwidths greedily in the order the pairs were measured,
  so the levels depend on that order. Here the relative bandwidths are
  sorted and a new level starts wherever one value exceeds the previous one
  by more than `tolerance` (a gap): the same pairs always give the same
  levels, and noise spread across many pairs of one kind (hundreds of pairs
  at 2% noise span 10%) does not split that kind in two.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .._protocol import check_ranges
from .._grouping import split_at_gaps
from ..topology import PairPlan, components
from ._options import DEFAULT_TOLERANCE, MemoryOptions
from ._records import OverheadLevelRecord, OverheadRecord, ScalabilityPoint


def pair_bandwidth(alone: npt.ArrayLike, together: npt.ArrayLike) -> tuple[float, float, float]:
    """(reference, bandwidth, relative) of one pair, bytes/s per core, from
    arrays (rounds, 2, repetitions): per round, the median over repetitions,
    the mean over the two cores; then the median over rounds."""
    alone = np.asarray(alone, dtype=float)
    together = np.asarray(together, dtype=float)
    ref = np.median(alone, axis=2).mean(axis=1)
    bw = np.median(together, axis=2).mean(axis=1)
    return float(np.median(ref)), float(np.median(bw)), float(np.median(bw / ref))


@dataclass
class OverheadLevel:
    bandwidth: float          #: bytes/s per core, mean over the level's tested pairs
    relative: float           #: bandwidth / the same cores alone
    pairs: list               #: tested and inferred pairs at this level
    groups: list              #: groups of cores (connected components of pairs)



@dataclass
class MemoryOverhead:
    reference: float          #: bytes/s, one core alone (median over the tested pairs' cores)
    tolerance: float
    levels: list              #: OverheadLevel, most severe (lowest bandwidth) first
    unaffected: list          #: pairs without overhead
    inconsistencies: list = field(default_factory=list)   #: one line each

    def to_record(self) -> OverheadRecord:
        return OverheadRecord(reference=self.reference, tolerance=self.tolerance,
                              levels=[OverheadLevelRecord(bandwidth=lv.bandwidth, relative=lv.relative,
                                                          pairs=[list(p) for p in lv.pairs], groups=lv.groups)
                                      for lv in self.levels],
                              unaffected=[list(p) for p in self.unaffected], inconsistencies=self.inconsistencies)


def check_tolerance(tolerance: float) -> float:
    """The relative difference that counts as an overhead: the range of the
    memory benchmark's --memory-tolerance."""
    check_ranges(MemoryOptions, tolerance=tolerance)
    return float(tolerance)


def analyze_memory_overhead(measured: dict, plan: PairPlan, tolerance: float = DEFAULT_TOLERANCE) -> MemoryOverhead:
    """Overhead levels from measured pairs.

    measured: tested pair -> (reference, bandwidth, relative) as returned by
    pair_bandwidth. plan: the PairPlan; in auto mode an untested pair takes
    the level of its relation's representative, and a sampled pair that
    lands elsewhere than its representative is reported."""
    check_tolerance(tolerance)
    missing = [p for p in plan.tested if p not in measured]
    if missing:
        raise ValueError(f"no bandwidth for tested pair {missing[0]}")
    relative = {p: measured[p][2] for p in plan.tested}
    below = {p: v for p, v in relative.items() if v < 1 - tolerance}
    clusters = split_at_gaps(below, tolerance)
    level_of = {p: i for i, pairs in enumerate(clusters) for p in pairs}

    members: list = [[] for _ in clusters]
    unaffected: list = []
    for pair in plan.all_pairs:
        source = pair if pair in relative else plan.representative[plan.relation_of[pair]]
        lv = level_of.get(source)
        (unaffected if lv is None else members[lv]).append(pair)

    levels = [OverheadLevel(float(np.mean([measured[p][1] for p in tested])),
                            float(np.mean([relative[p] for p in tested])), members[i],
                            components(members[i]))
              for i, tested in enumerate(clusters)]
    inconsistencies = []
    for pair in plan.sampled:
        rep = plan.representative[plan.relation_of[pair]]
        if level_of.get(pair) != level_of.get(rep):
            inconsistencies.append(f"cores {pair[0]},{pair[1]} and {rep[0]},{rep[1]} have the same hwloc relation "
                                   f"but different memory overheads ({relative[pair]:.2f} and {relative[rep]:.2f} "
                                   "of their bandwidth alone)")
    reference = float(np.median([measured[p][0] for p in plan.tested]))
    return MemoryOverhead(reference, float(tolerance), levels, unaffected, inconsistencies)


def analyze_scalability(runs: list) -> list[ScalabilityPoint]:
    """runs[k-1]: array (k, repetitions) of bytes/s per core with k cores
    copying at once. Per k: per-core bandwidth (mean over cores of each
    core's median), the slowest core's, and the total."""
    out = []
    for run in runs:
        per_core = np.median(np.asarray(run, dtype=float), axis=1)
        out.append(ScalabilityPoint(cores=int(per_core.size), per_core=float(per_core.mean()),
                                    slowest_core=float(per_core.min()), total=float(per_core.sum())))
    return out
