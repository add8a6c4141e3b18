"""What `hpcbench report` says about the cache and shared-caches records:
the findings in words (one wording, shared with the records' warnings),
what the numbers mean for a user, and the headline numbers two runs are
compared by."""
from __future__ import annotations

from .._format import format_size, groups_text
from .._headline import Headline, finite, sample_tuple
from ._records import CacheRaw, CacheRecord, MeasuredLevel, SharedCachesRecord, SharedLevelRecord

#: Steps of a latency curve the report calls "about the same" (ratio below this).
_SAME = 1.25


def flag_text(lv: MeasuredLevel) -> str:
    """A flagged level in words: what it is, where, and why."""
    return f"{'step' if lv.hwloc_size is None else f'L{lv.level}'} at {format_size(lv.size)}: {lv.note}"


def disagreement_text(lv: MeasuredLevel) -> str:
    """A level whose measured size is not hwloc's, in words."""
    return f"L{lv.level}: measured {format_size(lv.size)}, hwloc reports {format_size(lv.hwloc_size or 0)}"


def _caches(record: CacheRecord) -> list[MeasuredLevel]:
    """The levels reported as caches (flagged steps are not)."""
    return [lv for lv in record.derived.levels if lv.status != "flagged"]


# ---- cache ---------------------------------------------------------------------------------


def cache_disagreements(record: CacheRecord) -> list[str]:
    """Levels whose size is not hwloc's, steps hwloc has no cache for, and
    hwloc's caches that showed no step."""
    d = record.derived
    lines = [disagreement_text(lv) for lv in d.levels if lv.status != "flagged" and lv.agrees is False
             and lv.hwloc_size]
    return lines + [flag for flag in d.flags or [] if flag not in lines]


def _ns(lv: MeasuredLevel) -> str:
    return f"{lv.latency_ns:.1f} ns" if lv.latency_ns else "-"


def cache_meaning(record: CacheRecord) -> list[str]:
    """Per level: what fits and what an access there costs; then memory, and
    the level to block loops for."""
    d = record.derived
    caches = _caches(record)
    lines = []
    for lv in caches:
        if lv.latency_ns is None:          # a record of an earlier version: sizes only
            hw = f" (hwloc: {format_size(lv.hwloc_size)})" if lv.hwloc_size else ""
            lines.append(f"L{lv.level}: a working set up to {format_size(lv.size)} stays in this level{hw}.")
            continue
        bandwidth = f", read at {lv.bandwidth / 1e9:.0f} GB/s by one core" if lv.bandwidth else ""
        lines.append(f"L{lv.level}: data up to {format_size(lv.size)} costs {_ns(lv)} per dependent access"
                     f"{bandwidth}.")
    m = d.memory
    first = next((lv for lv in caches if lv.latency_ns), None)
    if m is not None and m.latency_ns:
        times = (f", {m.latency_ns / first.latency_ns:.0f}x the L{first.level} latency"
                 if first and first.latency_ns else "")
        bandwidth = f"; one core reads {m.bandwidth / 1e9:.0f} GB/s from memory" if m.bandwidth else ""
        lines.append(f"Beyond {format_size(m.from_size)} every access goes to memory: {m.latency_ns:.1f} ns"
                     f"{times}{bandwidth}.")
        inner = [(lv, m.latency_ns / lv.latency_ns) for lv in caches
                 if lv.latency_ns and m.latency_ns / lv.latency_ns >= _SAME]
        if inner:
            last, cheaper = inner[-1]
            lines.append(f"Keep the data a loop reuses within {format_size(last.size)} (L{last.level}): an access "
                         f"there is {cheaper:.0f}x cheaper than from memory.")
    elif d.memory is None and caches and caches[0].latency_ns is not None:
        lines.append("Memory was not reached: the time per access still rises at the largest size "
                     "(raise --cache-max to measure it).")
    if not caches:
        lines.append("No cache level was found in the curve.")
    return lines


def cache_headlines(record: CacheRecord) -> list[Headline]:
    """Size, latency and read bandwidth of each cache level; memory's latency and bandwidth."""
    out = []
    raw = record.raw
    for lv in _caches(record):
        name = f"L{lv.level}"
        out.append(Headline(f"{name} size", finite(lv.size), "bytes"))
        if lv.latency_ns is not None:
            out.append(Headline(f"{name} latency", finite(lv.latency_ns * 1e-9), "s", "lower",
                                _sweep_samples(raw.sizes, raw.ns_per_access, lv.plateau or [], 1e-9)))
        if lv.bandwidth is not None:
            out.append(Headline(f"{name} read bandwidth", finite(lv.bandwidth), "bytes/s", "higher",
                                _bandwidth_samples(raw, lv.bandwidth_size)))
    m = record.derived.memory
    if m is not None:
        if m.latency_ns is not None:
            plateau = [size for size in raw.sizes if size >= m.from_size]
            out.append(Headline("memory latency", finite(m.latency_ns * 1e-9), "s", "lower",
                                _sweep_samples(raw.sizes, raw.ns_per_access, plateau, 1e-9)))
        if m.bandwidth is not None:
            out.append(Headline("memory read bandwidth (one core)", finite(m.bandwidth), "bytes/s", "higher",
                                _bandwidth_samples(raw, m.bandwidth_size)))
    return out


def _sweep_samples(sizes: list[int], samples: object, chosen: list[int], scale: float) -> tuple[float, ...] | None:
    """Every sample (sizes, passes, samples) at the `chosen` sizes, times
    `scale`: the samples behind a plateau's latency or a size's bandwidth;
    None where the record keeps none."""
    if not isinstance(samples, list) or len(samples) != len(sizes):
        return None
    picked = [samples[sizes.index(size)] for size in chosen if size in sizes]
    flat = [v for per_size in picked for one_pass in (per_size or []) for v in (one_pass or []) if v is not None]
    return sample_tuple(flat, scale)


def _bandwidth_samples(raw: CacheRaw, size: int | None) -> tuple[float, ...] | None:
    if size is None or raw.bandwidth_sizes is None:
        return None
    return _sweep_samples(raw.bandwidth_sizes, raw.bandwidth, [size], 1.0)


# ---- shared-caches ---------------------------------------------------------------------------


def _sharing(groups: list[list[int]]) -> str:
    """Sharing groups in words."""
    if not groups:
        return "no group"
    if all(len(g) == 1 for g in groups):
        return "private to each core"
    return f"shared by {groups_text([g for g in groups if len(g) > 1])}"


def _level_meaning(lv: SharedLevelRecord) -> str:
    if not lv.decidable:
        return (f"L{lv.level}: no verdict (one core with twice the data is barely slower, so a shared cache "
                f"cannot show); hwloc: {_sharing(lv.hwloc_groups)}.")
    measured = _sharing(lv.groups)
    if lv.groups == lv.hwloc_groups:
        advice = (": processes that share data run well on one group, ones that each stream their own data "
                  "on different groups" if any(len(g) > 1 for g in lv.groups) else "")
        return f"L{lv.level}: {measured}, as hwloc says{advice}."
    return (f"L{lv.level}: measured {measured}, hwloc says {_sharing(lv.hwloc_groups)}: the co-runs do not "
            "behave as hwloc's layout predicts (see the disagreement).")


def shared_meaning(record: SharedCachesRecord) -> list[str]:
    """Per level: which cores share it, beside hwloc, and what follows for placing processes."""
    return [_level_meaning(lv) for lv in record.derived.levels]


def shared_disagreements(record: SharedCachesRecord) -> list[str]:
    """Pairs whose co-run contradicts hwloc's sharing (the record's own words)."""
    return [line for lv in record.derived.levels for line in lv.disagreements]


def shared_headlines(record: SharedCachesRecord) -> list[Headline]:
    """Per level: the largest co-run slowdown and the size of the largest sharing group."""
    out = []
    for lv in record.derived.levels:
        ratios = [r.ratio for r in lv.ratios]
        out.append(Headline(f"L{lv.level} largest co-run slowdown", finite(max(ratios)) if ratios else None,
                            "ratio", "lower"))
        if lv.decidable:
            out.append(Headline(f"L{lv.level} cores in the largest sharing group",
                                float(max((len(g) for g in lv.groups), default=0)), "count"))
    return out
