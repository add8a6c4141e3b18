"""The runs where a figure moved, by hpcbench's one robust rule
(hpcbench._robust.out_of_line: median and scaled MAD, out when beyond K
spreads and FLOOR of the median).

The runs are read in time order against the current level: the runs since
the figure last moved (at first, every run). A run is judged with that
level's runs as its population, on both sides (a figure may move for the
better too). A run out of line is

* a *move* when the next run is out of line with the old level on the same
  side: the figure changed, and the level starts again at that run;
* a *one run* outlier when the next run is back in line: noted, and left
  out of the level, so one bad run does not shift the yardstick;
* *latest* when it is the last run: out of line, not yet confirmed.

A level judges nothing until it has two runs (with the judged one, the
rule's population of three), so the first two runs of a history, and the
first run after a move, are never flagged."""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from .._robust import Deviation, out_of_line

KINDS = ("move", "one run", "latest")


@dataclass(frozen=True)
class Move:
    """Run `run` (0-based in the series) out of line with the level before
    it: `kind` (see KINDS), `side` ("lower" or "higher": where the value
    went), `deviation` (the rule's evidence against that level), `level` =
    how many runs that level had."""
    run: int
    kind: str
    side: str
    deviation: Deviation
    level: int

    def direction(self, better: str | None) -> str:
        """'worse' or 'better' when the figure has a better side, else 'lower' or 'higher'."""
        if better not in ("higher", "lower"):
            return self.side
        return "better" if self.side == better else "worse"


def _judge(series: dict[int, float], level: list[int], run: int) -> tuple[str, Deviation] | None:
    """(side, deviation) when `run` is out of line with the runs of `level`, else None."""
    population: dict[Hashable, float] = {i: series[i] for i in level}
    population[run] = series[run]
    for side in ("lower", "higher"):
        found = [d for d in out_of_line(population, worse=side) if d.key == run]
        if found:
            return side, found[0]
    return None


def find_moves(values: Sequence[float | None]) -> list[Move]:
    """The moves of a figure's series `values` (one per run in time order,
    None where the run has no finite value: skipped, never judged)."""
    series = {i: float(v) for i, v in enumerate(values) if v is not None}
    runs = list(series)
    level: list[int] = []
    moves: list[Move] = []
    for k, run in enumerate(runs):
        verdict = _judge(series, level, run)
        if verdict is None:
            level.append(run)
            continue
        side, deviation = verdict
        if k + 1 == len(runs):
            moves.append(Move(run, "latest", side, deviation, len(level)))
            continue
        after = _judge(series, level, runs[k + 1])
        if after is not None and after[0] == side:
            moves.append(Move(run, "move", side, deviation, len(level)))
            level = [run]
        else:
            moves.append(Move(run, "one run", side, deviation, len(level)))
    return moves
