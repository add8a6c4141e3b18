"""What `hpcbench report` says about a micro-benchmark record: the figures
an acceptance test quotes first (small-message latency, large-message
bandwidth, the collective that grows fastest, the overlap a non-blocking
collective achieves), the contradictions between figures that physics or
the statistics' own definitions rule out, and the headline numbers a
side-by-side report compares."""
from __future__ import annotations

import numpy as np

from .._format import format_size
from .._headline import Headline, finite, format_value, sample_tuple
from .._physical import PEAK_RULE, robust_peak
from ._records import MicroPoint, MicroRawSeries, MicroRecord, MicroSeries
from ._summary import scaling_groups, series_family

#: The sizes acceptance tests quote (the issue's figures); headlines use the
#: ones measured, else the smallest and largest size of a series.
HEADLINE_SIZES = (8, 4096, 65536, 4 << 20)
#: An overlap (%) from which a non-blocking collective "progresses in the background".
GOOD_OVERLAP = 50.0
#: Two figures measured at different moments differ by noise; a bound
#: between them is flagged only beyond this factor (10%).
NOISE = 1.1
#: Rounding of figures computed from the same samples.
ROUNDING = 1e-9

# The rules micro_disagreements names, one per contradiction it looks for.
RULE_PERCENTILES = "percentiles out of order"
RULE_IMB = "IMB's statistics out of order"
RULE_VIEWS = "mean over ranks above the slowest rank"
RULE_FALLING = "latency falls with size"
RULE_BIBW = "bidirectional bandwidth above twice the unidirectional"
RULE_CPU = "computation alone slower than overlapped"
RULE_OVERLAP = "overlap outside 0-100%"


def _full_series(record: MicroRecord) -> list[MicroSeries]:
    return record.derived.series if record.derived else []


def _time(value: float | None) -> str:
    return format_value(value, "s")


def _rate(value: float | None) -> str:
    return format_value(value, "bytes/s")


def _p2p_like_lines(series: list[MicroSeries]) -> list[str]:
    """p2p and rma: the ping-pong's small and large message, every latency
    test at its smallest size, every bandwidth test at its peak."""
    lines = []
    for s in series:
        if s.test == "latency" and len(s.points) > 1:
            first, last = s.points[0], s.points[-1]
            lines.append(f"A message of {format_size(first.size)} takes {_time(first.median)} one way (OSU's "
                         f"ping-pong, hpcbench's median), one of {format_size(last.size)} {_time(last.median)}.")
    small = [f"{s.label} {_time(s.points[0].median)} ({format_size(s.points[0].size)})"
             for s in series if s.kind == "latency"]
    if small:
        lines.append(f"Latency at the smallest size: {', '.join(small)}.")
    peaks = []
    for s in series:
        if s.kind == "bandwidth":
            first = s.points[0]
            rate = "" if first.message_rate is None else \
                f" ({first.message_rate:.3g} messages/s at {format_size(first.size)})"
            peaks.append(f"{s.label} {_rate(robust_peak(p.median for p in s.points))}{rate}")
    if peaks:
        lines.append(f"Peak bandwidth ({PEAK_RULE}): {', '.join(peaks)}.")
    return lines


def _growth(s: MicroSeries) -> float | None:
    """Median at the largest size over the median at the smallest (None for one size)."""
    if len(s.points) < 2 or s.points[0].median <= 0:
        return None
    return s.points[-1].median / s.points[0].median


def _collective_lines(series: list[MicroSeries]) -> list[str]:
    """The cheapest and dearest collective at the smallest size, the one
    that grows fastest with size, and the gap between the two views."""
    lines = []
    small = [(s, s.points[0]) for s in series if s.test != "barrier"]
    if len(small) > 1:
        cheap, dear = min(small, key=lambda sp: sp[1].median), max(small, key=lambda sp: sp[1].median)
        lines.append(f"At the smallest size the cheapest collective is {cheap[0].label} "
                     f"({_time(cheap[1].median)} at {format_size(cheap[1].size)}), the dearest {dear[0].label} "
                     f"({_time(dear[1].median)} at {format_size(dear[1].size)}).")
    grown = [(g, s) for s in series if s.test != "barrier" for g in [_growth(s)] if g is not None]
    if grown:
        g, s = max(grown, key=lambda gs: gs[0])
        lines.append(f"{s.label} grows fastest with size: x{g:.0f} from {format_size(s.points[0].size)} to "
                     f"{format_size(s.points[-1].size)}.")
    gaps = [(p.median / p.rank_mean, s, p) for s in series for p in s.points if p.rank_mean and p.rank_mean > 0]
    if gaps:
        gap, s, p = max(gaps, key=lambda gsp: gsp[0])
        lines.append(f"The slowest rank per iteration takes up to x{gap:.2f} the mean over ranks ({s.label}, "
                     f"{format_size(p.size)}): OSU's and IMB's averages read that much below the time until the "
                     "collective is over on every rank.")
    return lines


def _nbc_lines(series: list[MicroSeries]) -> list[str]:
    """The overlap the non-blocking collectives achieve at their largest
    size: the range, and a verdict from the median over the tests that
    move data (ibarrier's overlap says nothing about data in flight)."""
    done = [(s, s.points[-1]) for s in series if s.points[-1].overlap_percent is not None]
    if not done:
        return []
    low = min(done, key=lambda sp: sp[1].overlap_percent or 0.0)
    high = max(done, key=lambda sp: sp[1].overlap_percent or 0.0)
    moving = sorted(p.overlap_percent or 0.0 for s, p in done if s.test != "ibarrier")
    typical = moving[len(moving) // 2] if moving else high[1].overlap_percent or 0.0
    where = f"{low[0].label} {low[1].overlap_percent:.0f}% at {format_size(low[1].size)}"
    if len(done) > 1:
        where = f"from {where} to {high[0].label} {high[1].overlap_percent:.0f}% at {format_size(high[1].size)}"
    return [f"Overlap of communication with computation at the largest size (IMB-NBC): {where}" +
            (f", {typical:.0f}% for the typical test that moves data" if len(moving) > 1 else "") +
            (": the MPI library progresses these collectives in the background, so computing while they run pays."
             if typical >= GOOD_OVERLAP else
             ": they progress mostly inside MPI calls, so computing while they run gains little.")]


def _scaling_line(record: MicroRecord) -> list[str]:
    """The test whose time grows most from the fewest to the most processes, at its smallest size."""
    grown = []
    for group in scaling_groups(record).values():
        size = min(p.size for s in group for p in s.points)
        at = [(s.procs, p.median) for s in group for p in s.points if p.size == size]
        if len(at) > 1 and at[0][1] > 0:
            grown.append((at[-1][1] / at[0][1], group[0].label, size, at[0][0], at[-1][0]))
    if not grown:
        return []
    growth, label, size, few, many = max(grown)
    return [f"{label} grows most with the number of processes: x{growth:.2f} from {few} to {many} at "
            f"{format_size(size)}."]


def micro_meaning(record: MicroRecord) -> list[str]:
    """The few sentences a user needs, by family."""
    series = [s for s in _full_series(record) if s.points]
    p = record.parameters
    lines = [f"{record.name} over {p.ranks} ranks: {len(series)} series, each with OSU's and IMB's statistics "
             "beside hpcbench's median, from the same samples."] if p else []
    by_family: dict[str, list[MicroSeries]] = {}
    for s in series:
        by_family.setdefault(series_family(s), []).append(s)
    lines += _collective_lines(by_family.get("collectives", []))
    lines += _nbc_lines(by_family.get("nbc", []))
    lines += _scaling_line(record)
    return lines + _p2p_like_lines(by_family.get("p2p", []) + by_family.get("rma", []))


def _where(s: MicroSeries, p: MicroPoint) -> str:
    return f"{s.label} at {p.size} B ({s.procs} processes)"


def _point_rules(s: MicroSeries, p: MicroPoint) -> list[str]:
    """Rules within one point, all true by definition of the statistics."""
    out = []
    # p10, median and p90 are order statistics of the same samples.
    if not (p.p10 <= p.median * (1 + ROUNDING) and p.median <= p.p90 * (1 + ROUNDING)):
        out.append(f"{_where(s, p)}: {RULE_PERCENTILES}: p10 {p.p10:.4g}, median {p.median:.4g}, p90 {p.p90:.4g}")
    # IMB's t_min, t_avg, t_max are the minimum, mean and maximum of the same per-rank means.
    lo, avg, hi = p.t_min, p.t_avg, p.t_max
    if lo is not None and avg is not None and hi is not None and not (
            lo <= avg * (1 + ROUNDING) and avg <= hi * (1 + ROUNDING)):
        out.append(f"{_where(s, p)}: {RULE_IMB}: t_min {_time(lo)}, t_avg {_time(avg)}, t_max {_time(hi)}")
    # Per iteration the mean over ranks is at most the slowest rank's time, and a median keeps that order.
    if p.rank_mean is not None and s.kind == "latency" and p.rank_mean > p.median * (1 + ROUNDING):
        out.append(f"{_where(s, p)}: {RULE_VIEWS}: mean over ranks {_time(p.rank_mean)}, slowest rank "
                   f"{_time(p.median)}")
    return out + _nbc_point_rules(s, p)


def _nbc_point_rules(s: MicroSeries, p: MicroPoint) -> list[str]:
    out = []
    # The overlapped operation does the whole computation and more, so the
    # computation alone (timed apart) cannot take longer, beyond noise.
    if p.t_cpu is not None and p.t_cpu > p.median * NOISE:
        out.append(f"{_where(s, p)}: {RULE_CPU}: t_CPU {_time(p.t_cpu)}, t_ovrl {_time(p.median)}")
    # IMB-NBC clamps its overlap to 0..100%.
    if p.overlap_percent is not None and not 0 <= p.overlap_percent <= 100:
        out.append(f"{_where(s, p)}: {RULE_OVERLAP}: {p.overlap_percent:.1f}%")
    return out


def _falling(s: MicroSeries) -> list[str]:
    """A larger message more than 2x faster than a smaller one: the smaller
    could have gone with the larger's protocol and algorithm and been no
    slower, so either the MPI's choice at the smaller size is more than 2x
    off or the measurement was disturbed. A barrier moves no data (its
    sizes repeat one operation), so it is not judged."""
    if s.kind != "latency" or s.test in ("barrier", "ibarrier"):
        return []
    slowest: MicroPoint | None = None
    for p in s.points:
        if slowest is not None and p.median * 2 < slowest.median:
            return [f"{s.label} ({s.procs} processes): {RULE_FALLING}: {_time(slowest.median)} at {slowest.size} B, "
                    f"{_time(p.median)} at {p.size} B, more than 2x faster for a larger message"]
        if slowest is None or p.median > slowest.median:
            slowest = p
    return []


def _bibw_rule(series: list[MicroSeries]) -> list[str]:
    """bibw at most twice bw at the same size and window: each direction of
    bibw has at most the link, copy engine and CPU the one direction of bw
    had alone (10% for the noise between two measurements)."""
    bw = {(s.window, p.size): p.median for s in series if s.test == "bw" for p in s.points}
    out = []
    for s in series:
        for p in s.points if s.test == "bibw" else []:
            alone = bw.get((s.window, p.size))
            if alone and p.median > 2 * alone * NOISE:
                out.append(f"{_where(s, p)}: {RULE_BIBW}: {_rate(p.median)}, bw {_rate(alone)}")
    return out


def micro_disagreements(record: MicroRecord) -> list[str]:
    """Figures of the record that contradict each other; each rule is one
    that holds by physics or by the definition of the statistics, so a hit
    is a broken measurement or an MPI choice worth a look, never normal."""
    d = record.derived
    if d is None:
        return []
    out = []
    for s in d.series + d.scaling:
        for p in s.points:
            out += _point_rules(s, p)
        out += _falling(s)
    return out + _bibw_rule(d.series)


def headline_sizes(sizes: list[int]) -> list[int]:
    """The quoted sizes (HEADLINE_SIZES) a series has, else its smallest and largest."""
    if not sizes:
        return []
    return [size for size in HEADLINE_SIZES if size in sizes] or sorted({min(sizes), max(sizes)})


def _raw_series(record: MicroRecord, s: MicroSeries) -> MicroRawSeries | None:
    """The measured samples of series `s` (same test, processes and synchronisation), None where not kept."""
    raw = record.raw.series if record.raw else []
    return next((r for r in raw if (r.test, r.procs, r.sync) == (s.test, s.procs, s.sync)), None)


def point_samples(s: MicroSeries, raw: MicroRawSeries | None, point: MicroPoint) -> tuple[float, ...] | None:
    """The per-sample values behind a point's median, as _stats computes it:
    per sample the slowest taking part rank's time (s), or for bandwidth the
    bytes per operation over it (the bytes recovered from the median, which
    scales with them). None where the record keeps no samples."""
    if raw is None or point.size not in raw.sizes:
        return None
    try:
        rows = np.asarray(raw.samples[raw.sizes.index(point.size)], dtype=float) * 1e-9
        rows = rows[np.all(np.isfinite(rows), axis=1)] if rows.ndim == 2 else rows[None, :]
        slowest = rows.max(axis=0)
    except (TypeError, ValueError):
        return None
    if slowest.size == 0 or np.any(slowest <= 0):
        return None
    if s.kind == "latency":
        return sample_tuple(slowest)
    bytes_per_op = point.median / float(np.median(1.0 / slowest))
    return sample_tuple(bytes_per_op / slowest)


def _series_headlines(s: MicroSeries, raw: MicroRawSeries | None = None) -> list[Headline]:
    unit, better = ("s", "lower") if s.kind == "latency" else ("bytes/s", "higher")
    at = {p.size: p for p in s.points}
    out = []
    for size in headline_sizes(list(at)):
        out.append(Headline(f"{s.label} {format_size(size)}", finite(at[size].median), unit, better,
                            point_samples(s, raw, at[size])))
        if at[size].overlap_percent is not None:
            out.append(Headline(f"{s.label} overlap {format_size(size)}", finite(at[size].overlap_percent), "%",
                                "higher"))
    return out


def micro_headlines(record: MicroRecord) -> list[Headline]:
    """Per series at every rank, hpcbench's median at the quoted sizes (nbc:
    t_ovrl and the overlap); labels unique within the record ('latency 8 B',
    'bw 4 MiB', 'put_latency (lock) 8 B'): a label that would repeat (two
    sizes that read alike) gets a '#2'."""
    out: list[Headline] = []
    seen: set[str] = set()
    for s in _full_series(record):
        for h in _series_headlines(s, _raw_series(record, s)):
            label, n = h.label, 1
            while label in seen:
                n += 1
                label = f"{h.label} #{n}"
            seen.add(label)
            out.append(Headline(label, h.value, h.unit, h.better, h.samples))
    return out
