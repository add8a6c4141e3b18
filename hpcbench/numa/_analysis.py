"""The NUMA matrix from its cells: pure functions from numbers (no hardware,
no MPI), tested on synthetic measurements of known ratios.

Rows are the nodes whose cores ran, columns the nodes whose memory they
used; the diagonal is local. Ratios are remote/local within a row (the same
cores): bandwidth below 1 and latency above 1 are what NUMA costs. hwloc's
own distances (the firmware's SLIT, relative: 10 is local) are set beside
the measured latency ratios, each divided by its row's local value.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

Cell = tuple[int, int]
#: Relative difference that counts as a contradiction (remote faster than
#: local, or the order of two remote nodes against hwloc's).
DEFAULT_TOLERANCE = 0.10


def cell_figures(bandwidth: npt.ArrayLike, latency_ns: npt.ArrayLike) -> tuple[float, float]:
    """One cell's figures: the best read bandwidth over repetitions (as
    STREAM reports its best rate) and the lowest ns per load over chase
    samples: on a node shared with other work, interference only takes
    bandwidth away and adds time, never the reverse."""
    return float(np.max(bandwidth)), float(np.min(latency_ns))


def _matrix(rows: Sequence[int], cols: Sequence[int], values: Mapping[Cell, float]) -> list[list[float | None]]:
    return [[values.get((i, j)) for j in cols] for i in rows]


def relative(rows: Sequence[int], cols: Sequence[int], values: Mapping[Cell, float]) -> list[list[float | None]]:
    """values[i, j] / values[i, i]: each cell against its row's local one
    (None where the row has no local cell)."""
    out = []
    for i in rows:
        local = values.get((i, i))
        out.append([None if local is None or (i, j) not in values or not local else values[(i, j)] / local
                    for j in cols])
    return out


def hwloc_relative(rows: Sequence[int], cols: Sequence[int],
                   distances: tuple[Sequence[int], np.ndarray] | None) -> list[list[float | None]] | None:
    """hwloc's NUMA latency matrix restricted to rows x cols, each row
    divided by its local value; None without a matrix or if it leaves out
    a chosen node."""
    if distances is None:
        return None
    nodes, matrix = list(distances[0]), np.asarray(distances[1], dtype=float)
    if any(n not in nodes for n in (*rows, *cols)):
        return None
    at = {n: k for k, n in enumerate(nodes)}
    values = {(i, j): float(matrix[at[i], at[j]]) for i in rows for j in cols}
    return relative(rows, cols, values) if all((i, i) in values for i in rows) else None


def _off_diagonal(rows: Sequence[int], cols: Sequence[int], matrix: list[list[float | None]]) -> list[float]:
    return [v for r, i in enumerate(rows) for c, j in enumerate(cols) if i != j and (v := matrix[r][c]) is not None]


@dataclass
class NumaAnalysis:
    """The matrices (rows: nodes whose cores ran; cols: nodes whose memory
    they used), the ratios to each row's local cell, the local figures
    (mean of the diagonal), the worst remote/local ratios (None with one
    node), hwloc's relative distances and the contradictions found."""
    rows: list[int]
    cols: list[int]
    bandwidth: list[list[float | None]]
    latency_ns: list[list[float | None]]
    bandwidth_ratio: list[list[float | None]]
    latency_ratio: list[list[float | None]]
    local_bandwidth: float | None
    local_latency_ns: float | None
    worst_bandwidth_ratio: float | None
    worst_latency_ratio: float | None
    hwloc_ratio: list[list[float | None]] | None
    disagreements: list[str] = field(default_factory=list)

    @property
    def single_node(self) -> bool:
        return len(self.cols) == 1


def _disagreements(a: NumaAnalysis, tolerance: float) -> list[str]:
    """Remote memory faster than local, and two remote nodes in the
    opposite order to hwloc's distances, beyond `tolerance`."""
    out = []
    for r, i in enumerate(a.rows):
        for c, j in enumerate(a.cols):
            lat, bw = a.latency_ratio[r][c], a.bandwidth_ratio[r][c]
            if i != j and lat is not None and lat < 1 - tolerance:
                out.append(f"cores of node {i}: memory of node {j} answers faster than their own "
                           f"({lat:.2f}x the local latency)")
            if i != j and bw is not None and bw > 1 + tolerance:
                out.append(f"cores of node {i}: memory of node {j} delivers more than their own "
                           f"({bw:.2f}x the local bandwidth)")
            for d, k in enumerate(a.cols):
                near, far = (a.hwloc_ratio[r][c], a.hwloc_ratio[r][d]) if a.hwloc_ratio else (None, None)
                lj, lk = a.latency_ns[r][c], a.latency_ns[r][d]
                if (i not in (j, k) and near is not None and far is not None and lj is not None and lk is not None
                        and near < far and lj > lk * (1 + tolerance)):
                    out.append(f"cores of node {i}: hwloc puts node {j} nearer than node {k} (relative distance "
                               f"{near:.1f} < {far:.1f}), measured {lj:.0f} ns vs {lk:.0f} ns")
    return out


def analyze_numa(rows: Sequence[int], cols: Sequence[int], bandwidth: Mapping[Cell, float],
                 latency_ns: Mapping[Cell, float], distances: tuple[Sequence[int], np.ndarray] | None = None,
                 tolerance: float = DEFAULT_TOLERANCE) -> NumaAnalysis:
    """The matrices, ratios and local/worst figures of the measured cells
    (bytes/s and ns per load by (row node, column node)), with hwloc's
    matrix of (node OS indexes, values) if it has one."""
    rows, cols = list(rows), list(cols)
    bw_ratio, lat_ratio = relative(rows, cols, bandwidth), relative(rows, cols, latency_ns)
    local_bw = [bandwidth[(i, i)] for i in rows if (i, i) in bandwidth]
    local_lat = [latency_ns[(i, i)] for i in rows if (i, i) in latency_ns]
    remote_bw, remote_lat = _off_diagonal(rows, cols, bw_ratio), _off_diagonal(rows, cols, lat_ratio)
    a = NumaAnalysis(rows=rows, cols=cols, bandwidth=_matrix(rows, cols, bandwidth),
                     latency_ns=_matrix(rows, cols, latency_ns), bandwidth_ratio=bw_ratio, latency_ratio=lat_ratio,
                     local_bandwidth=float(np.mean(local_bw)) if local_bw else None,
                     local_latency_ns=float(np.mean(local_lat)) if local_lat else None,
                     worst_bandwidth_ratio=min(remote_bw) if remote_bw else None,
                     worst_latency_ratio=max(remote_lat) if remote_lat else None,
                     hwloc_ratio=hwloc_relative(rows, cols, distances))
    a.disagreements = _disagreements(a, tolerance)
    return a
