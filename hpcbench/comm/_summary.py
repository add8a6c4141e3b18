"""The lines `hpcbench show` prints for a comm record."""
from __future__ import annotations

import math

from .._format import format_size, microseconds
from ._records import CommRecord, RegionRecord


def regions_text(regions: list[RegionRecord]) -> str:
    parts = []
    for r in regions:
        bw = f"{r.bandwidth / 1e9:.2f} GB/s" if r.bandwidth else "inf"
        parts.append(f"[{format_size(r.first)}..{format_size(r.last)}] {microseconds(r.latency)} + N/{bw}")
    return "; ".join(parts)


def comm_summary(record: CommRecord) -> list:
    p, d = record.parameters, record.derived
    lines = [f"communication over {p.ranks} ranks (echo between ranks 0 and 1, one-way = round trip / 2)"]
    s = d.echo.summary
    largest = max(s.sizes)
    lines.append(f"  echo latency 0 B {microseconds(s.at(0))}, 8 B {microseconds(s.at(8))}; bandwidth at "
                 f"{format_size(largest)} {(s.at(largest, 'bandwidth') or 0) / 1e9:.2f} GB/s; "
                 f"n_1/2 {format_size(d.echo.n_half or 0)}, n_90 {format_size(d.echo.n_90 or 0)}")
    lines.append(f"  echo regions: {regions_text(d.echo.regions)}")
    for fit, label in ((d.exchange, "exchange"), (d.broadcast, "broadcast"), (d.global_sum, "global sum")):
        ss = fit.summary
        biggest = max(ss.sizes)
        lines.append(f"  {label:<10} 8 B {microseconds(ss.at(8))}, {format_size(biggest)} "
                     f"{microseconds(ss.at(biggest))}; regions: {len(fit.regions)}")
    lines.append(f"  barrier: minimum {microseconds(d.barrier.minimum)}, median {microseconds(d.barrier.median)}")
    lines.append(f"  DAXPY: r_inf {d.daxpy.r_inf / 1e9:.2f} Gflop/s, n_1/2 {d.daxpy.n_half:.0f} doubles")
    pct = [v for row in d.overlap.overlap_percent for v in row if v is not None and math.isfinite(v)]
    if pct:
        lines.append(f"  overlap of exchange with DAXPY: {min(pct):.0f}% to {max(pct):.0f}% of what could be hidden "
                     f"({len(pct)} measurable points)")
    if d.contention:
        for load in d.contention.loads:
            slow = ", ".join(f"{format_size(sz)} x{x:.2f}" for sz, x in zip(d.contention.sizes, load.slowdown))
            lines.append(f"  echo 1<->2 with {format_size(load.load_size)} load 0->3: slowdown {slow}")
    if d.hops and d.hops.model:
        lines.append(f"  hops: per extra hop {microseconds(d.hops.model.per_hop)}")
    if d.layers:
        lines.append(f"  layers at {format_size(p.probe_size)}: {'layer':<34}{'latency':>11}{'pairs':>7}  "
                     "scalability (pairs: slowdown)")
        for lv in d.layers:
            scal = " ".join(f"{x.pairs}:x{x.slowdown:.2f}" for x in lv.scalability)
            lines.append(f"    {lv.name:<48}{microseconds(lv.latency):>11}{len(lv.pairs):>7}  {scal}")
            lines.append(f"      regions: {regions_text(lv.regions)}")
    return lines
