"""What `hpcbench report` says about a bandwidth record: the load and
triad bandwidth per level, what all cores add for memory, what
non-temporal stores save, and the levels that contradict the hierarchy."""
from __future__ import annotations

from .._format import gigabytes_per_second
from .._headline import Headline, finite
from ._records import BandwidthRecord, KernelBandwidth

#: Loads from a deeper level this much faster than from the one above contradict the hierarchy.
INVERSION = 1.25


def _widest(record: BandwidthRecord) -> list[KernelBandwidth]:
    isa = record.parameters.isas[0] if record.parameters.isas else None
    return [r for r in record.derived.results if r.isa == isa]


def _alone(results: list[KernelBandwidth], kernel: str) -> list[KernelBandwidth]:
    return [r for r in results if r.kernel == kernel and r.cores == 1]


def _team(results: list[KernelBandwidth], kernel: str) -> KernelBandwidth | None:
    return next((r for r in results if r.kernel == kernel and r.cores > 1), None)


def bandwidth_meaning(record: BandwidthRecord) -> list:
    """The load bandwidth per level, triad from memory alone and together,
    and non-temporal stores against ordinary ones in memory."""
    results = _widest(record)
    lines = []
    for kernel in ("load", "triad"):
        alone = [r for r in _alone(results, kernel) if r.bandwidth]
        if alone:
            levels = ", ".join(f"{r.level} {gigabytes_per_second(r.bandwidth or 0)}" for r in alone)
            lines.append(f"One core's {kernel} ({alone[0].isa}): {levels}.")
    team = _team(results, "triad") or _team(results, "copy")
    one = next((r for r in _alone(results, team.kernel) if r.level == "memory"), None) if team else None
    if team and team.bandwidth and one and one.bandwidth:
        lines.append(f"{team.kernel.capitalize()} from memory on all {team.cores} cores: "
                     f"{gigabytes_per_second(team.bandwidth)}, {team.bandwidth / one.bandwidth:.1f}x one core: "
                     "the node's memory bandwidth for a streaming code.")
    plain = next((r for r in _alone(results, "store") if r.level == "memory"), None)
    nt = next((r for r in _alone(results, "store_nt") if r.level == "memory"), None)
    if plain and nt and plain.bandwidth and nt.bandwidth:
        lines.append(f"Storing to memory: {gigabytes_per_second(nt.bandwidth)} with non-temporal stores, "
                     f"{gigabytes_per_second(plain.bandwidth)} with ordinary ones, which also read every line "
                     f"(write-allocate, {gigabytes_per_second(plain.write_allocate or 0)} more not counted).")
    return lines


def bandwidth_disagreements(record: BandwidthRecord) -> list:
    """The widest loads faster in a deeper level than in the level above
    it (one core): a working set does not sit where hwloc's sizes place it,
    or the core was shared while it ran. Loads only: stores, the triads and
    narrow ISAs may run as fast from L2 as from L1 on some cores."""
    seq = [r for r in _alone(_widest(record), "load") if r.bandwidth]
    return [f"load ({lower.isa}) is faster in {lower.level} ({gigabytes_per_second(lower.bandwidth or 0)}) than in "
            f"{upper.level} ({gigabytes_per_second(upper.bandwidth or 0)}): a working set does not sit in the level "
            "hwloc's cache sizes place it in, or the core was shared while it ran"
            for upper, lower in zip(seq, seq[1:]) if (lower.bandwidth or 0) > INVERSION * (upper.bandwidth or 0)]


def bandwidth_headlines(record: BandwidthRecord) -> list:
    """With the widest ISA: every kernel's bandwidth per level on one core,
    and in memory on all cores."""
    out = []
    for r in _widest(record):
        where = r.level if r.cores == 1 else f"{r.level}, {r.cores} cores"
        out.append(Headline(f"{r.kernel} {where}", finite(r.bandwidth), "bytes/s", "higher"))
    return out
