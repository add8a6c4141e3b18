"""What `hpcbench report` says about a comm record: latency, bandwidth,
collectives, layers, overlap and contention in words; layers that do not
follow the ranks' placement; and the headline numbers."""
from __future__ import annotations

import math

from .._format import format_size, microseconds
from .._headline import Headline, finite, sample_tuple
from .._physical import PEAK_RULE, hop_cost_failure, latency_failure, robust_peak
from ._layerplan import OTHER_NODE
from ._layerplot import layer_bandwidth, layer_panel_gaps, layer_scalability
from ._records import CommRecord, SweepFit, SweepSamples
from ._sanity import OVERLAP_RANGE

#: A slowdown below this is "no measurable effect".
NO_EFFECT = 1.1
#: An overlap above this share (%) of what could be hidden is "overlaps well".
GOOD_OVERLAP = 50.0


def _at(fit: SweepFit, size: int) -> float | None:
    """The median time (s) at message size `size`, None where not measured or not finite."""
    return finite(fit.summary.at(size))


def _samples_at(raw: SweepSamples, size: int) -> tuple[float, ...] | None:
    """The stored one-way times (s) at message size `size` (the samples behind its median), None where not kept."""
    if size not in raw.sizes or not isinstance(raw.samples, list) or len(raw.samples) != len(raw.sizes):
        return None
    return sample_tuple(raw.samples[raw.sizes.index(size)], 1e-9)


def _time_at(record: CommRecord, kernel: str, size: int, label: str) -> Headline:
    """The headline of `kernel`'s median time at `size`, with its samples."""
    return Headline(label, _at(getattr(record.derived, kernel), size), "s", "lower",
                    _samples_at(getattr(record.raw, kernel), size))


def _peak_bandwidth(record: CommRecord) -> Headline:
    """The echo's peak bandwidth, with the per-sample rates at the size where it peaks."""
    fit, raw = record.derived.echo, record.raw.echo
    bandwidth = fit.summary.bandwidth
    size = fit.summary.sizes[max(range(len(bandwidth)), key=lambda i: bandwidth[i])] if bandwidth else 0
    times = _samples_at(raw, size) if size > 0 else None
    rates = tuple(size / t for t in times if t > 0) if times else None
    return Headline("echo peak bandwidth", finite(fit.peak_bandwidth), "bytes/s", "higher", rates or None)


def _gbs(value: float | None) -> str:
    return "-" if value is None else f"{value / 1e9:.2f} GB/s"


#: A send holding the CPU less than this share of a stream's time per message "leaves the wire to the transport".
OFFLOADED = 0.5
#: Bytes of the message the overhead sentence speaks of.
FACE = 4096


def _overhead_lines(layers) -> list:
    """Per layer with overheads: for messages of about FACE bytes (a
    typical halo face), how much of a stream's time per message the
    sender's CPU spends in MPI_Send."""
    lines = []
    for lv in layers:
        o = lv.get("overheads")
        if o is None or not o.sizes:
            continue
        at = min((k for k in range(len(o.sizes)) if o.gap[k] > 0 and o.sizes[k] > 0),
                 key=lambda k: abs(math.log(o.sizes[k] / FACE)), default=None)
        if at is None:
            continue
        share = o.send[at] / o.gap[at]
        lines.append(f"Between '{lv.name}' ranks a stream of {format_size(o.sizes[at])} messages takes "
                     f"{microseconds(o.gap[at])} each, of which MPI_Send holds the sender "
                     f"{microseconds(o.send[at])}" +
                     (": the transport moves the data while the CPU goes on, so computation between sends is "
                      "free up to that time." if share < OFFLOADED else
                      ": the CPU moves the data itself (a copy), so sending costs computation time."))
    return lines


def _layer_curve_lines(record: CommRecord) -> list:
    """Servet's Fig. 10b-d in words: each layer's slowdown with all its
    disjoint pairs sending at once, each layer's peak bandwidth (where
    there are two layers or more: one layer is the echo's sentence), and
    what the figure cannot show for this record."""
    layers, probe = record.derived.layers, format_size(record.parameters.probe_size)
    lines = []
    scaling = [(i, lv, layer_scalability(lv)) for i, lv in enumerate(layers)]
    scaling = [(i, lv, pairs, slowdown) for i, lv, (pairs, _, slowdown) in scaling if pairs.size >= 2]
    if scaling:
        parts = ", ".join(f"x{slowdown[-1]:.2f} in layer {i + 1} ('{lv.name}', {pairs[-1]:.0f} pairs)"
                          for i, lv, pairs, slowdown in scaling)
        worst = max(slowdown[-1] for *_, slowdown in scaling)
        lines.append(f"Layer scalability (Fig. 10b, {probe}): with all its disjoint pairs sending at once, a message "
                     f"takes, against one alone, {parts}" +
                     (": where that is well above 1, concurrent messages queue for a shared path, so fewer, larger "
                      "messages pay (Servet: N messages of S bytes cost more than one of N x S)."
                      if worst >= NO_EFFECT else ": the layers scale, concurrent messages do not slow each other."))
    peaks = [(i, lv, *layer_bandwidth(lv)) for i, lv in enumerate(layers)]
    peaks = [(i, lv, robust_peak(bw)) for i, lv, sizes, bw in peaks if sizes.size]
    if len(peaks) > 1:
        parts = ", ".join(f"layer {i + 1} ('{lv.name}') {_gbs(peak)}" for i, lv, peak in peaks)
        lines.append(f"Bandwidth per layer, from its representative pair (Fig. 10c/d; {PEAK_RULE}): {parts}: the cost "
                     "of a message depends on the layer it crosses as well as on its size.")
    gaps = layer_panel_gaps(record)
    if gaps:
        lines.append(f"Servet's Fig. 10b-d cannot show everything for this record: {'; '.join(gaps)}.")
    return lines


def comm_meaning(record: CommRecord) -> list:
    """Point to point, collectives, layers, overlap and contention, one sentence each."""
    p, d = record.parameters, record.derived
    e = d.echo
    small = _at(e, 8) or _at(e, 0)
    lines = [f"A small message between ranks 0 and 1 takes {microseconds(small)} one way; messages reach "
             f"{_gbs(echo_peak(record))} ({PEAK_RULE}), half of the highest point from {format_size(e.n_half or 0)} "
             "on (n_1/2): messages much smaller than that are latency-bound, so aggregate them."]
    ratio = f" (as long as {d.barrier.median / small:.1f} small messages)" if small else ""
    parts = [f"a barrier takes {microseconds(d.barrier.median)}{ratio}"]
    for fit, label in ((d.global_sum, "a global sum of 8 B"), (d.broadcast, "a broadcast of 8 B")):
        value = _at(fit, 8)
        if value is not None:
            parts.append(f"{label} {microseconds(value)}")
    lines.append(f"Over {p.ranks} ranks {', '.join(parts)}.")
    if len(d.layers) > 1:
        layers = "; ".join(f"{lv.name}: {microseconds(lv.latency)}" for lv in d.layers)
        lines.append(f"Pairs of ranks fall into {len(d.layers)} latency layers at {format_size(p.probe_size)} "
                     f"({layers}): place the ranks that talk most within the first.")
    elif d.layers:
        lines.append(f"Every pair of ranks has about the same latency ({microseconds(d.layers[0].latency)} at "
                     f"{format_size(p.probe_size)}): where ranks are placed does not change it.")
    lines += _layer_curve_lines(record)
    lines += _overhead_lines(d.layers)
    pct = sound_overlaps(record)
    if pct:
        best = max(pct)
        share = "All" if best >= 100 else f"Up to {best:.0f}%"        # above 100%: saved more than the exchange took
        lines.append(f"{share} of an exchange hides behind computation (DAXPY) at some sizes" +
                     (": overlapping communication with computation pays off." if best >= GOOD_OVERLAP else
                      ": messages progress mostly inside MPI calls, so overlap gains little."))
    if d.contention and d.contention.loads:
        worst = max((x for load in d.contention.loads for x in load.slowdown if finite(x) is not None), default=None)
        if worst is not None:
            c = d.contention
            load = f"{c.load_pair[0]} and {c.load_pair[1]}" if c.load_pair else "0 and 3"
            echo = f"{c.echo_pair[0]} and {c.echo_pair[1]}" if c.echo_pair else "1 and 2"
            shares = f" ({c.shared})" if c.shared else ""
            lines.append(f"A stream between ranks {load}{shares} " +
                         (f"does not slow the echo between {echo} (at most x{worst:.2f})." if worst < NO_EFFECT else
                          f"slows the echo between {echo} by up to x{worst:.2f}: they share a path."))
    if d.hops and d.hops.model and hop_failure(record) is None:
        lines.append(f"Each extra hop adds {microseconds(d.hops.model.per_hop)}.")
    return lines


def _overlaps(record: CommRecord) -> list[tuple[float, bool]]:
    """(overlap %, whether it can be) of every measured cell: not flagged by
    the run (_sanity.overlap_flags) and within OVERLAP_RANGE, which older
    records, written before the flags, are checked against here."""
    ov = record.derived.overlap
    flagged = {(f.vector_length, f.size) for f in ov.flags or []}
    return [(v, (ov.vector_lengths[i], ov.sizes[j]) not in flagged and OVERLAP_RANGE[0] <= v <= OVERLAP_RANGE[1])
            for i, row in enumerate(ov.overlap_percent) for j, v in enumerate(row)
            if v is not None and math.isfinite(v)]


def sound_overlaps(record: CommRecord) -> list[float]:
    """The overlap percentages that can be (see _overlaps)."""
    return [v for v, sound in _overlaps(record) if sound]


def _overlap_failure(record: CommRecord) -> str | None:
    """Why the overlap says nothing where no measured cell can be, None where one can."""
    cells = [v for v, _ in _overlaps(record)]
    if not cells or sound_overlaps(record):
        return None
    return (f"the overlap of exchange with DAXPY failed: none of its {len(cells)} measured cells can be "
            f"({min(cells):.0f} % to {max(cells):.0f} % of what could be hidden, flagged or outside "
            f"{OVERLAP_RANGE[0]:.0f} % .. {OVERLAP_RANGE[1]:.0f} %): the times are noise; no overlap is reported")


def comm_machine_figures(record: CommRecord) -> list:
    """Between nodes, where the run spans nodes: the small-message latency
    and the bandwidth of the largest message of the fastest layer whose
    pairs are all on different nodes (for the report's machine header and
    answer). The largest message's, not a peak: a shaped or shared link
    lets a burst of mid-sized messages through faster than it streams."""
    apart = [lv for lv in record.derived.layers if set(lv.names) == {OTHER_NODE}]
    if not apart:
        return []
    lv = min(apart, key=lambda layer: layer.latency)
    sizes, bandwidth = layer_bandwidth(lv)
    out = [Headline("latency between nodes, 8 B", finite(lv.summary.at(8)), "s", "lower")]
    if sizes.size:
        out.append(Headline(f"bandwidth between nodes, {format_size(sizes[-1])}", float(bandwidth[-1]), "bytes/s",
                            "higher"))
    return out


def echo_peak(record: CommRecord) -> float | None:
    """The echo's peak bandwidth by the robust rule (_physical.robust_peak), not its one highest point."""
    return robust_peak(record.derived.echo.summary.bandwidth)


def hop_failure(record: CommRecord) -> str | None:
    """Why the hop model failed (its per-hop cost is not physical), None where it holds or was not fitted."""
    hops = record.derived.hops
    if not (hops and hops.model):
        return None
    return hop_cost_failure(hops.model.per_hop, microseconds(hops.model.per_hop))


def comm_failed_fits(record: CommRecord) -> list:
    """The fits whose figures are not physical, one line each with why: the
    hop model, and every regional fit (kernels and layers) with a negative
    latency. Their figures are not findings (the report says so)."""
    d = record.derived
    lines = [why for why in [hop_failure(record), _overlap_failure(record)] if why]
    kernels = ("echo", "exchange", "broadcast", "global_sum")
    fits = [(name.replace("_", " "), getattr(d, name, None)) for name in kernels]
    fits += [(f"layer {i + 1} ('{lv.name}')", lv) for i, lv in enumerate(d.layers)]
    for name, fit in fits:
        for r in getattr(fit, "regions", None) or []:
            why = latency_failure(f"{name} fit over {format_size(r.first)}..{format_size(r.last)}", r.latency,
                                  microseconds(r.latency))
            if why:
                lines.append(why)
    return lines


def comm_disagreements(record: CommRecord) -> list:
    """Latency layers that do not follow the ranks' placement: one layer
    holding pairs of different relations (hwloc and the hosts separate
    them, the latency does not), or one relation split over layers."""
    lines = []
    seen: dict = {}
    for lv in record.derived.layers:
        if len(lv.names) > 1:
            mix = ", ".join(f"{name} ({n} pairs)" for name, n in lv.names.items())
            lines.append(f"the layer at {microseconds(lv.latency)} mixes {mix}: their latencies do not differ "
                         "as their placement does")
        for name in lv.names:
            seen.setdefault(name, []).append(lv.latency)
    for name, latencies in seen.items():
        if len(latencies) > 1:
            lines.append(f"pairs '{name}' fall into {len(latencies)} latency layers "
                         f"({', '.join(microseconds(t) for t in latencies)})")
    return lines


def comm_headlines(record: CommRecord) -> list:
    """Echo latency, peak bandwidth and n_1/2; collectives at 8 B; barrier; DAXPY; each layer's latency, peak
    bandwidth and slowdown with all its pairs at once."""
    d = record.derived
    out = [_time_at(record, "echo", 0, "echo latency 0 B"), _time_at(record, "echo", 8, "echo latency 8 B"),
           _peak_bandwidth(record),
           Headline("echo n_1/2", finite(d.echo.n_half), "bytes", "lower")]
    for kernel, label in (("exchange", "exchange"), ("broadcast", "broadcast"), ("global_sum", "global sum")):
        out.append(_time_at(record, kernel, 8, f"{label} 8 B"))
    barrier = record.raw.barrier.get("samples") if isinstance(record.raw.barrier, dict) else None
    out.append(Headline("barrier", finite(d.barrier.median), "s", "lower", sample_tuple(barrier, 1e-9)))
    out.append(Headline("DAXPY r_inf", finite(d.daxpy.r_inf), "flop/s", "higher"))
    # Layers in order of latency; two may carry one relation's name (the
    # pairs of one relation split by their latencies), so the number counts.
    out += [Headline(f"layer {i + 1} ('{lv.name}') latency", finite(lv.latency), "s", "lower")
            for i, lv in enumerate(d.layers)]
    return out + _layer_curve_headlines(record)


def _layer_curve_headlines(record: CommRecord) -> list:
    """Servet's Fig. 10b-d in numbers: each layer's peak bandwidth, and its
    slowdown with all its disjoint pairs at once (the count in the label:
    two runs compare only the same concurrency)."""
    out = []
    for i, lv in enumerate(record.derived.layers):
        sizes, bandwidth = layer_bandwidth(lv)
        if sizes.size:
            out.append(Headline(f"layer {i + 1} ('{lv.name}') peak bandwidth", robust_peak(bandwidth), "bytes/s",
                                "higher"))
        pairs, _, slowdown = layer_scalability(lv)
        if pairs.size >= 2:
            out.append(Headline(f"layer {i + 1} ('{lv.name}') slowdown, {pairs[-1]:.0f} pairs at once",
                                finite(float(slowdown[-1])), "ratio", "lower"))
    return out
