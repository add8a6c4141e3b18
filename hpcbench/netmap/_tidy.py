"""The network-map and bisection records as rows of the tidy export
(hpcbench._tidy; docs/results-format.md, "Tidy export")."""
from __future__ import annotations

import math

from .._tidy import Row, RowBuilder
from ._records import BisectionRecord, NetworkMapRecord


def map_rows(record: NetworkMapRecord) -> list[Row]:
    """One row per cell of each matrix, its quantity naming the pair: "bandwidth_loaded[a->b]"."""
    out = RowBuilder(record)
    labels = record.parameters.members
    for name, unit in (("bandwidth_loaded", "bytes/s"), ("bandwidth_alone", "bytes/s"),
                       ("latency_loaded", "s"), ("latency_alone", "s")):
        rows = getattr(record.derived, name)
        if rows is None:
            continue
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                if value is not None and math.isfinite(value):
                    out.add(f"{name}[{labels[i]}->{labels[j]}]", value, unit, "median")
    return out.rows


def bisection_rows(record: BisectionRecord) -> list[Row]:
    """The per-flow figures and each bisection's total (parameter "bisection")."""
    out = RowBuilder(record)
    d = record.derived
    for name, value in (("pair_bandwidth", d.pair_bandwidth), ("mean", d.mean), ("worst", d.worst)):
        out.add(name, value, "bytes/s", "derived")
    out.table("total", "bisection", {str(b): v for b, v in enumerate(d.totals)}, "bytes/s", "derived")
    return out.rows
