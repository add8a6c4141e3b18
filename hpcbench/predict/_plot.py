"""Figures of a simulated run: the share of each rank's time spent
communicating and waiting, laid out on the process array with rank 0 at
the bottom left (Hammond et al. 2009, Figure 3: darker is more time), and
the allocation strategies compared (Figure 9)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ._errors import PredictError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ._simulate import Simulation


def _grid(values: np.ndarray, m: int, n: int) -> np.ndarray:
    """Per-rank values as an (m, n) image, row 0 (ranks 0..n-1) at the
    bottom once drawn with origin="lower"."""
    return np.asarray(values, dtype=float).reshape(m, n)


#: The figures breakdown_figures draws, by name (files wavefront-NAME.png).
BREAKDOWN_NAMES = ("communication", "idle")


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
