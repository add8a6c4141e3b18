"""The wavefront code as a Program (Hammond et al. 2009, section 3.1 and
Table 2), following the contract of _params.py exactly: ranks j * n + i,
the sweeps of params.sweeps (Chimaera's eight of SWEEP_ORDER unless an
order of octants is given), params.tiles tiles per sweep (Nz/H_tile, once
per energy group when groups pass one after the other), and for every tile of a sweep, on every
rank: [W_pre], receive from the upstream x neighbour, receive from the
upstream y neighbour, compute W, send to the downstream x neighbour, send
to the downstream y neighbour. Faces crossing x (east-west) carry
params.message_ew bytes, faces crossing y params.message_ns bytes.

W_pre (W_g,pre x H_tile x Nx/n x Ny/m seconds) is computed before the
receives of every tile, as r2a and r4 read: it needs no upstream data, so it
overlaps the wait of every rank but the corner's, whose first tile starts at
W_pre. It is left out when W_g,pre is 0 (Chimaera), and so is the
T_nonwavefront compute that ends every iteration when it is 0: a zero-time
event would change no time, only the event counts.

Uneven blocks: every rank computes W for its own cells and sends faces of
its own row's (east-west) or column's (north-south) size. Faces above the
eager limit are coupled at simulation time (_coupling.py), not here.

Built NumPy-wide: a rank's events of one sweep are one short template
(3 to 6 events, by which neighbours it has upstream and downstream) repeated
once per tile, and the ranks of a sweep fall into at most 16 such shapes,
so the arrays are filled with one vectorised write per (iteration, sweep,
shape), never a Python loop per event.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from ._bounds import build_cost, check_cost, model_cost, simulation_cost, size_words
from ._errors import PredictError
from ._params import BYTES_PER_VALUE, SWEEP_ORDER, WavefrontParams
from ._program import COMPUTE, RECV, SEND, Program

__all__ = ["wavefront_program"]


def wavefront_program(params: WavefrontParams, iterations: int = 1) -> Program:
    """The per-rank events of `iterations` iterations of the wavefront code
    described by `params` (compute values in seconds, message values in
    bytes); see the module docstring for the order."""
    if int(iterations) != iterations or iterations < 1:
        raise PredictError(f"iterations must be a positive whole number, got {iterations}")
    p = params
    # Sized before a byte is allocated: a million ranks must be a clear
    # refusal, not MemoryError after minutes (_bounds.py). The time is the
    # replay's this program is built for, with the faster sends.
    built = build_cost(p, int(iterations))
    replayed = simulation_cost(p, int(iterations), "blocking")
    check_cost(replace(built, seconds=replayed.seconds, rounds=replayed.rounds),
               f"the program of the {p.m}x{p.n} array ({p.nranks:,} ranks, {built.events:,} events)",
               f"simulate fewer ranks or fewer tiles (Nz/H_tile), or use the analytical model (wavefront(), needing "
               f"about {size_words(model_cost(p.nranks).bytes)})")
    cells = p.tile_planes * np.outer(p.blocks_y, p.blocks_x).astype(float)
    per_cell = float(BYTES_PER_VALUE * p.tile_planes * p.angles)
    return build_wavefront(p.m, p.n, p.tiles, p.wg * cells, w_pre=p.wg_pre * cells,
                           message_ew=per_cell * p.blocks_y, message_ns=per_cell * p.blocks_x,
                           t_nonwavefront=p.t_nonwavefront, iterations=int(iterations), sweeps=p.sweeps,
                           eager_limits=p.eager_limits)


#: What build_wavefront takes per tile besides W (seconds, bytes; 0 if not given).
PER_TILE = ("w_pre", "message_ew", "message_ns", "t_nonwavefront")


def build_wavefront(m: int, n: int, tiles: int, w: ArrayLike, *, iterations: int = 1,
                    sweeps: Sequence[tuple[bool, bool, bool]] | None = SWEEP_ORDER,
                    eager_limits: tuple[tuple[str, int], ...] = (), **per_tile: ArrayLike) -> Program:
    """The same program from the per-tile quantities themselves (seconds and
    bytes), e.g. with the mean Nx/n and Ny/m as Table 2 takes them. `per_tile`
    holds any of PER_TILE by name: w_pre (seconds), message_ew and
    message_ns (bytes of a face), t_nonwavefront (seconds per iteration).
    w and w_pre are one value or one per process ((m, n), row j column i);
    message_ew one value or one per row (m), message_ns one or one per
    column (n): uneven blocks. eager_limits go to the Program (faces above
    them are coupled when it is simulated)."""
    if sweeps is None:
        raise PredictError(f"the simulated program knows the {len(SWEEP_ORDER)} sweeps of SWEEP_ORDER, "
                           "not more: give the order (octants)")
    unknown = sorted(set(per_tile) - set(PER_TILE))
    if unknown:
        raise PredictError(f"build_wavefront takes {', '.join(PER_TILE)} per tile, not {', '.join(unknown)}")
    nranks = m * n
    w_rank, w_pre_rank, ew_rank, ns_rank = _per_rank(m, n, w, per_tile)
    t_nonwavefront = float(np.asarray(per_tile.get("t_nonwavefront", 0.0), dtype=float))
    shapes = _shapes(m, n, sweeps)
    pre = bool(np.any(w_pre_rank > 0))
    tail = t_nonwavefront > 0
    # Events per rank per sweep: one template of L events per tile.
    length = np.zeros(nranks, dtype=np.int64)
    for has, _ in shapes:
        length += tiles * (int(pre) + 1 + has.sum(axis=0))
    per_iteration = length + int(tail)
    counts = iterations * per_iteration
    offsets = np.zeros(nranks + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    kind = np.empty(total, dtype=np.uint8)
    peer = np.empty(total, dtype=np.int64)
    value = np.empty(total, dtype=float)
    cursor = offsets[:-1].copy()         # where each rank's next event goes
    for _ in range(iterations):
        for has, peers in shapes:
            code = has[0] * 1 + has[1] * 2 + has[2] * 4 + has[3] * 8
            for c in np.unique(code):
                who = np.flatnonzero(code == c)
                k, pe, v = _template(has[:, who[0]], peers[:, who], pre, w_rank[who], w_pre_rank[who],
                                     ew_rank[who], ns_rank[who])
                size = k.size
                # Row r of the block: rank who[r]'s template, tiles times over.
                at = cursor[who, None] + np.arange(tiles * size)[None, :]
                kind[at] = np.tile(k, tiles)[None, :]
                peer[at] = np.tile(pe, (1, tiles))
                value[at] = np.tile(v, (1, tiles))
                cursor[who] += tiles * size
        if tail:
            kind[cursor] = COMPUTE
            peer[cursor] = -1
            value[cursor] = t_nonwavefront
            cursor += 1
    program = Program(offsets=offsets, kind=kind, peer=peer, value=value, eager_limits=tuple(eager_limits))
    program.check()
    return program


def _per_rank(m: int, n: int, w: ArrayLike, per_tile: dict[str, ArrayLike]) -> tuple[np.ndarray, ...]:
    """W, W_pre and the sizes of the east-west and north-south faces of
    every rank (rank = j * n + i): each rank's own, its row's, its
    column's; PredictError (one line) if a value has the wrong shape."""
    row, col = np.repeat(np.arange(m), n), np.tile(np.arange(n), m)
    try:
        return (np.broadcast_to(np.asarray(w, dtype=float), (m, n)).ravel(),
                np.broadcast_to(np.asarray(per_tile.get("w_pre", 0.0), dtype=float), (m, n)).ravel(),
                np.broadcast_to(np.asarray(per_tile.get("message_ew", 0.0), dtype=float), (m,))[row],
                np.broadcast_to(np.asarray(per_tile.get("message_ns", 0.0), dtype=float), (n,))[col])
    except ValueError:
        raise PredictError(f"build_wavefront takes w and w_pre as one value or ({m}, {n}), message_ew as one "
                           f"value or {m} (one per row), message_ns as one value or {n} (one per column)") from None


def _shapes(m: int, n: int, sweeps: Sequence[tuple[bool, bool, bool]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per sweep: which neighbours each rank has (upstream x, upstream y,
    downstream x, downstream y: a (4, ranks) array of bools) and their ranks."""
    i = np.tile(np.arange(n), m)         # column of every rank (rank = j * n + i)
    j = np.repeat(np.arange(m), n)       # row
    rank = np.arange(m * n, dtype=np.int64)
    shapes = []
    for east, north, _ in sweeps:
        dx = -1 if east else 1           # a sweep from the east moves west
        dy = -1 if north else 1
        ux, uy = i - dx, j - dy          # upstream neighbour's column / row
        vx, vy = i + dx, j + dy          # downstream
        has = np.stack([(ux >= 0) & (ux < n), (uy >= 0) & (uy < m), (vx >= 0) & (vx < n), (vy >= 0) & (vy < m)])
        peers = np.stack([rank - dx, rank - dy * n, rank + dx, rank + dy * n])
        shapes.append((has, peers))
    return shapes


def _template(has: np.ndarray, peers: np.ndarray, pre: bool, w: np.ndarray, w_pre: np.ndarray,
              message_ew: np.ndarray, message_ns: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One tile's events for ranks of one shape: kinds (one row), peers and
    values (one row per rank, columns the events; the values are each
    rank's own: its W, its row's and its column's face sizes)."""
    ux, uy, dx, dy = (bool(h) for h in has)
    ranks = peers.shape[1]
    none = np.full(ranks, -1, dtype=np.int64)
    rows = []                            # (kind, peer per rank, value per rank)
    if pre:
        rows.append((COMPUTE, none, w_pre))
    if ux:
        rows.append((RECV, peers[0], message_ew))
    if uy:
        rows.append((RECV, peers[1], message_ns))
    rows.append((COMPUTE, none, w))
    if dx:
        rows.append((SEND, peers[2], message_ew))
    if dy:
        rows.append((SEND, peers[3], message_ns))
    kind = np.array([r[0] for r in rows], dtype=np.uint8)
    peer = np.stack([r[1] for r in rows], axis=1)
    value = np.stack([np.asarray(r[2], dtype=float) for r in rows], axis=1)
    return kind, peer, value
