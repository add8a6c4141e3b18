"""The procurement questions of Hammond et al. (2009, section 6) as
answers: how many cores before parallel efficiency falls below a level
(Figure 4: "for the 240^3 problem this turning point occurs between 1024
and 2048 cores"), and how many cores on a second interconnect take the
time the first takes (Figure 5: "between two and four times as many
processors will be required to offset ... a slower interconnect").

Both search over process counts the same way a sweep projects them
(_sweep.py): each count on its most square array, the grid split into
blocks of ceil and floor sizes, the machine grown in nodes as the count needs. The counts
tried are powers of two, then the near-square counts k^2 and k(k+1)
between the two powers that bracket the answer (arrays of other counts
are long and thin, which no one runs a wavefront code on).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._bounds import available_memory, model_cost
from ._errors import PredictError

__all__ = ["EfficiencyAnswer", "MatchAnswer", "MatchRow", "check_level", "efficiency_answer", "match_answer",
           "near_square_counts"]

#: The most processes a search tries: 2^20 (the model of that many ranks
#: takes about 0.6 GiB and a second).
SEARCH_LIMIT = 1 << 20


@dataclass(frozen=True)
class EfficiencyAnswer:
    """Where parallel efficiency T(1) / (P T(P)) falls below `level`:
    `tried` holds (count, efficiency) in increasing count; `crossing` is the
    largest count tried with efficiency >= level below which every count
    tried had it too (None: already below at 2 processes), `below` the
    first count tried under the level (None: never, up to `limit`)."""

    level: float
    tried: tuple[tuple[int, float], ...]
    crossing: int | None
    below: int | None
    limit: int

    def line(self) -> str:
        """The answer in one sentence."""
        eff = dict(self.tried)
        pct = f"{self.level * 100:g} %"
        if self.crossing is None and self.below is None:
            return f"no count but one process fits the search (up to {self.limit})"
        if self.crossing is None:
            below = int(self.below or 1)
            return f"parallel efficiency is below {pct} already at {below} processes ({eff[below]:.1%})"
        if self.below is None:
            return (f"parallel efficiency stays at or above {pct} up to {self.crossing} processes "
                    f"({eff[self.crossing]:.1%}; searched up to {self.limit})")
        return (f"parallel efficiency falls below {pct} after {self.crossing} processes "
                f"({eff[self.crossing]:.1%}); {self.below} processes give {eff[self.below]:.1%}")


@dataclass(frozen=True)
class MatchRow:
    """A count on the first profile and the count the second one needs for
    the same time (seconds per iteration); `matched` None when no count up
    to the search's limit is as fast."""

    count: int
    seconds: float
    matched: int | None
    matched_seconds: float

    @property
    def factor(self) -> float:
        """How many times the processes the second profile needs."""
        return math.nan if self.matched is None else self.matched / self.count


@dataclass(frozen=True)
class MatchAnswer:
    """For each count of the first profile, the count of the second
    (`second`, its source) that matches its time; `curve` the second's
    (count, seconds) tried and `first_curve` the first's at the same
    counts, for the figure (Figure 5 draws both)."""

    second: str
    rows: tuple[MatchRow, ...]
    curve: tuple[tuple[int, float], ...]
    limit: int
    first_curve: tuple[tuple[int, float], ...] = ()

    def lines(self) -> list[str]:
        out = []
        for r in self.rows:
            if r.matched is None:
                out.append(f"  {r.count} processes ({r.seconds:.4g} s): no count up to {self.limit} on {self.second} "
                           "is as fast")
            else:
                out.append(f"  {r.count} processes ({r.seconds:.4g} s) on the first take {r.matched} on "
                           f"{self.second} ({r.matched_seconds:.4g} s): x{r.factor:.2f} the processes")
        return out


def near_square_counts(low: int, high: int) -> list[int]:
    """The counts k^2 and k(k+1) in [low, high], increasing."""
    k0 = max(math.isqrt(max(low, 1)) - 1, 1)
    out: set[int] = set()
    k = k0
    while k * k <= high:
        out.update(c for c in (k * k, k * (k + 1)) if low <= c <= high)
        k += 1
    return sorted(out)


def search_limit(cells: int) -> int:
    """The largest count a search tries: at most one per cell of a plane,
    at most SEARCH_LIMIT, and at most what the model of that many ranks can
    hold here (model_cost; the model's memory is 640 bytes a rank)."""
    limit = min(max(int(cells), 1), SEARCH_LIMIT)
    room = available_memory()
    while limit > 1 and room is not None and model_cost(limit).bytes > room:
        limit //= 2
    return limit


def check_level(level: object) -> None:
    """PredictError unless `level` is an efficiency strictly between 0 and 1."""
    if isinstance(level, bool) or not (isinstance(level, (int, float)) and 0.0 < level < 1.0):
        raise PredictError(f"--efficiency is a level between 0 and 1 (0.5: 50 %), got {level!r}")


def efficiency_answer(time_of: Callable[[int], float], level: float, limit: int) -> EfficiencyAnswer:
    """Efficiency against one process, T(1) / (P T(P)), with T = time_of
    (seconds per iteration of P processes): powers of two up to `limit`
    until it falls below `level`, then the near-square counts between the
    last two powers."""
    check_level(level)
    t1 = time_of(1)

    def eff(p: int) -> float:
        return t1 / (p * time_of(p))

    tried: dict[int, float] = {1: 1.0}
    for p in _powers(limit):
        tried[p] = eff(p)
        if tried[p] < level:
            break
    below = next((p for p in sorted(tried) if tried[p] < level), None)
    if below is not None:
        previous = max(p for p in tried if p < below)
        for p in near_square_counts(previous + 1, below - 1):
            tried[p] = eff(p)
        below = next(p for p in sorted(tried) if tried[p] < level)
    above = [p for p in sorted(tried) if p < (below if below is not None else math.inf)]
    crossing = above[-1] if above and above[-1] > 1 else None
    return EfficiencyAnswer(float(level), tuple(sorted(tried.items())), crossing, below, limit)


def match_answer(counts: Sequence[int], first: Callable[[int], float], second: Callable[[int], float],
                 second_name: str, limit: int) -> MatchAnswer:
    """For each of `counts`, the smallest count tried on `second` whose
    time is at most `first`'s: powers of two until one is, then the
    near-square counts between it and the power before."""
    curve: dict[int, float] = {}

    def on_second(p: int) -> float:
        if p not in curve:
            curve[p] = second(p)
        return curve[p]

    rows = []
    for count in counts:
        target = first(count)
        hit = next((p for p in _powers(limit) if on_second(p) <= target), None)
        if hit is not None and hit > 1:
            hit = next(p for p in near_square_counts(hit // 2 + 1, hit - 1) + [hit] if on_second(p) <= target)
        rows.append(MatchRow(count, target, hit, on_second(hit) if hit is not None else math.nan))
    asked = {r.count: r.seconds for r in rows}
    first_curve = tuple((p, asked[p] if p in asked else first(p)) for p in sorted(curve))
    return MatchAnswer(second_name, tuple(rows), tuple(sorted(curve.items())), limit, first_curve)


def _powers(limit: int) -> list[int]:
    """1, 2, 4, ... up to `limit` (and `limit` itself if it is not one)."""
    out = [1 << k for k in range(max(int(limit), 1).bit_length()) if 1 << k <= limit]
    return out + ([limit] if out[-1] != limit else [])
