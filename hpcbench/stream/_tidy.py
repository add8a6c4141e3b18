"""The stream record as rows of the tidy export (hpcbench._tidy;
docs/results-format.md, "Tidy export")."""
from __future__ import annotations

from .._tidy import Row, RowBuilder
from ._records import StreamRecord


def stream_rows(record: StreamRecord) -> list[Row]:
    """Per team ("... TEAM", parameter "cores" its size) and kernel: the
    best, median and worst rate of the team (bytes/s, STREAM's count) and
    the best counting write-allocate reads; then Triad on all cores."""
    out = RowBuilder(record)
    for team in record.derived.teams:
        for k in team.kernels:
            name = f"{k.kernel} {team.group}"
            cores = len(team.pus)
            out.add(f"{name} best", k.best, "bytes/s", "max", "cores", cores)
            out.add(f"{name} median", k.median, "bytes/s", "median", "cores", cores)
            out.add(f"{name} worst", k.worst, "bytes/s", "min", "cores", cores)
            out.add(f"{name} best_with_write_allocate", k.best_with_write_allocate, "bytes/s", "derived", "cores",
                    cores)
    out.add("triad_all_cores", record.derived.triad, "bytes/s", "max")
    return out.rows
