"""The bandwidth record as rows of the tidy export (hpcbench._tidy;
docs/results-format.md, "Tidy export")."""
from __future__ import annotations

from .._tidy import Row, RowBuilder
from ._records import BandwidthRecord


def bandwidth_rows(record: BandwidthRecord) -> list[Row]:
    """Per kernel, ISA and working set ("bandwidth KERNEL ISA LEVEL",
    parameter "cores"): the median bandwidth (bytes/s, loads + stores as
    likwid-bench counts), the best sample, and the write-allocate traffic
    the stores add beside it."""
    out = RowBuilder(record)
    for r in record.derived.results:
        what = f"{r.kernel} {r.isa} {r.level}"
        out.add(f"bandwidth {what}", r.bandwidth, "bytes/s", "median", "cores", r.cores)
        out.add(f"bandwidth_best {what}", r.best, "bytes/s", "max", "cores", r.cores)
        out.add(f"write_allocate {what}", r.write_allocate, "bytes/s", "derived", "cores", r.cores)
    return out.rows
