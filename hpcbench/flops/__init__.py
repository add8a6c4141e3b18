"""Peak FLOP/s per core and per node: independent FMA chains on registers
for each instruction set the CPU runs, double and single precision, on one
core and on every core at once (likwid-bench's peakflops kernels;
docs/flops.md).

flops_run and peak_rate run the C kernel (hpcbench._core.flops_team);
run_rate and isas_to_run are pure and tested on synthetic data. peak_rate is
the MultiBSP benchmark's r. BENCHMARK is the suite's `peakflops`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._analysis import run_rate
    from ._benchmark import BENCHMARK
    from ._isa import isas_to_run
    from ._measure import flops_run, peak_rate
    from ._records import FlopsRecord

__all__ = ["BENCHMARK", "FlopsRecord", "flops_run", "isas_to_run", "peak_rate", "run_rate"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._analysis": ("run_rate",),
    "._benchmark": ("BENCHMARK",),
    "._isa": ("isas_to_run",),
    "._measure": ("flops_run", "peak_rate"),
    "._records": ("FlopsRecord",),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
