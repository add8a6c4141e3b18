"""The comm record as rows of the tidy export (hpcbench._tidy;
docs/results-format.md, "Tidy export")."""
from __future__ import annotations

from .._tidy import Row, RowBuilder
from ._records import CommRecord, RegionRecord, SweepFit, SweepSummary

#: The message-size kernels of CommDerived, by field name.
SWEEP_KERNELS = ("echo", "exchange", "broadcast", "global_sum")


def comm_rows(record: CommRecord) -> list[Row]:
    """CoMet's kernels and Servet's layers, one row per figure (times in
    seconds): per kernel (echo, exchange, broadcast, global_sum) and
    message size (parameter "size_bytes") the time's median, min, p10,
    p90, p99 ("KERNEL_time") and bandwidth, its fits; the barrier; DAXPY
    per vector length; the overlap grid; contention, hops and the layers
    where measured (layer i as in derived.layers, from 0: its time and
    bandwidth per size, and the mean one-way time and slowdown per number
    of pairs sending at once); collectives against the number of
    processes (parameter "processes")."""
    out = RowBuilder(record)
    d = record.derived
    for kernel in SWEEP_KERNELS:
        _sweep_fit(out, kernel, getattr(d, kernel))
    for stat, value in (("min", d.barrier.minimum), ("median", d.barrier.median), ("p90", d.barrier.p90)):
        out.add("barrier_time", value, "s", stat)
    out.curve("daxpy_time", "vector_doubles", d.daxpy.lengths, d.daxpy.median, "s", "median")
    out.curve("daxpy_rate", "vector_doubles", d.daxpy.lengths, d.daxpy.flops, "flop/s", "median")
    out.add("daxpy_r_inf", d.daxpy.r_inf, "flop/s", "fit")
    out.add("daxpy_n_half", d.daxpy.n_half, "doubles", "fit")
    _overlap(out, d)
    _contention(out, d)
    if d.hops is not None:
        for p in d.hops.points:
            out.add(f"hop_time size {p.size}", p.median, "s", "median", "hops", p.hops)
        if d.hops.model is not None:
            out.add("hop_t0", d.hops.model.t0, "s", "fit")
            out.add("hop_seconds_per_byte", d.hops.model.seconds_per_byte, "s/byte", "fit")
            out.add("hop_per_hop", d.hops.model.per_hop, "s", "fit")
    for i, layer in enumerate(d.layers):
        out.add("layer_latency", layer.latency, "s", "median", "layer", i)
        # by index: two layers may have the same name (the same relation at two latencies)
        _summary(out, f"layer_time {i}", layer.summary)
        # Servet's Fig. 10c/d (bandwidth per layer) and 10b (a message's time with k pairs at once)
        out.curve(f"layer_bandwidth {i}", "size_bytes", layer.summary.sizes, layer.summary.bandwidth, "bytes/s",
                  "median")
        pairs = [s.pairs for s in layer.scalability]
        out.curve(f"layer_concurrent_time {i}", "pairs", pairs, [s.latency for s in layer.scalability], "s", "mean")
        out.curve(f"layer_slowdown {i}", "pairs", pairs, [s.slowdown for s in layer.scalability], "ratio", "derived")
    if d.scaling is not None:
        for c in d.scaling.curves:
            out.curve(f"{c.kernel.replace(' ', '_')}_time size {c.size}", "processes", c.fit.counts, c.fit.times,
                      "s", "median")
    return out.rows


def _summary(out: RowBuilder, quantity: str, s: SweepSummary) -> None:
    for stat, values in (("median", s.median), ("min", s.minimum), ("p10", s.p10), ("p90", s.p90),
                         ("p99", s.p99)):
        out.curve(quantity, "size_bytes", s.sizes, values, "s", stat)


def _sweep_fit(out: RowBuilder, kernel: str, f: SweepFit) -> None:
    s = f.summary
    _summary(out, f"{kernel}_time", s)
    out.curve(f"{kernel}_bandwidth", "size_bytes", s.sizes, s.bandwidth, "bytes/s", "median")
    if s.rank_average is not None:
        out.curve(f"{kernel}_time_rank_average", "size_bytes", s.sizes, s.rank_average, "s", "mean")
    _region(out, f"{kernel}_hockney", f.hockney)
    for r in f.regions:
        _region(out, f"{kernel}_region", r, "from_size_bytes", r.first)
    out.add(f"{kernel}_peak_bandwidth", f.peak_bandwidth, "bytes/s", "derived")
    out.add(f"{kernel}_n_half", f.n_half, "bytes", "derived")
    out.add(f"{kernel}_n_90", f.n_90, "bytes", "derived")


def _region(out: RowBuilder, prefix: str, r: RegionRecord, parameter: str = "", value: int | None = None) -> None:
    """t(N) = latency + N * seconds_per_byte, and its bandwidth."""
    out.add(f"{prefix}_latency", r.latency, "s", "fit", parameter, value)
    out.add(f"{prefix}_seconds_per_byte", r.seconds_per_byte, "s/byte", "fit", parameter, value)
    out.add(f"{prefix}_bandwidth", r.bandwidth, "bytes/s", "fit", parameter, value)


def _overlap(out: RowBuilder, d) -> None:
    """CoMet's overlap grid, one quantity per DAXPY length ("... vector N"),
    message size as the parameter."""
    o = d.overlap
    for i, n in enumerate(o.vector_lengths):
        out.curve(f"overlap_percent vector {n}", "size_bytes", o.sizes, o.overlap_percent[i], "%", "derived")
        out.curve(f"overlap_saved vector {n}", "size_bytes", o.sizes, o.saved[i], "s", "derived")
        for mode, grid in o.median.items():
            out.curve(f"overlap_time {mode} vector {n}", "size_bytes", o.sizes, grid[i], "s", "median")


def _contention(out: RowBuilder, d) -> None:
    """The echo alone and under each load ("... load BYTES"), and the control."""
    c = d.contention
    if c is None:
        return
    out.curve("contention_time alone", "size_bytes", c.sizes, c.alone_median, "s", "median")
    for load in c.loads:
        out.curve(f"contention_time load {load.load_size}", "size_bytes", c.sizes, load.median, "s", "median")
        out.curve(f"contention_slowdown load {load.load_size}", "size_bytes", c.sizes, load.slowdown, "ratio",
                  "derived")
        out.add(f"contention_load_bandwidth load {load.load_size}", load.load_bandwidth, "bytes/s", "median")
    if c.control is not None:
        out.curve(f"contention_control_slowdown load {c.control.load_size}", "size_bytes", c.sizes,
                  c.control.slowdown, "ratio", "derived")
