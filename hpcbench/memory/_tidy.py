"""The memory record as rows of the tidy export (hpcbench._tidy;
docs/results-format.md, "Tidy export")."""
from __future__ import annotations

from .._tidy import Row, RowBuilder
from ._records import MemoryRecord


def memory_rows(record: MemoryRecord) -> list[Row]:
    """Servet's memory-access overhead and the bandwidth scalability, in
    bytes/s per core unless said: the reference bandwidth alone; per
    tested pair ("... pus A,B") alone, together, their ratio and what both
    delivered; per overhead level (parameter "level", 1 = the strongest
    overhead) its bandwidth and ratio; per scalability group ("scalability
    GROUP ...") one row per number of cores copying (parameter "cores")."""
    out = RowBuilder(record)
    d = record.derived
    out.add("reference_bandwidth", d.overhead.reference, "bytes/s", "median")
    for p in d.pairs:
        pus = f"pus {p.pair[0]},{p.pair[1]}"
        out.add(f"bandwidth_alone {pus}", p.reference, "bytes/s", "median")
        out.add(f"bandwidth_together {pus}", p.bandwidth, "bytes/s", "median")
        out.add(f"relative_bandwidth {pus}", p.relative, "ratio", "derived")
        out.add(f"aggregate_bandwidth {pus}", p.aggregate, "bytes/s", "median")
    for i, lv in enumerate(d.overhead.levels, start=1):
        out.add("overhead_bandwidth", lv.bandwidth, "bytes/s", "derived", "level", i)
        out.add("overhead_relative", lv.relative, "ratio", "derived", "level", i)
        out.add("overhead_aggregate", lv.aggregate, "bytes/s", "mean", "level", i)
    for s in d.scalability:
        cores = [pt.cores for pt in s.points]
        out.curve(f"scalability {s.group} per_core", "cores", cores, [pt.per_core for pt in s.points],
                  "bytes/s", "mean")
        out.curve(f"scalability {s.group} slowest_core", "cores", cores, [pt.slowest_core for pt in s.points],
                  "bytes/s", "min")
        out.curve(f"scalability {s.group} total", "cores", cores, [pt.total for pt in s.points], "bytes/s", "derived")
        out.curve(f"scalability {s.group} aggregate", "cores", cores, [pt.aggregate for pt in s.points],
                  "bytes/s", "median")
    return out.rows
