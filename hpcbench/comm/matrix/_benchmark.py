"""The `matrix` benchmark of the suite: every rank of COMM_WORLD holds a
block of the matrix; each kernel runs over each dimension, verified."""
from __future__ import annotations

import dataclasses
import math

from ... import _estimate
from ..._errors import OptionError, Skipped
from ..._format import format_size
from ..._memory import safe_memory_limit
from ..._protocol import Benchmark, Context, Job
from ...topology import Topology
from .._records import MeshRecord
from ._kernels import STATISTIC
from ._layout import check_dimension, default_dims, local_bytes, matrix_mesh, mesh_shapes
from ._measure import kernel_result, kernel_samples, measure_matrix
from ._options import MatrixOptions
from ._plot import matrix_figure
from ._records import MatrixDerived, MatrixParameters, MatrixRaw, MatrixRecord
from ._report import matrix_disagreements, matrix_headlines, matrix_meaning
from ._summary import matrix_summary
from ._tidy import matrix_rows

UNITS = {"samples": "ns (rounded to 0.1 ns)", "rank_median": "ns", "median": "s", "minimum": "s", "p90": "s",
         "t0": "s", "coefficient": "s per n^exponent", "dims": "elements per side"}
SETUP = ("A(i, j) = i n + j + 1 at global row i, column j; guard wrapper -1 where no kernel fills it (corners "
         "always), the neighbouring blocks' edges for shift and transpose")
VERIFICATION = ("after every timed loop every rank compares every element of its local matrix, wrapper included, "
                "with the global formula of the kernel applied that many times; one wrong element fails the benchmark")
BROADCAST = "the middle row (column) of the last block row (column); its owners send their parts along the mesh"


class MatrixBenchmark(Benchmark[MatrixOptions, MatrixRecord]):
    """CoMet's matrix kernels (guard, shift, transpose, row/column broadcast) against the dimension

    Every rank holds a block of an n x n matrix of doubles laid over a
    Gray-code mesh; update_guard, shift north and east, transpose and the
    row and column broadcasts run over a sweep of n, each verified element
    by element (docs/comm.md)."""

    name = "matrix"
    scope = "world"
    group = "matrix benchmark (every rank takes part; needs mpiexec -n 4 or more, a rows x cols mesh)"
    options_type = MatrixOptions
    record_type = MatrixRecord
    min_ranks = 4
    needs_ranks = 4

    def in_default_suite(self, job: Job) -> bool:
        """Only where the ranks make a mesh of at least 2 x 2 (not a prime count)."""
        return super().in_default_suite(job) and bool(mesh_shapes(job.ranks))

    def resolve(self, options: MatrixOptions, topology: Topology, job: Job) -> MatrixOptions:
        mesh = matrix_mesh(job.ranks, options.mesh)
        dims = options.dims or tuple(default_dims(mesh))
        for n in dims:
            check_dimension(n, mesh, names={"n": "dims"})
        per_node = math.ceil(job.ranks / max(job.nodes, 1))
        need = local_bytes(max(dims), mesh) * per_node
        if need > safe_memory_limit():
            raise OptionError("dims", f"must let {per_node} rank(s) of a node hold their blocks of the largest "
                                      f"dimension ({format_size(need)}) in the {format_size(safe_memory_limit())} "
                                      f"that may be used now, got {max(dims)}")
        return dataclasses.replace(options, dims=tuple(dims), mesh=(mesh.rows, mesh.cols))

    def estimate(self, options: MatrixOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.fixed_seconds(self.name)

    def run(self, ctx: Context[MatrixOptions]) -> MatrixRecord:
        comm, o = ctx.comm, ctx.options
        size = comm.Get_size()
        try:
            mesh = matrix_mesh(size, o.mesh)
        except OptionError as e:
            raise Skipped(f"the matrix kernels need a mesh of at least 2 x 2 ranks: {e.rule}") from None
        dims = list(o.dims or default_dims(mesh))
        runs = measure_matrix(comm, dims, o.kernels, mesh, o.rse, o.cap_s, o.passes, ctx.progress)
        notes = []
        per_node = math.ceil(size / max(ctx.job.nodes, 1))
        pus = len(ctx.topology.pu_indexes)
        if per_node > pus:
            notes.append(f"{per_node} ranks per node on {pus} PUs: the ranks time-share the cores, and the times "
                         "include it")
        results = [kernel_result(k, r) for k, r in runs.items()]
        notes += [w for k in results if (w := k.outliers.warning(f"matrix {k.kernel}"))]
        return MatrixRecord(
            name=self.name,
            parameters=MatrixParameters(ranks=size, rows=mesh.rows, cols=mesh.cols, layout=mesh.layout,
                                        dims=sorted(dims), kernels=list(o.kernels), rse_target=o.rse,
                                        cap_s=o.cap_s, passes=o.passes, statistic=STATISTIC, broadcast=BROADCAST,
                                        setup=SETUP, verification=VERIFICATION),
            raw=MatrixRaw(kernels=[kernel_samples(k, r) for k, r in runs.items()]),
            derived=MatrixDerived(mesh=MeshRecord(rows=mesh.rows, cols=mesh.cols, layout=mesh.layout,
                                                  neighbours=[mesh.neighbours(r) for r in range(size)]),
                                  kernels=results),
            units=UNITS, warnings=notes)

    def summary(self, record: MatrixRecord) -> list:
        return matrix_summary(record)

    def plot(self, record: MatrixRecord):
        return matrix_figure(record)

    def meaning(self, record: MatrixRecord) -> list:
        return matrix_meaning(record)

    def disagreements(self, record: MatrixRecord) -> list:
        return matrix_disagreements(record)

    def headlines(self, record: MatrixRecord) -> list:
        return matrix_headlines(record)

    def tidy(self, record: MatrixRecord) -> list:
        return matrix_rows(record)


BENCHMARK: Benchmark = MatrixBenchmark()
