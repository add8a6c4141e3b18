"""The OSU and IMB micro-benchmark families (docs/comm.md): point-to-point
(`p2p`: osu_latency's ping-pong, osu_bw, osu_bibw, osu_mbw_mr,
osu_multi_lat), every MPI collective (`collectives`), the non-blocking
collectives with IMB-NBC's overlap (`nbc`) and one-sided put, get and
accumulate with fence or lock (`rma`). Timed loops in C (csrc/kernels/
micro*.c) on page-aligned buffers, every payload verified; OSU's and IMB's
statistics recorded beside hpcbench's, from the same samples."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._benchmark import COLLECTIVES_BENCHMARK, NBC_BENCHMARK, P2P_BENCHMARK, RMA_BENCHMARK
    from ._measure import SamplePlan, measure_series
    from ._plot import plot_series
    from ._records import MicroPoint, MicroRecord, MicroSeries
    from ._sizes import parse_sizes
    from ._stats import overlap_percent
    from ._tests import FAMILIES, TESTS

__all__ = ["COLLECTIVES_BENCHMARK", "FAMILIES", "MicroPoint", "MicroRecord", "MicroSeries", "NBC_BENCHMARK",
           "P2P_BENCHMARK", "RMA_BENCHMARK", "SamplePlan", "TESTS", "measure_series", "overlap_percent",
           "parse_sizes", "plot_series"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._benchmark": ("COLLECTIVES_BENCHMARK", "NBC_BENCHMARK", "P2P_BENCHMARK", "RMA_BENCHMARK"),
    "._measure": ("SamplePlan", "measure_series"),
    "._plot": ("plot_series",),
    "._records": ("MicroPoint", "MicroRecord", "MicroSeries"),
    "._sizes": ("parse_sizes",),
    "._stats": ("overlap_percent",),
    "._tests": ("FAMILIES", "TESTS"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
