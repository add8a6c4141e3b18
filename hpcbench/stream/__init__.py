"""STREAM's four kernels (Copy, Scale, Add, Triad) per core count: one
core, one of each domain cores share, all cores of the node (docs/stream.md).

stream_run runs the C kernel (hpcbench._core.stream_team); plan_teams says
which teams run; stream_bytes and write_allocate_bytes count bytes as STREAM
does and beside it; team_rates is pure and tested on synthetic data.
BENCHMARK is the suite's `stream`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._analysis import team_rates
    from ._benchmark import BENCHMARK
    from ._counting import stream_bytes, write_allocate_bytes
    from ._measure import choose_isa, stream_run
    from ._plan import plan_teams
    from ._plot import stream_figure
    from ._records import StreamRecord

__all__ = ["BENCHMARK", "StreamRecord", "choose_isa", "plan_teams", "stream_bytes", "stream_figure", "stream_run",
           "team_rates", "write_allocate_bytes"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._analysis": ("team_rates",),
    "._benchmark": ("BENCHMARK",),
    "._counting": ("stream_bytes", "write_allocate_bytes"),
    "._measure": ("choose_isa", "stream_run"),
    "._plan": ("plan_teams",),
    "._plot": ("stream_figure",),
    "._records": ("StreamRecord",),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
