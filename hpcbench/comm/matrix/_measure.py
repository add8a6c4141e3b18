"""The benchmark's sweep: every kernel over every dimension, and the record
parts made from it (raw samples, medians and growth)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING

import numpy as np

from ..._adaptive import DEFAULT_RSE
from ..._outliers import find_outliers
from .._mesh import Mesh
from .._sweep import ns_samples
from ._analysis import THESIS_EXPONENT, fit_growth
from ._kernels import MatrixTimes, col_broadcast, row_broadcast, shift_matrix, transpose, update_guard
from ._layout import KERNELS
from ._options import DEFAULT_CAP_S, DEFAULT_PASSES
from ._records import GrowthRecord, KernelResult, KernelSamples

if TYPE_CHECKING:
    from mpi4py import MPI

_MEASURE = {"update_guard": lambda comm, n, **kw: update_guard(comm, n, **kw),
            "shift_north": lambda comm, n, **kw: shift_matrix(comm, n, "north", **kw),
            "shift_east": lambda comm, n, **kw: shift_matrix(comm, n, "east", **kw),
            "transpose": lambda comm, n, **kw: transpose(comm, n, **kw),
            "row_broadcast": lambda comm, n, **kw: row_broadcast(comm, n, **kw),
            "col_broadcast": lambda comm, n, **kw: col_broadcast(comm, n, **kw)}


def _silent(message: str) -> None:
    """Progress sink when nobody listens."""


def measure_matrix(comm: MPI.Intracomm, dims: list, kernels: tuple = tuple(KERNELS), mesh: Mesh | None = None,
                   rse: float = DEFAULT_RSE, cap_s: float = DEFAULT_CAP_S, passes: int = DEFAULT_PASSES,
                   progress: Callable[[str], None] = _silent) -> dict:
    """kernel -> [MatrixTimes per dimension, ascending], on every rank of
    comm. `passes` passes over every dimension (up, then down, ...) and,
    at each, every kernel, each taking cap_s / passes; the samples of all
    passes are pooled. On a machine whose load comes and goes, a burst then
    costs one pass at a few dimensions, not a whole dimension's samples."""
    sweep = sorted(int(n) for n in dims)
    out: dict = {kernel: [None] * len(sweep) for kernel in kernels}
    for p in range(passes):
        for i in (range(len(sweep)) if p % 2 == 0 else range(len(sweep) - 1, -1, -1)):
            for kernel in kernels:
                t = _MEASURE[kernel](comm, sweep[i], mesh=mesh, rse=rse, cap_s=cap_s / passes)
                out[kernel][i] = t if out[kernel][i] is None else out[kernel][i].merged(t)
        progress(f"matrix: pass {p + 1} of {passes} over {len(kernels)} kernels and {len(sweep)} dimensions")
    return out


def kernel_samples(kernel: str, runs: list[MatrixTimes]) -> KernelSamples:
    """The raw part of one kernel's record (ns, rounded to 0.1 ns)."""
    broadcast = kernel.endswith("broadcast")
    return KernelSamples(kernel=kernel, dims=[r.n for r in runs], samples=ns_samples([r.samples for r in runs]),
                         rank_median=ns_samples([np.median(r.per_rank, axis=1) for r in runs]),
                         warmup=[r.warmup for r in runs], rse=[r.rse for r in runs],
                         index=[int(r.index or 0) for r in runs] if broadcast else None)


def kernel_result(kernel: str, runs: list[MatrixTimes]) -> KernelResult:
    """Medians, minima, 90th percentiles and growth of one kernel."""
    dims = [r.n for r in runs]
    median = [r.median for r in runs]
    growth = fit_growth(dims, median, THESIS_EXPONENT[kernel])
    return KernelResult(kernel=kernel, dims=dims, median=median, minimum=[r.minimum for r in runs],
                        p90=[r.percentile(90) for r in runs], growth=GrowthRecord(**asdict(growth)),
                        outliers=find_outliers(r.samples for r in runs))
