"""The multibsp record as rows of the tidy export (hpcbench._tidy;
docs/results-format.md, "Tidy export")."""
from __future__ import annotations

from .._tidy import Row, RowBuilder
from ._records import MultiBSPRecord


def multibsp_rows(record: MultiBSPRecord) -> list[Row]:
    """Per level of the tree (parameter "level"): g and L (the mean over its
    components) and p and m where the level is homogeneous; the DAXPY,
    peak (r, absent in files before it) and inner-product rates; per component ("... pus A-B" names its first and
    last PU) the superstep cost per h (parameter "h"); per vector length of
    the inner product (parameter "n_doubles") the measured and predicted
    times and their ratio (also with r per memory level); the slowest
    thread's leaf-loop rate per memory level and an empty run's start-up."""
    out = RowBuilder(record)
    d = record.derived
    for lv in d.levels:
        out.add("g", lv.g, "flops/word", "fit", "level", lv.level)
        out.add("L", lv.L, "flops", "fit", "level", lv.level)
        if isinstance(lv.p, int):
            out.add("p", lv.p, "count", "derived", "level", lv.level)
        if isinstance(lv.m, int):
            out.add("m", lv.m, "bytes", "derived", "level", lv.level)
        for c in lv.components:
            name = f"superstep_cost level {lv.level} pus {c.pus[0]}-{c.pus[-1]}" if c.pus else \
                f"superstep_cost level {lv.level}"
            out.curve(name, "h", range(len(c.flops)), c.flops, "flops", "median")
    out.add("daxpy_rate", d.rate, "flop/s", "derived")
    out.add("peak_rate", d.peak_rate, "flop/s", "max")
    out.add("inner_product_kernel_rate", d.inner_product_kernel_rate, "flop/s", "derived")
    points = [v.n for v in d.inner_product]
    out.curve("inner_product_measured", "n_doubles", points, [v.measured_s for v in d.inner_product], "s", "median")
    out.curve("inner_product_predicted", "n_doubles", points, [v.predicted_s for v in d.inner_product], "s", "fit")
    out.curve("inner_product_measured_over_predicted", "n_doubles", points,
              [v.measured_over_predicted for v in d.inner_product], "ratio", "derived")
    by_level = [v for v in d.inner_product if v.measured_over_predicted_level_rate is not None]
    if by_level:
        out.curve("inner_product_measured_over_predicted_level_rate", "n_doubles", [v.n for v in by_level],
                  [v.measured_over_predicted_level_rate for v in by_level], "ratio", "derived")
    for x in d.leaf_rates or []:
        out.add(f"inner_product_leaf_rate {x.level}", min(x.rate), "flop/s", "best")
    if d.startup_s is not None:
        out.add("inner_product_startup", d.startup_s, "s", "median")
    return out.rows
