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

What several cores deliver together is the aggregate bandwidth: all bytes
the team moved over the time from its first member's start to its last
member's end, as STREAM and likwid-bench count it. Adding each core's own
rate (bytes over that core's own time) overstates it whenever the cores run
at different speeds: the fast core's rate counts time in which the slow one
is still copying alone. Per-core rates and their sum (`total`) stay in the
record beside it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .._grouping import split_at_gaps
from .._protocol import check_ranges
from ..topology import components
from ..topology._pairs import PairPlan
from ._options import DEFAULT_TOLERANCE, MemoryOptions
from ._records import OverheadLevelRecord, OverheadRecord, ScalabilityPoint

#: A team whose slowest core copies at less than this share of its fastest
#: core's rate gets a warning: adding their rates would overstate what the
#: memory delivered (docs/node.md).
UNEVEN_CORES = 0.8
#: So does a team whose per-core rates add up to more than this many times
#: its aggregate, whatever its cores' median rates: on a virtual machine the
#: cores can take turns being slow, each fast in most repetitions, so their
#: medians look even while every repetition waits for a slow one. (1.125 is
#: what two cores at UNEVEN_CORES of each other give: (1 + 0.8) / (2 x 0.8).)
OVERSTATED = 1.125


def aggregate_bandwidth(bytes_per_copy: float, start_ns: npt.ArrayLike, end_ns: npt.ArrayLike) -> np.ndarray:
    """Bytes/s a team delivered in each repetition, from arrays (members,
    repetitions) of each copy's start and end in ns on one clock (the copy
    kernel's): members * bytes_per_copy / (last end - first start)."""
    start = np.asarray(start_ns, dtype=float)
    end = np.asarray(end_ns, dtype=float)
    return start.shape[0] * float(bytes_per_copy) / ((end.max(axis=0) - start.min(axis=0)) * 1e-9)


def run_aggregate(bytes_per_copy: float, start_ns: npt.ArrayLike, end_ns: npt.ArrayLike) -> float:
    """The aggregate bandwidth of one run of the team (bytes/s): the median
    over repetitions of aggregate_bandwidth."""
    # The median, as each core's own rate is summarised (pair_bandwidth,
    # analyze_scalability): a repetition in which one member was descheduled
    # or the host was busy stretches that repetition's span, and the median
    # ignores a few of them where a mean over repetitions would not.
    return float(np.median(aggregate_bandwidth(bytes_per_copy, start_ns, end_ns)))


def pair_aggregate(bytes_per_copy: float, start_ns: npt.ArrayLike, end_ns: npt.ArrayLike) -> float:
    """Aggregate bandwidth (bytes/s) of one pair copying together, from
    arrays (rounds, 2, repetitions): per round run_aggregate, then the
    median over rounds, as pair_bandwidth reduces the per-core rates."""
    start, end = np.asarray(start_ns, dtype=float), np.asarray(end_ns, dtype=float)
    return float(np.median([run_aggregate(bytes_per_copy, start[r], end[r]) for r in range(start.shape[0])]))


def own_rates(bandwidth: npt.ArrayLike) -> np.ndarray:
    """Each member's own rate (bytes/s) from its copies' bandwidths, arrays
    (members, repetitions) or (rounds, members, repetitions): the median
    over repetitions, then over rounds."""
    per_round = np.median(np.asarray(bandwidth, dtype=float), axis=-1)
    return per_round if per_round.ndim == 1 else np.median(per_round, axis=0)


def uneven_cores_warning(cases: list) -> str | None:
    """One warning line for the team runs in which adding the cores' own
    rates would overstate what they delivered together. cases: (label,
    per-core rates in bytes/s, aggregate bytes/s) per run; a run counts when
    its slowest core's rate is below UNEVEN_CORES x its fastest's, or the
    sum of the rates is above OVERSTATED x the aggregate."""
    uneven = []
    for label, rates, aggregate in cases:
        rates = np.asarray(rates, dtype=float)
        slowest, over = rates.min() / rates.max(), rates.sum() / aggregate
        if rates.size > 1 and (slowest < UNEVEN_CORES or over > OVERSTATED):
            uneven.append(f"{label} (slowest core {slowest:.2f} x the fastest, sum {over:.2f} x the aggregate)")
    if not uneven:
        return None
    more = f" and {len(uneven) - 3} more" if len(uneven) > 3 else ""
    return (f"memory: cores did not copy at one speed in {', '.join(uneven[:3])}{more}: the sum of their rates "
            "(`total`) overstates what the memory delivered; show and the analysis use `aggregate`")


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
    aggregate: float | None = None   #: bytes/s of a pair copying together, mean over the tested pairs



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
                                                          pairs=[list(p) for p in lv.pairs], groups=lv.groups,
                                                          aggregate=lv.aggregate)
                                      for lv in self.levels],
                              unaffected=[list(p) for p in self.unaffected], inconsistencies=self.inconsistencies)


def check_tolerance(tolerance: float) -> float:
    """The relative difference that counts as an overhead: the range of the
    memory benchmark's --memory-tolerance."""
    check_ranges(MemoryOptions, tolerance=tolerance)
    return float(tolerance)


def analyze_memory_overhead(measured: dict, plan: PairPlan, tolerance: float = DEFAULT_TOLERANCE,
                            aggregates: dict | None = None) -> MemoryOverhead:
    """Overhead levels from measured pairs.

    measured: tested pair -> (reference, bandwidth, relative) as returned by
    pair_bandwidth. plan: the PairPlan; in auto mode an untested pair takes
    the level of its relation's representative, and a sampled pair that
    lands elsewhere than its representative is reported. aggregates: tested
    pair -> its pair_aggregate, if measured; each level then gets the mean
    over its tested pairs."""
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
                            components(members[i]),
                            None if aggregates is None else float(np.mean([aggregates[p] for p in tested])))
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


def analyze_scalability(runs: list, bytes_per_copy: float | None = None, start_ns: list | None = None,
                        end_ns: list | None = None) -> list[ScalabilityPoint]:
    """runs[k-1]: array (k, repetitions) of bytes/s per core with k cores
    copying at once; start_ns[k-1], end_ns[k-1]: the copies' starts and ends
    (same shape, ns on one clock), if measured. Per k: per-core bandwidth
    (mean over cores of each core's median), the slowest core's, their sum
    (`total`) and, with the times, the aggregate (run_aggregate)."""
    out = []
    for k, run in enumerate(runs):
        per_core = own_rates(run)
        aggregate = (None if start_ns is None or end_ns is None or bytes_per_copy is None
                     else run_aggregate(bytes_per_copy, start_ns[k], end_ns[k]))
        out.append(ScalabilityPoint(cores=int(per_core.size), per_core=float(per_core.mean()),
                                    slowest_core=float(per_core.min()), total=float(per_core.sum()),
                                    aggregate=aggregate))
    return out
