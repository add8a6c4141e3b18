"""This run against a history folder (`run --history DIR`): every headline
figure judged against the same figure of the machine's earlier runs by
hpcbench's one robust rule (hpcbench._robust: median and scaled MAD of the
runs, out of line beyond K spreads and a floor).

Why a history judges better than one earlier file: a run's samples show
how a figure varies within the run, not between runs (the ranks placed
differently, another tenant, the fitted figures moving with a few points),
so two runs of an unchanged machine often differ significantly by a
Mann-Whitney test. The earlier runs' own spread is that between-run
variation, measured: a figure is worse only when it lies out of line with
it. The floor is check's --min-change or the figure's own tolerance
(Headline.tolerance), the larger."""
from __future__ import annotations

import math
import statistics

from .._headline import Headline
from .._results import Results
from .._robust import MIN_POPULATION, centre_and_spread, out_of_line
from ..history._figures import figures_of, value_of
from ..history._read import Run, machine_of
from ._compare import Comparison, Row
from ._verdict import BETTER, DIFFERENT, MISSING, NEW, SAME, WORSE, Settings, Verdict, relative_change

TEST = "history"


def compare_history(current: Results, runs: list[Run], settings: Settings) -> Comparison:
    """This run's figures against the earlier `runs` of its machine (time order)."""
    out = Comparison(settings)
    mine = figures_of(current)
    keys = list(mine) + [k for run in runs for k in run.figures if k not in mine]
    for key in dict.fromkeys(keys):
        earlier = [v for run in runs if (v := value_of(run.figures.get(key))) is not None]
        headline = mine.get(key) or next(run.figures[key] for run in runs if key in run.figures)
        reference = Headline(key.label, statistics.median(earlier), key.unit, headline.better) if earlier else None
        verdict = judge_against_runs(mine.get(key), earlier, headline.better, settings)
        out.rows.append(Row(key.benchmark, key.node, key.label, key.unit, headline.better, reference,
                            mine.get(key), verdict))
    return out


def judge_against_runs(current: Headline | None, earlier: list[float], better: str | None,
                       settings: Settings) -> Verdict:
    """The verdict on one figure: out of line with the earlier runs on the
    worse side (worse), on the better side (better), or neither (same)."""
    value = value_of(current)
    if value is None:
        return Verdict(MISSING, None, "-", "the earlier runs have this figure and this run does not") if earlier \
            else Verdict(NEW, None, "-", "neither side has a value")
    if not earlier:
        return Verdict(NEW, None, "-", "no earlier run of this machine has this figure")
    median, spread = centre_and_spread(earlier)
    change = relative_change(Headline("", median, ""), current)
    if len(earlier) + 1 < MIN_POPULATION:
        return Verdict(SAME, change, TEST, f"{len(earlier)} earlier run(s): too few to judge by (at least "
                                           f"{MIN_POPULATION - 1})")
    floor = max(settings.min_change, current.tolerance or 0.0) if current is not None else settings.min_change
    population: dict[object, float] = dict(enumerate(earlier)) | {"this run": value}
    for side in ("lower", "higher"):
        found = [d for d in out_of_line(population, side, floor=floor) if d.key == "this run"]
        if found:
            word = DIFFERENT if better not in ("higher", "lower") else (WORSE if side != better else BETTER)
            why = f"out of line with {len(earlier)} earlier runs: {found[0].evidence()}"
            return Verdict(word, change, TEST, why, tolerance=floor)
    far = "" if math.isnan(spread) else f", spread {spread:.3g}"
    return Verdict(SAME, change, TEST, f"within {len(earlier)} earlier runs (median {median:.3g}{far})",
                   tolerance=floor)


def history_runs(current: Results, runs: list[Run]) -> tuple[list[Run], str | None]:
    """The runs of the history on the machine of `current` (the same CPU model and hosts), and, when
    there are none, why in words."""
    machine = machine_of(current)
    mine = [run for run in runs if run.machine == machine]
    if mine:
        return mine, None
    others = sorted({run.machine.text() for run in runs})
    return [], f"the history holds no run of this machine ({machine.text()}); its runs are of: {'; '.join(others)}"

