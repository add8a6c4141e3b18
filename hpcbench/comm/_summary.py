"""The lines `hpcbench show` prints for a comm record."""
from __future__ import annotations

import math

from .._format import format_size, microseconds
from ._records import (
    CommRecord,
    ContentionRecord,
    GrowthFit,
    LayerPlanRecord,
    OverlapRecord,
    RegionRecord,
    ScalingRecord,
)
from ._sanity import BELOW_COMM


def regions_text(regions: list[RegionRecord]) -> str:
    parts = []
    for r in regions:
        bw = f"{r.bandwidth / 1e9:.2f} GB/s" if r.bandwidth else "inf"
        span = f"[{format_size(r.first)}..{format_size(r.last)}]"
        # A negative latency is no figure (hpcbench._physical): the report lists the fit as failed.
        parts.append(f"{span} fit failed (negative latency)" if r.latency < 0 else
                     f"{span} {microseconds(r.latency)} + N/{bw}")
    return "; ".join(parts)


def comm_summary(record: CommRecord) -> list:
    p, d = record.parameters, record.derived
    lines = [f"communication over {p.ranks} ranks (echo between ranks 0 and 1, one-way = round trip / 2)",
             "  echo is CoMet's: the partner sends back what it received (p2p's latency is OSU's ping-pong, from an "
             "unchanged buffer)"]
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
    lines += overlap_lines(d.overlap)
    lines += scaling_lines(d.scaling)
    if d.contention:
        lines += contention_lines(d.contention)
    if d.hops and d.hops.model:
        h = d.hops.model.per_hop     # a negative cost is no figure (hpcbench._physical): the fit failed
        lines.append(f"  hops: per extra hop {microseconds(h)}" if h >= 0 else
                     f"  hops: per-hop fit failed (negative cost, {microseconds(h)})")
    if d.layer_plan:
        lines += plan_lines(d.layer_plan)
    if d.layers:
        lines.append(f"  layers at {format_size(p.probe_size)}: {'layer':<34}{'latency':>11}{'pairs':>7}  "
                     "scalability (pairs: slowdown)")
        for lv in d.layers:
            scal = " ".join(f"{x.pairs}:x{x.slowdown:.2f}" for x in lv.scalability)
            lines.append(f"    {lv.name:<48}{microseconds(lv.latency):>11}{len(lv.pairs):>7}  {scal}")
            lines.append(f"      regions: {regions_text(lv.regions)}")
    return lines


def overlap_lines(ov: OverlapRecord) -> list:
    """The overlap range over the cells that make sense, and every flag with its cause."""
    flagged = {(f.vector_length, f.size) for f in ov.flags or []}
    pct = [v for i, row in enumerate(ov.overlap_percent) for j, v in enumerate(row)
           if v is not None and math.isfinite(v) and (ov.vector_lengths[i], ov.sizes[j]) not in flagged]
    lines = []
    if pct:
        lines.append(f"  overlap of exchange with DAXPY: {min(pct):.0f}% to {max(pct):.0f}% of what could be hidden "
                     f"({len(pct)} measurable points" + (f", {len(flagged)} flagged" if flagged else "") + ")")
    for f in ov.flags or []:
        value = f"blocking {f.value:.0f}% of the exchange alone" if f.problem == BELOW_COMM else f"{f.value:.0f}%"
        again = "after measuring it again" if f.repeated else "not measured again"
        lines.append(f"    flagged: {format_size(f.size)} messages, {f.vector_length} doubles: {f.problem} ({value}), "
                     f"{again}; likely cause: {f.cause}")
    return lines


def scaling_lines(scaling: ScalingRecord | None) -> list:
    """CoMet's collectives against the number of processes, with the growth the data supports."""
    if scaling is None:
        return []
    lines = [f"  collectives on the first P ranks, P = {', '.join(map(str, scaling.processes))}:"]
    for c in scaling.curves:
        f = c.fit
        what = f"{c.kernel} {format_size(c.size)}" if c.size else f"{c.kernel} (minimum)"
        times = " ".join(microseconds(t).replace(" us", "") for t in f.times)
        lines.append(f"    {what:<22}{times} us: {growth_text(f)}")
    return lines


def growth_text(f: GrowthFit) -> str:
    if f.model == "flat":
        return f"flat ({100 * (f.growth or 0):+.0f}% from {f.counts[0]} to {f.counts[-1]} processes)"
    if f.model == "undetermined":
        return "growth undetermined (needs 3 process counts, 8 ranks or more)"
    fits = f"rms {100 * (f.log_rms or 0):.0f}% as log P, {100 * (f.linear_rms or 0):.0f}% as linear"
    if f.model == "log P or linear":
        return f"log P or linear: the data cannot tell ({fits})"
    return f"grows as {f.model}{'' if f.clear else ' (not clearly)'} ({fits})"


def contention_lines(c: ContentionRecord) -> list:
    echo = f"{c.echo_pair[0]}<->{c.echo_pair[1]}" if c.echo_pair else "1<->2"
    load = f"{c.load_pair[0]}->{c.load_pair[1]}" if c.load_pair else "0->3"
    lines = [f"  echo with contention: echo {echo}, load {load}; the load shares {c.shared}"] if c.shared else []
    if c.crowded:
        lines.append(f"    note: {c.crowded}")
    for run in c.loads:
        slow = ", ".join(f"{format_size(sz)} x{x:.2f}" for sz, x in zip(c.sizes, run.slowdown))
        lines.append(f"  echo {echo} with {format_size(run.load_size)} load {load}: slowdown {slow}")
    if c.control:
        slow = ", ".join(f"{format_size(sz)} x{x:.2f}" for sz, x in zip(c.sizes, c.control.slowdown))
        lines.append(f"  control, the same load {c.control.load_pair[0]}->{c.control.load_pair[1]} on other nodes: "
                     f"slowdown {slow}")
    return lines


def plan_lines(plan: LayerPlanRecord) -> list:
    """How many pairs the layers measured, and the checks of the classes."""
    held = sum(c.holds for c in plan.checks)
    lines = [f"  layer pairs ({plan.mode}): {plan.measured} of {plan.all_pairs} measured in {plan.rounds} round(s); "
             f"{len(plan.classes)} class(es) of relation"
             + (f"; {held} of {len(plan.checks)} checked pair(s) fall in their class's layer" if plan.checks else "")]
    for c in plan.failed_checks:
        lines.append(f"    check failed: pair {c.pair[0]}-{c.pair[1]} ({c.relation}) {microseconds(c.latency)}, "
                     f"its class's representative {microseconds(c.representative_latency)}")
    return lines
