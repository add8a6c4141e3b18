"""Table 4 of Hammond et al. (2009) from Table 3: the plug-and-play model
(_model.py) on CSC-Francesca's network profile (hpcbench/examples/
francesca-profile.json, read by the caller) and node-fill placement, against the paper's
analytical predictions.

What the paper does not print, and what is assumed here:

* the process arrays: the most square m x n for each core count, m <= n
  (32 = 4x8, 64 = 8x8, 128 = 8x16, 81 = 9x9, 96 = 8x12, 100 = 10x10,
  169 = 13x13, 256 = 16x16). Rows no longer than columns put a node's four
  ranks side by side in one row (rank = j n + i, node fill), as Figure 3.
* where the array does not divide the grid (240 over 9 or 13, 120 over 16)
  the largest block sets the pace: the grid is taken as n ceil(Nx/n) by
  m ceil(Ny/m) (9x9 on 240^3: 27 x 27 cells a process).
* H_tile = 1 (Table 1), Nz tiles a stack; `angles` per cell (a parameter:
  the faces carry one value per angle).
* W_g and the iteration count: Table 4's runtimes are whole runs, many
  iterations of r5. The other rows are predicted as ratios to one fitted
  row per problem size (FITTED), so the iteration count and the absolute
  scale cancel; but W_g does not, because W_g alone sets how much of an
  iteration is communication (the model's network costs are absolute).
  Fitting W_g on one row's runtime would need the iteration count, which
  the paper does not give; so W_g is taken from section 6.1 instead, not
  from Table 4: the model's parallel efficiency of the 240^3 problem on
  Francesca's network must fall through 50 % between 1024 and 2048 cores
  (`calibrate_wg`: the geometric middle of the W_g band where it does).
  The two problem sizes converge in different numbers of iterations
  (their analytical times differ by more than their work), so each is
  scaled by its own fitted row.
* Francesca: 240 nodes of two dual-core Xeon 5160 packages whose two cores
  share the L2 (the paper's on-chip class), ranks filled node by node.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ._allocate import Machine, allocate
from ._errors import PredictError
from ._model import WavefrontPrediction, wavefront
from ._params import WavefrontParams, square_array
from ._placement import Placement
from ._profile import NetworkProfile

#: Table 4: (cores, grid edge, actual runtime s, analytical prediction s).
TABLE4 = ((32, 120, 107.18, 88.76), (64, 120, 56.72, 47.59), (128, 120, 32.56, 28.20),
          (81, 240, 342.33, 326.45), (96, 240, 297.03, 268.71), (100, 240, 278.37, 243.36),
          (128, 240, 225.65, 205.50), (169, 240, 174.35, 174.35), (256, 240, 129.65, 115.58))
#: The row of each problem size whose analytical time fixes that size's scale.
FITTED = {120: 64, 240: 256}
#: Francesca's nodes: packages per node, cores per package (240 nodes; more
#: are assumed alike where section 6 projects past 960 cores).
PACKAGES, CORES = 2, 2
#: Section 6.1: 240^3 falls to 50 % parallel efficiency between these core counts.
HALF_EFFICIENCY = (1024, 2048)


def node_fill(nranks: int, packages: int = PACKAGES, cores: int = CORES) -> Placement:
    """Ranks filled node by node (0..packages*cores-1 on node 0, ...),
    package by package within a node (section 7's node fill on as many
    Francesca-like nodes as the ranks need); the cores of a package share
    its cache, so two of them are the paper's on-chip pair."""
    if nranks < 1:
        raise PredictError(f"a placement needs at least one rank, got {nranks}")
    nodes = -(-nranks // (packages * cores))
    return allocate(nranks, Machine(nodes, packages, cores), "node-fill")


def run_params(cores: int, edge: int, wg: float, angles: int) -> WavefrontParams:
    """The edge^3 problem on the most square array of `cores`, the grid
    rounded up to whole blocks (the largest block sets the pace)."""
    m, n = square_array(cores)
    return WavefrontParams(nx=n * -(-edge // n), ny=m * -(-edge // m), nz=edge, m=m, n=n, wg=wg, angles=angles)


def per_iteration(cores: int, edge: int, wg: float, angles: int, profile: NetworkProfile) -> WavefrontPrediction:
    """r5 for one configuration, node fill on Francesca-like nodes."""
    return wavefront(run_params(cores, edge, wg, angles), profile, node_fill(cores))


def efficiency(cores: int, edge: int, wg: float, angles: int, profile: NetworkProfile) -> float:
    """Parallel efficiency T(1) / (cores T(cores)) of the model."""
    one = per_iteration(1, edge, wg, angles, profile).time
    return one / (cores * per_iteration(cores, edge, wg, angles, profile).time)


def calibrate_wg(angles: int, profile: NetworkProfile, edge: int = 240) -> tuple[float, float, float]:
    """(low, middle, high) W_g in seconds per cell: at `low` the model's
    efficiency is 50 % at HALF_EFFICIENCY[0] cores, at `high` at
    HALF_EFFICIENCY[1]; in between it falls through 50 % between the two,
    as section 6.1 says. `middle` is their geometric mean. Efficiency grows
    with W_g (more compute per message), so each end is a bisection."""
    def half_at(cores: int) -> float:
        lo, hi = math.log(1e-10), math.log(1e-3)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if efficiency(cores, edge, math.exp(mid), angles, profile) < 0.5:
                lo = mid
            else:
                hi = mid
        return math.exp(0.5 * (lo + hi))
    low, high = half_at(HALF_EFFICIENCY[0]), half_at(HALF_EFFICIENCY[1])
    return low, math.sqrt(low * high), high


@dataclass(frozen=True)
class Row:
    """One row of Table 4 and our prediction for it (seconds)."""

    cores: int
    edge: int                #: the grid is edge^3
    m: int
    n: int
    actual: float            #: the paper's measured runtime
    paper: float             #: the paper's analytical prediction
    iteration: float         #: our r5 time per iteration
    communication: float     #: its communication part
    ours: float = math.nan   #: our prediction: the fitted row's paper time x our ratio to it

    @property
    def fitted(self) -> bool:
        return FITTED[self.edge] == self.cores

    @property
    def error(self) -> float:
        """Our ratio to the fitted row against the paper's, relative:
        (ours / ours_fitted) / (paper / paper_fitted) - 1."""
        return self.ours / self.paper - 1.0


def table4(profile: NetworkProfile, wg: float, angles: int) -> list[Row]:
    """Every row of Table 4 predicted with W_g = `wg` seconds per cell and
    `angles` angles on `profile` (Table 3), each problem size scaled by its
    FITTED row's analytical time."""
    rows = []
    for cores, edge, actual, paper in TABLE4:
        p = per_iteration(cores, edge, wg, angles, profile)
        m, n = square_array(cores)
        rows.append(Row(cores, edge, m, n, actual, paper, p.time, p.communication))
    ref = {r.edge: r for r in rows if r.fitted}
    return [replace(r, ours=r.iteration / ref[r.edge].iteration * ref[r.edge].paper) for r in rows]


def format_table(rows: list[Row]) -> str:
    """The comparison as text, one line per row."""
    lines = [f"{'config':>13} {'array':>7} {'paper (s)':>10} {'ours (s)':>9} {'ratio err':>9} "
             f"{'comm/iter':>9} {'actual (s)':>10}"]
    for r in rows:
        note = "  fitted" if r.fitted else ""
        lines.append(f"{r.cores:>5} x {r.edge:>3}^3 {r.m:>3}x{r.n:<3} {r.paper:>10.2f} {r.ours:>9.2f} "
                     f"{100 * r.error:>+8.1f}% {100 * r.communication / r.iteration:>8.1f}% {r.actual:>10.2f}{note}")
    return "\n".join(lines)
