"""CoMet's matrix kernels, callable from scripts on any communicator.

Every function is collective: all ranks of `comm` call it with the same
arguments and get the same result back. The global n x n matrix of doubles
is block-decomposed over a mesh of the ranks (matrix_mesh: as square as
possible unless `mesh` is given), each block inside its one-element guard
wrapper, and starts from the fixed setup A(i, j) = i n + j + 1. The timed
loop runs in C with the GIL released (hpcbench._core.matrix_times); after
every call of it each rank verifies every element of its local matrix,
wrapper included, against the global formula, and a wrong element raises
CommError on every rank. Repetitions are adaptive (hpcbench._adaptive).
Times are seconds; n is the matrix dimension (elements per side).

    from mpi4py import MPI
    from hpcbench.comm import matrix
    times = matrix.transpose(MPI.COMM_WORLD, 1024)
    if MPI.COMM_WORLD.rank == 0:
        print(times.median)      # seconds per transpose, the slowest rank's
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ... import _core
from ..._adaptive import DEFAULT_RSE, StopRule, relative_standard_error, run_adaptive
from ..._collective import check_comm, collectively
from ..._errors import OptionError
from .._mesh import Mesh
from ._layout import DIRECTIONS, KERNELS, broadcast_index, check_dimension, matrix_mesh, ranks_of
from ._options import DEFAULT_CAP_S

if TYPE_CHECKING:
    from mpi4py import MPI

#: What a sample is.
STATISTIC = ("per application, the slowest rank's time; an untimed MPI_Barrier precedes each application, and "
             "every element of every local matrix is verified after every timed loop")


@dataclass
class MatrixTimes:
    """One kernel at one dimension: seconds per application."""

    kernel: str                  #: update_guard, shift_north, shift_east, transpose, row_broadcast, col_broadcast
    n: int                       #: matrix dimension
    mesh: Mesh
    index: int | None            #: the row or column a broadcast sends
    samples: np.ndarray          #: seconds, per application the slowest rank's
    per_rank: np.ndarray         #: seconds, (ranks, applications)
    warmup: int                  #: untimed applications before the first batch
    rse: float                   #: relative standard error of the median reached

    @property
    def median(self) -> float:
        return float(np.median(self.samples))

    @property
    def minimum(self) -> float:
        return float(np.min(self.samples))

    def percentile(self, q: float) -> float:
        return float(np.percentile(self.samples, q))

    def merged(self, other: MatrixTimes) -> MatrixTimes:
        """These samples and another run's of the same kernel and dimension,
        pooled (the precision is the pool's)."""
        samples = np.concatenate([self.samples, other.samples])
        return MatrixTimes(self.kernel, self.n, self.mesh, self.index, samples,
                           np.hstack([self.per_rank, other.per_rank]), self.warmup + other.warmup,
                           relative_standard_error(samples))


def _mesh_for(comm, mesh: Mesh | None) -> Mesh:
    check_comm(comm)
    if mesh is None:
        return matrix_mesh(comm.Get_size())
    if not isinstance(mesh, Mesh):
        raise OptionError("mesh", f"must be an hpcbench.comm.Mesh or None, got {mesh!r}")
    return matrix_mesh(comm.Get_size(), (mesh.rows, mesh.cols))


def _arguments(comm, kernel: str, n: int, mesh: Mesh | None, index: int | None) -> dict:
    """matrix_times' keyword arguments, every rule checked first."""
    mesh = _mesh_for(comm, mesh)
    if kernel in ("row_broadcast", "col_broadcast") and index is None:
        check_dimension(n, mesh, kernel, 0)
        index = broadcast_index(int(n), mesh, kernel)
    check_dimension(n, mesh, kernel, index, {"index": "row" if kernel == "row_broadcast" else "col"})
    op, direction = KERNELS[kernel]
    ranks, transposed = ranks_of(mesh)
    return dict(op=op, n=int(n), rows=mesh.rows, cols=mesh.cols, mesh=ranks, transposed=transposed,
                direction=direction, index=index or 0)


def _measure(comm, kernel: str, n: int, mesh: Mesh | None, index: int | None, rse: float,
             cap_s: float) -> MatrixTimes:
    args = _arguments(comm, kernel, n, mesh, index)

    def call(warmup, iterations):
        try:
            return _core.matrix_times(comm, warmup=warmup, iterations=iterations, **args)
        except RuntimeError as e:     # say which kernel and dimension failed its verification
            raise RuntimeError(f"{kernel} at n = {n}: {e}") from None

    seconds, plan, reached = run_adaptive(comm, call, decider=0, combine="max", stop=StopRule(rse=rse, cap_s=cap_s))
    everyone = comm.gather(seconds, root=0)
    result = None
    if comm.Get_rank() == 0:
        table = np.vstack(everyone)
        used = Mesh(args["rows"], args["cols"])
        result = MatrixTimes(kernel, int(n), used, args["index"] if kernel.endswith("broadcast") else None,
                             table.max(axis=0), table, plan.warmup, float(reached))
    return comm.bcast(result, root=0)


def update_guard(comm: MPI.Intracomm, n: int, mesh: Mesh | None = None, rse: float = DEFAULT_RSE,
                 cap_s: float = DEFAULT_CAP_S) -> MatrixTimes:
    """CoMet's update_guard: every process fills its north, south, west and
    east guard from top, bottom, pred and succ (buffers assembled while the
    rows travel, as CoMet's figure 4.3)."""
    return _measure(comm, "update_guard", n, mesh, None, rse, cap_s)


def shift_matrix(comm: MPI.Intracomm, n: int, direction: str = "north", mesh: Mesh | None = None,
                 rse: float = DEFAULT_RSE, cap_s: float = DEFAULT_CAP_S) -> MatrixTimes:
    """CoMet's shift_matrix: the whole local matrix, wrapper included, one
    block "north" (to top) or "east" (to succ)."""
    if direction not in DIRECTIONS:
        raise OptionError("direction", f"must be 'north' or 'east' (CoMet's NORTH and EAST), got {direction!r}")
    return _measure(comm, f"shift_{direction}", n, mesh, None, rse, cap_s)


def transpose(comm: MPI.Intracomm, n: int, mesh: Mesh | None = None, rse: float = DEFAULT_RSE,
              cap_s: float = DEFAULT_CAP_S) -> MatrixTimes:
    """CoMet's transpose: each process exchanges its local matrix with the
    transposed mesh position and transposes it locally."""
    return _measure(comm, "transpose", n, mesh, None, rse, cap_s)


def row_broadcast(comm: MPI.Intracomm, n: int, row: int | None = None, mesh: Mesh | None = None,
                  rse: float = DEFAULT_RSE, cap_s: float = DEFAULT_CAP_S) -> MatrixTimes:
    """CoMet's row_broadcast of global row `row` (default: the middle row of
    the last block row): its owners send their parts down their mesh columns."""
    return _measure(comm, "row_broadcast", n, mesh, row, rse, cap_s)


def col_broadcast(comm: MPI.Intracomm, n: int, col: int | None = None, mesh: Mesh | None = None,
                  rse: float = DEFAULT_RSE, cap_s: float = DEFAULT_CAP_S) -> MatrixTimes:
    """CoMet's col_broadcast of global column `col` (default: the middle
    column of the last block column): its owners assemble their parts into a
    buffer and send them along their mesh rows."""
    return _measure(comm, "col_broadcast", n, mesh, col, rse, cap_s)


def local_matrix(comm: MPI.Intracomm, kernel: str, n: int, applications: int = 1, mesh: Mesh | None = None,
                 index: int | None = None) -> np.ndarray:
    """This rank's local matrix, wrapper included, after `applications`
    applications of `kernel` (a name of KERNELS) to the setup; verified like
    every kernel call. Shape (n/rows + 2, n/cols + 2), or the transposed
    mesh's after an odd number of transposes."""
    if kernel not in KERNELS:
        raise OptionError("kernel", f"must be one of {', '.join(KERNELS)}, got {kernel!r}")
    if isinstance(applications, bool) or not isinstance(applications, (int, np.integer)) or applications < 1:
        raise OptionError("applications", f"must be a whole number of at least 1, got {applications!r}")
    args = _arguments(comm, kernel, n, mesh, index)
    _, block = collectively(comm, _core.matrix_times, comm, warmup=0, iterations=int(applications), block=True, **args)
    return block
