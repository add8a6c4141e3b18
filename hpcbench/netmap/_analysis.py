"""From the map's samples to its matrices and findings, and from the
bisections' samples to their distribution. Pure functions: no MPI, tested
on synthetic matrices with a known slow node or link.

The rule for "slow" is hpcbench._robust's, said once there. A node is
judged first: its figure is the median of every cell of its row and column
(all it sent and received), against the other nodes' figures. A slow node
makes all its links slow, so the links are then judged without the cells of
slow nodes: what remains out of line is a link of its own. Each matrix
(bandwidth, latency; under load, alone) is judged on its own, and a member
out of line in any of them is named once, with the evidence of the worst."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np

from .._headline import format_value
from .._robust import FLOOR, Deviation, centre_and_spread, out_of_line

#: How much worse than the median a latency must be to count (the rule's
#: floor, where bandwidths take hpcbench._robust's 15 %): the links of a
#: healthy network deliver the same bandwidth, but their latencies differ with
#: the path (a pair under one switch against a pair across the spine: tens of
#: per cent), and a round trip of a few microseconds moves with the CPUs'
#: scheduling; a link 1.5x slower than the median to answer is a finding.
LATENCY_FLOOR = 0.5

#: (matrix name, what it holds, unit, the worse side, the rule's floor)
KINDS = (("bandwidth_loaded", "bandwidth under load", "bytes/s", "lower", FLOOR),
         ("bandwidth_alone", "bandwidth alone", "bytes/s", "lower", FLOOR),
         ("latency_loaded", "latency under load", "s", "higher", LATENCY_FLOOR),
         ("latency_alone", "latency alone", "s", "higher", LATENCY_FLOOR))


def median_cells(seconds: np.ndarray) -> np.ndarray:
    """n x n x k seconds -> n x n medians (NaN where a cell has no sample)."""
    out = np.full(seconds.shape[:2], np.nan)
    for index in np.ndindex(*seconds.shape[:2]):
        finite = seconds[index][np.isfinite(seconds[index])]
        if finite.size:
            out[index] = float(np.median(finite))
    return out


def bandwidth(size: int, seconds: np.ndarray) -> np.ndarray:
    """Bytes/s per cell from the median seconds of each cell."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return size / median_cells(seconds)


@dataclass(frozen=True)
class Finding:
    """A node or a link out of line: who, in which matrix, and the rule's evidence."""
    who: tuple                        #: (node,) or (source, destination), by index
    matrix: str                       #: the matrix's words ("bandwidth under load")
    deviation: Deviation
    unit: str

    def evidence(self, labels: list[str]) -> str:
        return f"{self.matrix} {self.deviation.evidence(lambda v: format_value(v, self.unit))}"


def _off_diagonal(matrix: np.ndarray, skip: set[int]) -> dict[tuple[int, int], float]:
    n = matrix.shape[0]
    return {(i, j): float(matrix[i, j]) for i in range(n) for j in range(n)
            if i != j and i not in skip and j not in skip and math.isfinite(matrix[i, j])}


def node_figures(matrix: np.ndarray) -> dict[int, float]:
    """Node -> the median of its row and column (without the diagonal)."""
    n = matrix.shape[0]
    out = {}
    for i in range(n):
        cells = [matrix[i, j] for j in range(n) if j != i] + [matrix[j, i] for j in range(n) if j != i]
        finite = [c for c in cells if math.isfinite(c)]
        if finite:
            out[i] = float(np.median(finite))
    return out


def _worst_per_key(findings: list[Finding]) -> list[Finding]:
    """One finding per node or link: the one furthest out (relative)."""
    best: dict[tuple, Finding] = {}
    for f in findings:
        if f.who not in best or f.deviation.relative > best[f.who].deviation.relative:
            best[f.who] = f
    return sorted(best.values(), key=lambda f: -f.deviation.relative)


def slow_nodes(matrices: dict[str, np.ndarray | None]) -> list[Finding]:
    """Nodes out of line in any matrix (KINDS), worst first, one finding each."""
    found = []
    for name, words, unit, worse, floor in KINDS:
        matrix = matrices.get(name)
        if matrix is None or matrix.shape[0] < 3:
            continue
        for d in out_of_line(node_figures(matrix), worse, floor=floor):
            found.append(Finding((d.key,), words, d, unit))
    return _worst_per_key(found)


def slow_links(matrices: dict[str, np.ndarray | None], nodes: set[int]) -> list[Finding]:
    """Ordered pairs out of line in any matrix, leaving out the cells of the
    slow `nodes` (they explain their own links). Latency matrices are
    symmetric (a round trip): both directions are named."""
    found = []
    for name, words, unit, worse, floor in KINDS:
        matrix = matrices.get(name)
        if matrix is None or matrix.shape[0] < 3:
            continue
        for d in out_of_line(_off_diagonal(matrix, nodes), worse, floor=floor):
            found.append(Finding(cast(tuple, d.key), words, d, unit))     # the (i, j) keys of _off_diagonal
    return _worst_per_key(found)


def suspect_cells(matrices: dict[str, np.ndarray | None]) -> dict[str, set[tuple[int, int]]]:
    """By matrix name, the cells a second measurement should confirm: the
    links out of line in that matrix (without the slow nodes' cells). A
    slow node's cells are not measured again: the node is judged by the
    median of its 2 (n - 1) cells, which a transient of one cell cannot
    move, and measuring them all again would double a map's time."""
    out = {}
    for name, matrix in matrices.items():
        if matrix is None:
            continue
        nodes = {f.who[0] for f in slow_nodes({name: matrix})}
        cells = {(f.who[0], f.who[1]) for f in slow_links({name: matrix}, nodes)}
        if cells:
            out[name] = cells
    return out


def keep_better(first: np.ndarray | None, second: np.ndarray | None,
                cells: set[tuple[int, int]]) -> np.ndarray | None:
    """first's samples (n x n x k seconds), where each of `cells` takes
    second's samples instead when their median is lower (faster): the better
    of two measurements, so a transient slowdown is not a finding."""
    if first is None or second is None:
        return first
    out = first.copy()
    for i, j in cells:
        again = second[i, j]
        if np.isfinite(again).any() and np.nanmedian(again) < np.nanmedian(first[i, j]):
            out[i, j] = again
    return out


@dataclass
class BisectionFigures:
    """Per-flow bandwidths (bytes/s): every flow of every bisection, the
    median and mean flow (Netgauge's effective bisection bandwidth is the
    mean), quartiles, and each bisection's total (the sum of its flows)."""
    flows: np.ndarray                 #: bisections x flows
    median: float
    mean: float
    quartiles: tuple[float, float]
    worst: float
    totals: np.ndarray                #: per bisection


def bisection_figures(size: int, seconds: np.ndarray) -> BisectionFigures:
    """From bisections x flows x iterations seconds."""
    flows = bandwidth(size, seconds)
    finite = flows[np.isfinite(flows)]
    if finite.size == 0:
        raise ValueError("no flow of any bisection was measured")
    q1, q3 = (float(v) for v in np.percentile(finite, [25, 75]))
    return BisectionFigures(flows=flows, median=float(np.median(finite)), mean=float(finite.mean()),
                            quartiles=(q1, q3), worst=float(finite.min()), totals=np.nansum(flows, axis=1))


def spread_of(matrix: np.ndarray) -> tuple[float, float]:
    """(median, scaled MAD) of a matrix's off-diagonal cells."""
    return centre_and_spread(_off_diagonal(matrix, set()).values())
