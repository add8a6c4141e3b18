"""A benchmark's figure as an image inside the page.

Figures are the benchmark's own `plot(record)` (a matplotlib Figure, made
without pyplot), saved as SVG and embedded as a data: URI in an <img>. SVG
because it stays sharp when zoomed or printed and measured no larger than
a 100 dpi PNG (benchmarks/bench_report.py); an <img> rather than inline
<svg> because each figure then keeps its own ids and styles (matplotlib's
glyph and clip-path ids would collide between figures of one page), and a
reader can save or open one figure alone."""
from __future__ import annotations

import base64
import io
from typing import Any

from ._html import esc

#: CSS pixels per inch (what a browser shows a figure's size in).
_PX_PER_INCH = 96


def matplotlib_missing() -> str | None:
    """Why figures cannot be drawn here, or None when matplotlib is present."""
    try:
        import matplotlib.figure  # noqa: F401
    except ImportError:
        # The same words as hpcbench._plot.MATPLOTLIB_MISSING (not imported: that module imports NumPy).
        return "figures need matplotlib, which is not installed here: pip install 'hpcbench[plot]'"
    return None


def figure_html(figure: Any, alt: str) -> str:
    """<figure> with the matplotlib Figure as an embedded SVG, at its own size."""
    buffer = io.BytesIO()
    # No date in the metadata: the same record gives the same bytes.
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    width, height = (round(v * _PX_PER_INCH) for v in figure.get_size_inches())
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (f'<figure><img src="data:image/svg+xml;base64,{data}" alt="{esc(alt)}" width="{width}" '
            f'height="{height}"></figure>')
