"""What every domain's figures share: matplotlib without pyplot, and a
labelled heat map. Figures are made with matplotlib.figure.Figure (no
pyplot state, no GUI backend) so that the report can draw them anywhere;
notebooks pass their own axes instead."""
from __future__ import annotations

from typing import Any

import numpy as np

#: What a figure says when matplotlib is absent: it is the `plot` extra, not a core dependency.
MATPLOTLIB_MISSING = "figures need matplotlib, which is not installed here: pip install 'hpcbench[plot]'"


def new_figure(rows: int = 1, cols: int = 1, size: tuple = (9.0, 4.5), height_ratios: list | None = None) -> tuple:
    """(figure, axes array of shape (rows, cols)); size in inches, rows of
    equal height unless `height_ratios` says otherwise."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError(MATPLOTLIB_MISSING) from None
    fig = Figure(figsize=size, layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False, height_ratios=height_ratios)
    return fig, axes


#: An axis labels at most this many categories (heat map rows, pairs); more would overlap and slow the layout.
MAX_TICKS = 32


def thinned_ticks(n: int, labels=None) -> tuple:
    """(positions, labels) for n categories: every one up to MAX_TICKS, else every k-th."""
    step = max(1, -(-n // MAX_TICKS))
    positions = list(range(0, n, step))
    names = list(labels) if labels is not None else list(range(n))
    return positions, [names[i] for i in positions]


def heatmap(ax: Any, matrix, title: str, xlabels=None, ylabels=None, cmap: str = "viridis",
            colorbar: str = "", **imshow: Any) -> Any:
    """A matrix as an image with tick labels (every k-th beyond MAX_TICKS rows), a title and a colour bar."""
    values = np.asarray(matrix, dtype=float)
    image = ax.imshow(values, cmap=cmap, **imshow)
    ax.set_xticks(*thinned_ticks(values.shape[1], xlabels), fontsize=8)
    ax.set_yticks(*thinned_ticks(values.shape[0], ylabels), fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.figure.colorbar(image, ax=ax, shrink=0.8, label=colorbar)
    return image


def as_float(values) -> np.ndarray:
    """Numbers from a results file (None where a value was not finite) as a float array with NaN."""
    return np.array([[np.nan if v is None else v for v in row] if isinstance(row, list) else
                     (np.nan if row is None else row) for row in values], dtype=float)
