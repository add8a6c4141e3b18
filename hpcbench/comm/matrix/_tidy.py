"""The matrix record as rows of the tidy export (hpcbench._tidy;
docs/results-format.md, "Tidy export")."""
from __future__ import annotations

from ..._tidy import Row, RowBuilder
from ._records import MatrixRecord


def matrix_rows(record: MatrixRecord) -> list[Row]:
    """Per kernel ("KERNEL_time") one row per matrix dimension (parameter
    "dimension", elements per side) and statistic of the slowest rank's
    time (median, min, p90; seconds), and the growth fit t0 + coefficient
    n^exponent ("KERNEL_exponent", "KERNEL_t0"; statistic "fit")."""
    out = RowBuilder(record)
    for k in record.derived.kernels:
        quantity = f"{k.kernel}_time"
        out.curve(quantity, "dimension", k.dims, k.median, "s", "median")
        out.curve(quantity, "dimension", k.dims, k.minimum, "s", "min")
        out.curve(quantity, "dimension", k.dims, k.p90, "s", "p90")
        out.add(f"{k.kernel}_exponent", k.growth.exponent, "ratio", "fit")
        out.add(f"{k.kernel}_t0", k.growth.t0, "s", "fit")
    return out.rows
