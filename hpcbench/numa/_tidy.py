"""The numa record as rows of the tidy export (hpcbench._tidy;
docs/results-format.md, "Tidy export")."""
from __future__ import annotations

from .._tidy import Row, RowBuilder
from ._records import NumaRecord


def numa_rows(record: NumaRecord) -> list[Row]:
    """The local figures and the worst ratios, then one row per cell and
    figure ("... cores N memory M"): read bandwidth (bytes/s, the row's
    cores together), load latency (s), their ratios to the row's local cell
    and hwloc's relative distance."""
    out = RowBuilder(record)
    d = record.derived
    out.add("local_bandwidth", d.local_bandwidth, "bytes/s", "mean")
    out.add("local_latency", None if d.local_latency_ns is None else d.local_latency_ns * 1e-9, "s", "mean")
    out.add("worst_bandwidth_ratio", d.worst_bandwidth_ratio, "ratio", "derived")
    out.add("worst_latency_ratio", d.worst_latency_ratio, "ratio", "derived")
    for r, i in enumerate(d.rows):
        for c, j in enumerate(d.cols):
            where = f"cores {i} memory {j}"
            lat = d.latency_ns[r][c]
            out.add(f"bandwidth {where}", d.bandwidth[r][c], "bytes/s", "max")
            out.add(f"latency {where}", None if lat is None else lat * 1e-9, "s", "min")
            out.add(f"bandwidth_ratio {where}", d.bandwidth_ratio[r][c], "ratio", "derived")
            out.add(f"latency_ratio {where}", d.latency_ratio[r][c], "ratio", "derived")
            if d.hwloc_ratio:
                out.add(f"hwloc_distance_ratio {where}", d.hwloc_ratio[r][c], "ratio", "derived")
    return out.rows
