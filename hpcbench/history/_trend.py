"""Each headline figure of a history as a trend: its value in every run of
its machine, in time order, and the runs where it moved (_moves.py)."""
from __future__ import annotations

from dataclasses import dataclass

from ._figures import FigureKey, value_of
from ._moves import Move, find_moves
from ._read import History, Machine, Run


@dataclass(frozen=True)
class Trend:
    """One figure of one machine: `values[i]` is its value in `runs[i]`
    (None where that run has none), `moves` index `runs`."""
    machine: Machine
    key: FigureKey
    better: str | None
    runs: list[Run]
    values: list[float | None]
    moves: list[Move]

    def measured(self) -> list[tuple[Run, float]]:
        """(run, value) of the runs that have a value."""
        return [(run, v) for run, v in zip(self.runs, self.values) if v is not None]


def machine_trends(runs: list[Run]) -> list[Trend]:
    """The trend of every figure of `runs` (one machine's, in time order),
    in the order the figures first appear."""
    per_run = [run.figures for run in runs]
    keys = list(dict.fromkeys(key for figures in per_run for key in figures))
    out = []
    for key in keys:
        values = [value_of(figures.get(key)) for figures in per_run]
        better = next((figures[key].better for figures in reversed(per_run) if key in figures), None)
        out.append(Trend(runs[0].machine, key, better, runs, values, find_moves(values)))
    return out


def trends(history: History, figure: str | None = None) -> list[Trend]:
    """Every figure's trend, machine by machine; with `figure`, only those
    whose 'benchmark on node: label' contains it (any case)."""
    wanted = figure.casefold() if figure else None
    out = []
    for machine in history.machines():
        for trend in machine_trends(history.runs_of(machine)):
            if wanted is None or wanted in trend.key.text().casefold():
                out.append(trend)
    return out
