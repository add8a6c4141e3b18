"""A study's files: the prediction as JSON (`-o FILE.json`) and its
figures as PNG images (`--plot DIR`), each checked before
any work and written as every hpcbench writer does (hpcbench/_files.py):
never through a symbolic link, a device or a FIFO, never over a file of
another kind unless forced, written beside the target and renamed over it."""
from __future__ import annotations

import io
import os
from typing import TYPE_CHECKING

from .._errors import OutputError
from .._files import check_target, write_file
from ._plot import FIGURE_NAMES

if TYPE_CHECKING:
    from ._study import Study

__all__ = ["check_outputs", "looks_like_png", "looks_like_prediction", "write_outputs"]

_PREDICTION = b'"format": "hpcbench-prediction"'
_JSON_NOUN, _JSON_KIND = "-o file", "an hpcbench prediction"
_PNG_NOUN, _PNG_KIND = "--plot image", "a PNG image"


def looks_like_prediction(head: bytes) -> bool:
    """True if `head`, the first bytes of a file, start like a prediction
    predict -o wrote: a JSON object whose first member is "format":
    "hpcbench-prediction" (indented or compact)."""
    text = head.lstrip()
    return text.startswith(b"{") and text[1:].lstrip().startswith(_PREDICTION)


def looks_like_png(head: bytes) -> bool:
    """True if `head` starts with PNG's signature."""
    return head.startswith(b"\x89PNG\r\n\x1a\n")


def check_outputs(output: str | None, plot: str | None, force: bool = False) -> None:
    """OutputError (one line) for a JSON file `output` or a folder `plot`
    of heat maps that would never be written: a symbolic link, a device, a
    FIFO, a directory, a missing folder, or without `force` a file that is
    not ours. None: not asked for."""
    if output is not None:
        check_target(output, _JSON_NOUN, looks_like_prediction, force, OutputError, _JSON_KIND)
    if plot is None:
        return
    if not plot.strip():
        raise OutputError("--plot must name a directory")
    if os.path.islink(plot) and not os.path.isdir(plot):
        raise OutputError(f"--plot {plot} is a symbolic link to no directory")
    if os.path.exists(plot) and not os.path.isdir(plot):
        raise OutputError(f"--plot {plot} is not a directory")
    parent = os.path.dirname(os.path.abspath(plot))
    if not os.path.isdir(parent):
        raise OutputError(f"--plot {plot}: no such directory {parent}")
    if os.path.isdir(plot):
        for target in _plot_targets(plot):
            check_target(target, _PNG_NOUN, looks_like_png, force, OutputError, _PNG_KIND)


def write_outputs(study: Study, output: str | None, plot: str | None, force: bool = False) -> list[str]:
    """Write `study` as JSON to `output` and its figures (Study.figures:
    the simulation's heat maps, the sweep's, the efficiency's and the
    match's, those it has) as wavefront-NAME.png into the folder `plot`,
    each as check_outputs allows; the paths written, in order."""
    written = []
    if output is not None:
        write_file(output, study.to_json(), _JSON_NOUN, looks_like_prediction, force, OutputError, _JSON_KIND)
        written.append(output)
    if plot is not None:
        figures = study.figures()
        try:
            os.makedirs(plot, exist_ok=True)
        except OSError as e:
            raise OutputError(f"cannot make the --plot directory {plot}: {e.strerror or e}") from None
        for name, target in zip(FIGURE_NAMES, _plot_targets(plot)):
            if name not in figures:
                continue
            image = io.BytesIO()
            figures[name].savefig(image, dpi=100, format="png")
            write_file(target, image.getvalue(), _PNG_NOUN, looks_like_png, force, OutputError, _PNG_KIND)
            written.append(target)
    return written


def _plot_targets(folder: str) -> list[str]:
    return [os.path.join(folder, f"wavefront-{name}.png") for name in FIGURE_NAMES]
