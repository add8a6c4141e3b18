"""What `hpcbench report` says about a stream record: the node's Triad, how
it grows from one core, and the numbers a side-by-side report compares."""
from __future__ import annotations

import numpy as np

from .._format import gigabytes_per_second
from .._headline import Headline, finite, sample_tuple
from ._analysis import spans_ns
from ._counting import KERNELS
from ._records import KernelRate, StreamRecord

#: A team that reaches this share of all cores' Triad "saturates" the memory.
SATURATION = 0.9


def stream_meaning(record: StreamRecord) -> list:
    """Triad on all cores, against one core, and the smallest team that
    comes near it."""
    teams = record.derived.teams
    if not teams or record.derived.triad is None:
        return []
    first, last = teams[0].rate("triad"), teams[-1].rate("triad")
    lines = [f"STREAM Triad with all {len(teams[-1].pus)} core(s): {gigabytes_per_second(record.derived.triad)} "
             "(STREAM's byte count, the figure other machines quote)."]
    if first is not None and last is not None and len(teams) > 1 and first.best > 0:
        near = next((t for t in teams if (r := t.rate("triad")) is not None and r.best >= SATURATION * last.best),
                    teams[-1])
        line = (f"One core alone gets {gigabytes_per_second(first.best)}; all cores get {last.best / first.best:.1f}x "
                "that")
        if near is not teams[-1]:
            line += (f", and {near.group} ({len(near.pus)} core(s)) already reaches {100 * SATURATION:.0f}% of it: "
                     "a memory-bound code gains little from more cores than that")
        lines.append(line + ".")
    if record.parameters.stores == "ordinary" and last is not None:
        lines.append(f"With the write-allocate reads counted, the memory moved "
                     f"{gigabytes_per_second(last.best_with_write_allocate)} during Triad.")
    return lines


def stream_machine_figures(record: StreamRecord) -> list:
    """For the report's machine header: STREAM Triad with all cores."""
    return [Headline("STREAM Triad, all cores", finite(record.derived.triad), "bytes/s", "higher")]


def repetition_rates(record: StreamRecord, team: int, rate: KernelRate) -> tuple[float, ...] | None:
    """The team's rate (bytes/s) in each repetition of one kernel: the best
    rate scaled by the shortest span over each span (a rate is its bytes over
    its span); None where the record keeps no spans for the team."""
    raw = getattr(getattr(record, "raw", None), "teams", None) or []    # a record built without its raw part
    if team >= len(raw) or rate.kernel not in KERNELS:
        return None
    try:
        spans = spans_ns(raw[team].start_ns, raw[team].end_ns)[:, KERNELS.index(rate.kernel)]
    except (TypeError, ValueError, IndexError):
        return None
    spans = spans[np.isfinite(spans) & (spans > 0)]
    return sample_tuple(rate.best * spans.min() / spans) if spans.size else None


def stream_headlines(record: StreamRecord) -> list:
    """Triad on all cores, and every kernel's best rate on each team (each
    with its repetitions' rates as samples)."""
    teams = record.derived.teams
    last = teams[-1].rate("triad") if teams else None
    out = [Headline("Triad, all cores", finite(record.derived.triad), "bytes/s", "higher",
                    repetition_rates(record, len(teams) - 1, last) if last is not None else None)]
    for i, team in enumerate(teams):
        for k in team.kernels:
            out.append(Headline(f"{k.kernel.capitalize()}, {team.group} ({len(team.pus)} cores)", finite(k.best),
                                "bytes/s", "higher", repetition_rates(record, i, k)))
    return out
