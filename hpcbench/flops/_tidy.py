"""The peakflops record as rows of the tidy export (hpcbench._tidy;
docs/results-format.md, "Tidy export")."""
from __future__ import annotations

from .._tidy import Row, RowBuilder
from ._records import FlopsRecord


def flops_rows(record: FlopsRecord) -> list[Row]:
    """The headline (peak per core and of the node, flop/s), then per
    instruction set and precision ("flops ISA PRECISION ...") one row per
    team size (parameter "cores"): per-core median, best, spread, and the
    cores together."""
    out = RowBuilder(record)
    d = record.derived
    out.add("peak_per_core", d.peak_per_core, "flop/s", "max")
    out.add("peak_node", d.peak_node, "flop/s", "max")
    for r in d.rates:
        name = f"flops {r.isa} {r.precision}"
        out.add(f"{name} per_core", r.per_core, "flop/s", "median", "cores", r.cores)
        out.add(f"{name} per_core_max", r.per_core_max, "flop/s", "max", "cores", r.cores)
        out.add(f"{name} per_core_spread", r.per_core_spread, "ratio", "derived", "cores", r.cores)
        out.add(f"{name} together", r.together, "flop/s", "median", "cores", r.cores)
        out.add(f"{name} together_max", r.together_max, "flop/s", "max", "cores", r.cores)
        out.add(f"{name} overlap", r.overlap, "ratio", "median", "cores", r.cores)
    return out.rows
