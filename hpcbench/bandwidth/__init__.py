"""likwid-bench's kernel catalogue per cache level and memory: load, store,
copy, update, triad and stream triad bandwidth, with non-temporal stores
where the ISA has them, the instruction set chosen at run time.

run_kernel runs the C kernel (hpcbench._core.bandwidth_team); the analysis
is pure and tested on synthetic times. Bytes count as likwid-bench's data
volume (loads + stores), the write-allocate traffic beside it. BENCHMARK is
the suite's `bandwidth`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._benchmark import BENCHMARK
    from ._kernels import KERNELS, data_volume, write_allocate
    from ._measure import aggregate_bandwidth, run_kernel
    from ._plan import level_sizes
    from ._plot import bandwidth_figure
    from ._records import BandwidthRecord

__all__ = ["BENCHMARK", "BandwidthRecord", "KERNELS", "aggregate_bandwidth", "bandwidth_figure", "data_volume",
           "level_sizes", "run_kernel", "write_allocate"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._benchmark": ("BENCHMARK",),
    "._kernels": ("KERNELS", "data_volume", "write_allocate"),
    "._measure": ("aggregate_bandwidth", "run_kernel"),
    "._plan": ("level_sizes",),
    "._plot": ("bandwidth_figure",),
    "._records": ("BandwidthRecord",),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
