"""The cache and shared-caches records as rows of the tidy export
(hpcbench._tidy; docs/results-format.md, "Tidy export")."""
from __future__ import annotations

from .._tidy import Row, RowBuilder
from ._records import CacheRecord, SharedCachesRecord


def cache_rows(record: CacheRecord) -> list[Row]:
    """Per level (parameter "level"): size, latency and read bandwidth; the
    memory plateau after the last level; and the sweep's curves, one row
    per array size: time per access (ns and TSC ticks; the minimum per
    pass, trimmed mean across passes) and read bandwidth (best per pass,
    median of passes). Levels flagged as not a cache are left out."""
    out = RowBuilder(record)
    d = record.derived
    for lv in d.levels:
        if lv.status == "flagged":
            continue
        out.add("cache_size", lv.size, "bytes", "derived", "level", lv.level)
        out.add("cache_latency", lv.latency_ns, "ns", "derived", "level", lv.level)
        out.add("cache_latency_ticks", lv.latency_cycles, "ticks", "derived", "level", lv.level)
        out.add("cache_bandwidth", lv.bandwidth, "bytes/s", "derived", "level", lv.level)
    if d.memory is not None:
        out.add("memory_latency", d.memory.latency_ns, "ns", "derived")
        out.add("memory_latency_ticks", d.memory.latency_cycles, "ticks", "derived")
        out.add("memory_bandwidth", d.memory.bandwidth, "bytes/s", "derived")
    out.curve("latency", "size_bytes", record.raw.sizes, d.ns_per_access, "ns", "trimmed_mean")
    out.curve("latency_ticks", "size_bytes", record.raw.sizes, d.cycles_per_access, "ticks", "trimmed_mean")
    if d.bandwidth_sizes is not None and d.bandwidth is not None:
        out.curve("bandwidth", "size_bytes", d.bandwidth_sizes, d.bandwidth, "bytes/s", "median")
    return out.rows


def shared_rows(record: SharedCachesRecord) -> list[Row]:
    """Per cache level (parameter "level"): the co-run ratio of every tested
    pair ("corun_ratio pus A,B"), the threshold a sharing pair exceeds, the
    ratio the single-core curve expects and the co-run size per core."""
    out = RowBuilder(record)
    for lv in record.derived.levels:
        out.add("corun_size", lv.corun_size, "bytes", "derived", "level", lv.level)
        out.add("threshold", lv.threshold, "ratio", "derived", "level", lv.level)
        out.add("expected_ratio", lv.expected_ratio, "ratio", "derived", "level", lv.level)
        for r in lv.ratios:
            out.add(f"corun_ratio pus {r.pair[0]},{r.pair[1]}", r.ratio, "ratio", "median", "level", lv.level)
    return out.rows
