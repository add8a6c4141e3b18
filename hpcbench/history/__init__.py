"""A machine's history: every run appended to a folder, and each headline
figure's trend over the runs with the runs where it moved (docs/history.md).

    path = append_run(results.text(), "history/")       # what `run --history DIR` does
    for trend in trends(read_history("history/")):       # what `hpcbench history DIR` shows
        print(trend.key.text(), [m.run + 1 for m in trend.moves])

The folder's listing is the history (no index to keep in step); a move is
judged by hpcbench's one robust rule (hpcbench._robust), run by run against
the level before it. Reads results files, never measures.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._append import append_run
    from ._errors import HistoryError
    from ._moves import Move, find_moves
    from ._read import History, read_history
    from ._trend import Trend, trends

__all__ = ["History", "HistoryError", "Move", "Trend", "append_run", "find_moves", "read_history", "trends"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._append": ("append_run",),
    "._errors": ("HistoryError",),
    "._moves": ("Move", "find_moves"),
    "._read": ("History", "read_history"),
    "._trend": ("Trend", "trends"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
