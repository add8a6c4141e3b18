"""Figures of a study: the share of each rank's time spent communicating
and waiting in a simulated run, laid out on the process array with rank 0
at the bottom left (Hammond et al. 2009, Figure 3: darker is more time);
the procurement answers as the paper draws them: time per iteration
against processes (a sweep; Figure 5's axes), parallel efficiency against
processes with the level crossed (Figure 4), the two networks' times with
the matching counts (Figure 5); and the allocation strategies compared
(Figure 9)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ._errors import PredictError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ._procure import EfficiencyAnswer, MatchAnswer
    from ._simulate import Simulation
    from ._sweep import SweepRow


def _grid(values: np.ndarray, m: int, n: int) -> np.ndarray:
    """Per-rank values as an (m, n) image, row 0 (ranks 0..n-1) at the
    bottom once drawn with origin="lower"."""
    return np.asarray(values, dtype=float).reshape(m, n)


#: The figures breakdown_figures draws, by name (files wavefront-NAME.png).
BREAKDOWN_NAMES = ("communication", "idle")
#: Every figure a study can have, by name (files wavefront-NAME.png).
FIGURE_NAMES = BREAKDOWN_NAMES + ("sweep", "efficiency", "match")


def breakdown_figures(simulation: Simulation, m: int, n: int) -> dict[str, Figure]:
    """{"communication": Figure, "idle": Figure}: per rank, (send + recv)
    and idle as a share of its run time, on the m x n array."""
    from matplotlib.figure import Figure

    if simulation.nranks != m * n:
        raise PredictError(f"the simulation has {simulation.nranks} ranks, the {m}x{n} array {m * n}")
    shares = simulation.fractions()
    panels = dict(zip(BREAKDOWN_NAMES, (shares["send"] + shares["recv"], shares["idle"])))
    out = {}
    for name, values in panels.items():
        fig = Figure(figsize=(4.8, 4.0), layout="constrained")
        ax = fig.add_subplot()
        image = ax.imshow(_grid(values, m, n), origin="lower", cmap="Greys", vmin=0.0,
                          vmax=max(float(np.max(values)), 1e-12), aspect="auto", interpolation="nearest")
        ax.set_xlabel("process column (x)")
        ax.set_ylabel("process row (y)")
        ax.set_title(f"{name} share of each rank's time\n(rank 0 bottom left, darker is more)")
        fig.colorbar(image, ax=ax, label="share of run time")
        out[name] = fig
    return out


def allocation_figure(counts: Sequence[int], improvement: Mapping[str, Sequence[float]]) -> Figure:
    """Figure 9's shape: per strategy, the relative improvement over round
    robin (a fraction) against the core count."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.6, 3.6), layout="constrained")
    ax = fig.add_subplot()
    for name, values in improvement.items():
        ax.plot(counts, np.asarray(values) * 100, marker="o", label=name)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("cores")
    ax.set_ylabel("improvement over round robin (%)")
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.legend()
    return fig


def _cores_axes(title: str, ylabel: str) -> tuple[Figure, Axes]:
    """A figure with processes on a log2 x axis, as section 6's figures."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.6, 3.8), layout="constrained")
    ax = fig.add_subplot()
    ax.set_xscale("log", base=2)
    ax.set_xlabel("processes (cores)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return fig, ax


def sweep_figure(rows: Sequence[SweepRow]) -> Figure:
    """Time per iteration against processes; rows on a grown machine hollow."""
    fig, ax = _cores_axes("time per iteration by process count", "seconds per iteration")
    counts = [r.count for r in rows]
    ax.plot(counts, [r.seconds for r in rows], color="C0", marker="o", label="predicted")
    grown = [r for r in rows if r.grown]
    if grown:
        ax.plot([r.count for r in grown], [r.seconds for r in grown], ls="none", marker="o", mfc="white",
                color="C0", label="on the machine grown in nodes")
    ax.set_yscale("log")
    ax.legend()
    return fig


def efficiency_figure(answer: EfficiencyAnswer) -> Figure:
    """Figure 4: parallel efficiency against processes, the level and
    where it is crossed."""
    fig, ax = _cores_axes(f"parallel efficiency (crossing {answer.level:.0%})", "parallel efficiency (%)")
    counts, eff = zip(*answer.tried)
    ax.plot(counts, np.asarray(eff) * 100, color="C0", marker=".")
    ax.axhline(answer.level * 100, color="0.5", lw=0.8, ls="--")
    if answer.crossing is not None:
        ax.axvline(answer.crossing, color="C3", lw=0.8)
        ax.annotate(f"{answer.crossing}", (answer.crossing, answer.level * 100), textcoords="offset points",
                    xytext=(4, 6), color="C3")
    ax.set_ylim(0, 105)
    return fig


def match_figure(answer: MatchAnswer, first: str) -> Figure:
    """Figure 5: time per iteration on both networks, each count of the
    first joined to the count of the second that matches it."""
    fig, ax = _cores_axes("processes for the same time on two networks", "seconds per iteration")
    counts, seconds = zip(*answer.curve)
    ax.plot(counts, seconds, color="C1", marker=".", label=answer.second)
    if answer.first_curve:
        ax.plot(*zip(*answer.first_curve), color="C0", marker=".", label=first)
    ax.plot([r.count for r in answer.rows], [r.seconds for r in answer.rows], color="C0", ls="none", marker="o",
            label=None if answer.first_curve else first)
    for r in answer.rows:
        if r.matched is not None:
            ax.annotate("", (r.matched, r.seconds), (r.count, r.seconds),
                        arrowprops={"arrowstyle": "->", "color": "0.4"})
    ax.set_yscale("log")
    ax.legend(fontsize="small")
    return fig
