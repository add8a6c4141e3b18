"""CoMet's overlap of communication with computation (3.3.7), on a pair of
ranks of any communicator.

Each cell of the grid (a DAXPY length, a message size) is one kernel call
that runs the four modes interleaved, one iteration of each in turn
(blocking, non-blocking, exchange alone, DAXPY alone; csrc/kernels/overlap.c):
the four see the same machine, so a neighbour's burst cannot slow one mode's
whole run and none of the others. Batches run until every mode's median is
precise (relative standard error below `rse`) or the cell's time cap is
spent. The pair runs on a sub-communicator of its own; the other ranks sleep.

Results that cannot be right (_sanity.py) are flagged; every flagged cell is
measured once more and the second measurement is kept, with its flags if it
still has any; the first one stays in the raw samples.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .. import _core
from .._adaptive import DEFAULT_RSE, relative_standard_error
from .._collective import collectively
from .._subset import on_ranks
from .._timer import ticks_per_second
from ._kernels import _pair
from ._layers import gather_placement
from ._records import OverlapFlag
from ._sanity import crowding, flagged_cells, overlap_flags
from ._sweep import CAP_S, check_sizes

if TYPE_CHECKING:
    from mpi4py import MPI

#: The four timed modes, in the order the interleaved kernel returns them.
OVERLAP_MODES = {"blocking": _core.OVERLAP_BLOCKING, "nonblocking": _core.OVERLAP_NONBLOCKING,
                 "comm_only": _core.OVERLAP_COMM_ONLY, "compute_only": _core.OVERLAP_COMPUTE_ONLY}
#: An overlap percentage is reported where the part that can be hidden is
#: at least this share of the blocking time.
MEASURABLE_SHARE = 0.1
#: Seconds one cell (all four modes) may take, by default: a size's cap.
DEFAULT_CELL_CAP_S = CAP_S
#: Interleaved iterations per cell: at least (for a median), at most.
MIN_ITERATIONS, MAX_ITERATIONS = 12, 4000
DEFAULT_LENGTHS = 2 ** np.array([10, 13, 16, 19])
DEFAULT_SIZES = 2 ** np.array([10, 14, 18, 22])


@dataclass
class OverlapGrid:
    """The overlap grid: per mode, median seconds over (vector lengths,
    message sizes), the relative standard error of each median, the raw
    samples, the flags left after repeating flagged cells, and the first
    measurement of every repeated cell."""
    vector_lengths: np.ndarray
    sizes: np.ndarray
    times: dict = field(default_factory=dict)    #: mode -> array (lengths, sizes) of median seconds
    rse: dict = field(default_factory=dict)      #: mode -> array (lengths, sizes), relative standard errors
    samples: dict = field(default_factory=dict)  #: mode -> nested lists [length][size] of seconds
    flags: list = field(default_factory=list)    #: OverlapFlag, after the repeat
    repeated: list = field(default_factory=list)  #: dicts: the cell, its first samples and flags

    @property
    def saved(self) -> np.ndarray:
        """Seconds saved by the non-blocking version."""
        return self.times["blocking"] - self.times["nonblocking"]

    @property
    def overlap_percent(self) -> np.ndarray:
        """Time saved as a share of the most that could be hidden (the shorter
        of communication alone and computation alone). NaN where that shorter
        part is under MEASURABLE_SHARE of the blocking time: there the saving
        is within the noise of the longer part, and a percentage would mean
        nothing."""
        return overlap_percent(self.times)


def overlap_percent(times: dict) -> np.ndarray:
    """See OverlapGrid.overlap_percent; `times` maps mode -> median seconds."""
    hideable = np.minimum(times["comm_only"], times["compute_only"])
    with np.errstate(divide="ignore", invalid="ignore"):
        percent = 100.0 * (times["blocking"] - times["nonblocking"]) / hideable
    return np.where(hideable >= MEASURABLE_SHARE * times["blocking"], percent, np.nan)


def _cell(sub: MPI.Intracomm, size: int, n: int, rse: float, cap_s: float) -> np.ndarray | None:
    """One cell on the pair's communicator (sub-rank 0 decides): seconds,
    shape (4 modes, iterations), on sub-rank 0; None on the other."""
    from mpi4py import MPI

    decider = sub.Get_rank() == 0
    partner = 1 - sub.Get_rank()
    rate = ticks_per_second()

    def call(warmup: int, iterations: int) -> np.ndarray:
        return _core.overlap_times(sub, partner, size, n, _core.OVERLAP_INTERLEAVED, warmup, iterations)

    probe = collectively(sub, call, 1, 2) / rate
    per_iteration = sub.allreduce(float(np.nansum(np.nanmedian(probe, axis=1))), op=MPI.MAX)
    target = int(min(max(cap_s / max(per_iteration, 1e-9), MIN_ITERATIONS), MAX_ITERATIONS))
    batch = max(MIN_ITERATIONS, target // 4)
    warmup = max(2, target // 20)
    chunks: list = []
    started = time.monotonic()
    while True:
        chunks.append(collectively(sub, call, warmup if not chunks else 0, batch) / rate)
        seconds = np.concatenate(chunks, axis=1)
        go_on = None
        if decider:
            worst = max(relative_standard_error(row) for row in seconds)
            go_on = bool(worst > rse and time.monotonic() - started < cap_s and seconds.shape[1] + batch <= target)
        if not sub.bcast(go_on, root=0):
            return seconds if decider else None


def _measure(sub: MPI.Intracomm, cells: list, rse: float, cap_s: float) -> dict:
    """The cells (length, size) in order: {cell: seconds (4, iterations)} on sub-rank 0."""
    return {(n, size): _cell(sub, int(size), int(n), rse, cap_s) for n, size in cells}


def _fill(grid: OverlapGrid, measured: dict) -> None:
    """Medians, errors and samples of the measured cells into the grid."""
    index_n = {int(n): i for i, n in enumerate(grid.vector_lengths)}
    index_s = {int(s): j for j, s in enumerate(grid.sizes)}
    for (n, size), seconds in measured.items():
        i, j = index_n[int(n)], index_s[int(size)]
        for row, mode in enumerate(OVERLAP_MODES):
            grid.times[mode][i, j] = float(np.median(seconds[row]))
            grid.rse[mode][i, j] = relative_standard_error(seconds[row])
            grid.samples[mode][i][j] = seconds[row]


def overlap(comm: MPI.Intracomm, vector_lengths: npt.ArrayLike | None = None, sizes: npt.ArrayLike | None = None,
            peer: int = 1, test_rank: int = 0, rse: float = DEFAULT_RSE, cap_s: float = DEFAULT_CELL_CAP_S,
            repeat: bool = True) -> OverlapGrid:
    """CoMet's overlap kernel on test_rank and peer: pairwise exchange then
    DAXPY (blocking) against Irecv/Isend, DAXPY, Waitall, with exchange alone
    and DAXPY alone, over vector lengths (doubles) x message sizes (bytes).
    cap_s: seconds per cell (all four modes). Cells whose results cannot be
    right are flagged (OverlapGrid.flags, with the likely cause) and, if
    `repeat`, measured once more before they are kept. Collective; every
    rank gets the same grid."""
    _pair(comm, test_rank, peer)
    lengths = check_sizes(DEFAULT_LENGTHS if vector_lengths is None else vector_lengths, "vector lengths",
                          limit=1 << 28)
    sizes = check_sizes(DEFAULT_SIZES if sizes is None else sizes)
    if not (isinstance(cap_s, (int, float)) and math.isfinite(cap_s) and 0 < cap_s <= 60):
        raise ValueError(f"cap_s must be a number of seconds in (0, 60], got {cap_s!r}")
    placement = gather_placement(comm)
    crowded = crowding(placement, [test_rank, peer])

    def measure_grid(sub: MPI.Intracomm) -> OverlapGrid | None:
        cells = [(int(n), int(s)) for n in lengths for s in sizes]
        first = _measure(sub, cells, rse, cap_s)
        # The test rank (sub-rank 0) judges the grid and says which cells to
        # measure again; None tells the peer the judging failed (both stop).
        grid, flags, again = None, [], None
        if sub.Get_rank() == 0:
            try:
                grid = _grid(lengths, sizes, first)
                flags = _flags(grid, crowded)
                again = flagged_cells(flags) if repeat else []
            finally:
                sub.bcast(again, root=0)
        else:
            again = sub.bcast(None, root=0)
            if again is None:
                raise RuntimeError("the test rank failed while checking the overlap grid")
        second = _measure(sub, again, rse, cap_s)
        if grid is None:
            return None
        for cell in again:
            grid.repeated.append({"vector_length": cell[0], "size": cell[1],
                                  "samples": {m: first[cell][row] for row, m in enumerate(OVERLAP_MODES)},
                                  "flags": [f for f in flags if (f.vector_length, f.size) == cell]})
        _fill(grid, second)
        grid.flags = _flags(grid, crowded)
        for flag in grid.flags:
            flag.repeated = (flag.vector_length, flag.size) in second
        return grid

    return on_ranks(comm, [test_rank, peer], measure_grid, root=test_rank)


def _grid(lengths: np.ndarray, sizes: np.ndarray, measured: dict) -> OverlapGrid:
    """A grid of the measured cells (NaN where a cell was not measured)."""
    grid = OverlapGrid(lengths, sizes)
    for mode in OVERLAP_MODES:
        grid.times[mode] = np.full((lengths.size, sizes.size), np.nan)
        grid.rse[mode] = np.full((lengths.size, sizes.size), np.nan)
        grid.samples[mode] = [[None] * sizes.size for _ in lengths]
    _fill(grid, measured)
    return grid


def _flags(grid: OverlapGrid, crowded: str | None) -> list[OverlapFlag]:
    return overlap_flags(grid.vector_lengths.tolist(), grid.sizes.tolist(), grid.times, grid.rse,
                         grid.overlap_percent, crowded)
