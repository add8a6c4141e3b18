"""What `hpcbench history` prints: per machine, one line per figure (its
trend as a sparkline, its first and latest values), a line under it for
each run where it moved, and at the end the moves in one list."""
from __future__ import annotations

from .._headline import format_value
from .._terminal import shown
from ._moves import Move
from ._names import date_text
from ._read import History, Machine
from ._sparkline import BLOCKS, sparkline
from ._trend import Trend

#: The widest figure name the table pads to.
_NAME_WIDTH = 56
_WHAT = {"move": "moved", "one run": "one run out of line", "latest": "the latest run is out of line"}


def move_text(trend: Trend, move: Move) -> str:
    """'run 6 (2026-11-06 10:00, NAME): moved, worse: 33.8 GB/s against ...'."""
    run = trend.runs[move.run]
    d = move.deviation
    unit = trend.key.unit

    def value(v: float) -> str:
        return format_value(v, unit)
    spread = "the runs before are identical" if d.spread == 0 else f"spread {value(d.spread)}"
    far = "" if d.spread == 0 else f", {d.z:.0f} spreads out"
    when = "" if move.kind != "latest" else "; not yet confirmed by a later run"
    return (f"run {move.run + 1} ({date_text(run.date)}, {shown(run.file)}): {_WHAT[move.kind]}, "
            f"{move.direction(trend.better)}: {value(d.value)} against a median of {value(d.median)} over the "
            f"{move.level} run(s) before ({spread}), {100 * d.relative:.0f} % {move.side}{far}{when}")


def _machine_lines(history: History, machine: Machine, trends: list[Trend], blocks: str) -> list[str]:
    runs = history.runs_of(machine)
    lines = [f"{shown(machine.text())}: {len(runs)} run(s), {date_text(runs[0].date)} .. "
             f"{date_text(runs[-1].date)} (UTC)"]
    width = min(_NAME_WIDTH, max((len(shown(t.key.text())) for t in trends), default=0))
    for trend in trends:
        measured = trend.measured()
        first, last = (measured[0][1], measured[-1][1]) if measured else (None, None)
        moved = ", ".join(f"{m.kind} at run {m.run + 1}" for m in trend.moves)
        lines.append(f"  {shown(trend.key.text()):<{width}}  {sparkline(trend.values, blocks)}  "
                     f"{format_value(first, trend.key.unit)} .. {format_value(last, trend.key.unit)}"
                     + (f"  [{moved}]" if moved else ""))
        lines += [f"      {move_text(trend, m)}" for m in trend.moves]
    return lines


def history_lines(history: History, trends: list[Trend], blocks: str = BLOCKS) -> list[str]:
    """The whole text (without the warnings for skipped files)."""
    machines = [m for m in history.machines() if any(t.machine == m for t in trends)]
    lines = [f"history {shown(history.directory)}: {len(history.runs)} run(s) of {len(history.machines())} machine(s)"
             + ("; grouped by machine (CPU model and hosts), each its own history" if len(history.machines()) > 1
                else "")]
    for machine in machines:
        lines += [""] + _machine_lines(history, machine, [t for t in trends if t.machine == machine], blocks)
    moved = [(t, m) for t in trends for m in t.moves]
    lines.append("")
    if not moved:
        lines.append(f"{len(trends)} figure(s); none moved")
    else:
        lines.append(f"{len(trends)} figure(s); {len(moved)} move(s):")
        lines += [f"  {shown(t.machine.text())}, {shown(t.key.text())}: {m.kind} at run {m.run + 1} "
                  f"({m.direction(t.better)})" for t, m in moved]
    return lines
