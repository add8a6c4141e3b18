"""The plug-and-play wavefront model (Hammond et al. 2009, Table 2, after
Mudalige et al. 2008): the time of one iteration of a wavefront code from
its parameters (Table 1), a network profile (section 5.1) and a placement.

Indexing, as Table 2: P_{i,j} is the process of column i = 1..n and row
j = 1..m, hpcbench rank (j-1)*n + (i-1) (_params: rank 0 bottom left). The
model follows one sweep from P_{1,1} and takes the other sweeps as alike.
The paper names the directions of that sweep by its own picture: x flows
from W to E (i grows), y from N to S (j grows). In hpcbench's layout row 1
is the bottom row, so the paper's "north" neighbour of P_{i,j} is P_{i,j-1},
the row below; only the names differ, the equations are the paper's:

    W_pre = W_g,pre H_tile Nx/n Ny/m                                (r1a)
    W     = W_g H_tile Nx/n Ny/m                                    (r1b)
    Start P_{1,1} = W_pre                                           (r2a)
    Start P_{i,j} = max(Start P_{i-1,j} + W + Total_comm_E + Receive_N,
                        Start P_{i,j-1} + W + Send_E + Total_comm_S) (r2b)
    T_diagfill = Start P_{1,m}                                      (r3a)
    T_fullfill = Start P_{n,m}                                      (r3b)
    T_stack = (Receive_W + Receive_N + W + Send_E + Send_S + W_pre)
              Nz/H_tile - W_pre                                     (r4)
    time per iteration = n_diag T_diagfill + n_full T_fullfill
                         + n_sweeps T_stack + T_nonwavefront         (r5)

What each communication term of r2b is, under the per-tile contract of
_params (receive x, receive y, compute, send x, send y; eager sends, so a
message costs its sender t_send and its receiver t_recv):

* via P_{i-1,j}: Total_comm_E = t_send + t_recv of the E/W face from
  P_{i-1,j} to P_{i,j} (that pair's class); Receive_N = t_recv of the N/S
  face P_{i,j} then takes from P_{i,j-1} (the pair (P_{i,j-1}, P_{i,j})).
* via P_{i,j-1}: Send_E = t_send of the E/W face P_{i,j-1} sends to its own
  x-downstream neighbour P_{i+1,j-1} before the y send (that pair's class);
  Total_comm_S = t_send + t_recv of the N/S face from P_{i,j-1} to P_{i,j}.
* At the array's edges a term with no neighbour is 0: Receive_N on row 1,
  Send_E on column n; a term whose predecessor does not exist (column 1 has
  no P_{i-1,j}, row 1 no P_{i,j-1}) drops out of the max.

With these meanings, and eager sends, r2b is exactly when P_{i,j} starts
computing its first tile (its W_pre, if any, done while it waits for the
faces), and Start P_{i,j} - W_pre is the longest path to P_{i,j} through the
array, each step east or north costing its term above. Under the replay's
blocking semantics (a transfer starts when both sides are there, the
receiver busy t_recv from then, the sender t_send) a sender also waits for
its receiver and a receiver does not wait for t_send, so r2b and a replay
agree only approximately; neither bounds the other in general.

Where the profile splits a class's messages into CPU overheads and wire
time (_profile.py: TCP's eager sends, where MPI_Send returns while the
kernel moves the bytes), the terms keep their meaning with that split:
Send_X and Receive_X are the overheads o_s and o_r (what the CPU of each
side spends), Total_comm_X is the message's whole time from send start to
receive end (the echo's one-way time), and r4 becomes the slower of the
two resources of the pipeline: the slowest process's stack, or the
busiest link's, which carries one face per tile for its x / B:

    T_stack = max(r4 of the slowest process, tiles * max over links of x / B)

A class without the split has wire 0 and Total_comm = t_send + t_recv, so
the equations are Table 2's exactly (the paper's InfiniPath, and shared
memory here, where the copy is the CPU's work). A link is a pair of ranks
in one direction: ranks of one node sharing its network card are not
modelled (ratNC measures that).

r5 takes every sweep to cost what the sweep from P_{1,1} costs: with one
class everywhere all corners are alike; a placement whose classes are not
mirror-symmetric (node fill with n not a multiple of the ranks per node)
makes the other corners' sweeps differ slightly, which r5 does not see.

r4 when neighbours differ: each process's stack is r4 with its own four
terms (Receive_W and Receive_N from its upstream pairs, Send_E and Send_S to
its downstream pairs, 0 where it has no neighbour), and T_stack is the
largest. Why the largest: a process handles its Nz/H_tile tiles one after
the other, each costing it at least its own per-tile cycle, and every
downstream process waits for its tiles; so the slowest process's stack is
on the critical path of every sweep (a pipeline runs at its slowest
stage). With one class everywhere it is an interior process's stack, the
paper's formula; on a 1 x n or 2 x 2 array no process has four neighbours
and the edge terms are 0.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._classes import CLASSES
from ._errors import PredictError
from ._params import WavefrontParams
from ._placement import Placement
from ._profile import MessageCosts, NetworkProfile

__all__ = ["WavefrontPrediction", "wavefront"]


@dataclass(frozen=True, eq=False)
class WavefrontPrediction:
    """One iteration of a wavefront code as Table 2 predicts it; every time
    in seconds.

    `compute` is the computation on the critical path of r5: the W and W_pre
    terms of every fill and stack, n_diag (W_pre + (m-1) W) + n_full (W_pre +
    (n+m-2) W) + n_sweeps ((W + W_pre) Nz/H_tile - W_pre) (every process
    computes the same W, so every path through the array holds the same
    compute). `communication` is the rest of the wavefront part,
    time - t_nonwavefront - compute: messages on the critical path.
    `start[j-1, i-1]` is Start P_{i,j} (row j, column i; rank (j-1)*n+i-1),
    `stacks[j-1, i-1]` that process's own r4; `stack_rank` is the rank whose
    stack is T_stack (the largest)."""

    time: float                 #: r5: seconds per iteration
    t_diagfill: float           #: r3a
    t_fullfill: float           #: r3b
    t_stack: float              #: r4: the slowest process's stack, or the busiest link's if slower
    w: float                    #: r1b: seconds per tile
    w_pre: float                #: r1a: seconds per tile before the kernel
    compute: float              #: computation on the critical path of r5
    communication: float        #: time - t_nonwavefront - compute
    t_nonwavefront: float       #: seconds per iteration outside the sweeps
    start: np.ndarray           #: (m, n): Start P_{i,j} at [j-1, i-1]
    stacks: np.ndarray          #: (m, n): r4 of P_{i,j} with its own neighbours, at [j-1, i-1]
    stack_rank: int             #: the rank with the slowest process stack
    link_stack: float = 0.0     #: tiles x the busiest link's wire time per tile (0: no class has wire time)


def wavefront(params: WavefrontParams, profile: NetworkProfile, placement: Placement) -> WavefrontPrediction:
    """Table 2 (r1a..r5) for `params` on `profile`, each message priced by
    the class of its pair of ranks under `placement` (seconds). Raises
    PredictError if the placement has not params.m x params.n ranks, and
    ProfileError if the profile lacks a class the placement needs."""
    m, n = params.m, params.n
    if placement.nranks != params.nranks:
        raise PredictError(f"the placement has {placement.nranks} ranks, the {m}x{n} process array "
                           f"needs {params.nranks}")
    cells = params.cells_x * params.cells_y
    w = params.wg * params.h_tile * cells            # r1b
    w_pre = params.wg_pre * params.h_tile * cells    # r1a
    ew, ns = _pair_costs(params, profile, placement)
    start = _start_times(w, w_pre, ew, ns)
    t_diagfill = float(start[m - 1, 0])              # r3a: Start P_{1,m}
    t_fullfill = float(start[m - 1, n - 1])          # r3b: Start P_{n,m}
    stacks = _stacks(params.tiles, w, w_pre, ew, ns)
    stack_rank = int(np.argmax(stacks))
    link_stack = params.tiles * max(float(ew.wire.max(initial=0.0)), float(ns.wire.max(initial=0.0)))
    t_stack = max(float(stacks.flat[stack_rank]), link_stack)   # r4
    time = (params.n_diag * t_diagfill + params.n_full * t_fullfill + params.n_sweeps * t_stack
            + params.t_nonwavefront)                 # r5
    compute = (params.n_diag * (w_pre + (m - 1) * w) + params.n_full * (w_pre + (m + n - 2) * w)
               + params.n_sweeps * ((w + w_pre) * params.tiles - w_pre))
    start.flags.writeable = stacks.flags.writeable = False
    return WavefrontPrediction(time=time, t_diagfill=t_diagfill, t_fullfill=t_fullfill, t_stack=t_stack,
                               w=w, w_pre=w_pre, compute=compute,
                               communication=time - params.t_nonwavefront - compute,
                               t_nonwavefront=params.t_nonwavefront, start=start, stacks=stacks,
                               stack_rank=stack_rank, link_stack=link_stack)


def _pair_costs(params: WavefrontParams, profile: NetworkProfile,
                placement: Placement) -> tuple[MessageCosts, MessageCosts]:
    """E/W pairs ((m, n-1): column i to i+1) and N/S pairs ((m-1, n): row j
    to j+1), each priced by its class. ProfileError if a class is missing."""
    rank = np.arange(params.nranks, dtype=np.int64).reshape(params.m, params.n)
    ew_class = placement.pair_class(rank[:, :-1], rank[:, 1:])
    ns_class = placement.pair_class(rank[:-1, :], rank[1:, :])
    # Every class some pair needs, so the error names one the placement uses.
    profile.require(CLASSES[int(k)] for k in np.unique(np.concatenate([ew_class.ravel(), ns_class.ravel()])))
    # [j, i]: the face from upstream process (row j, column i) to its
    # downstream neighbour along the axis (0-based).
    ew = profile.message_costs(np.full(ew_class.shape, float(params.message_ew)), ew_class)
    ns = profile.message_costs(np.full(ns_class.shape, float(params.message_ns)), ns_class)
    return ew, ns


def _start_times(w: float, w_pre: float, ew: MessageCosts, ns: MessageCosts) -> np.ndarray:
    """r2a and r2b over the array, one line of processes at a time, along
    the longer side of the array (rows when m <= n, else columns): at most
    min(m, n) vector steps, so a 1 x 10**7 array is one step, not 10**7
    (_scan_lines says how a line is one step)."""
    m, n = ns.send.shape[0] + 1, ew.send.shape[1] + 1
    zero_row = np.zeros((1, n))
    zero_col = np.zeros((m, 1))
    # Receive_N of every process: from the process below it; 0 on row 1.
    receive_n = np.vstack([zero_row, ns.recv])
    # Send_E of every process: to its east; 0 on column n.
    send_e = np.hstack([ew.send, zero_col])
    # The step into (j, i) from the west and from the south (r2b's two terms);
    # steps from outside the array are never taken.
    east = w + np.hstack([zero_col, ew.total]) + receive_n
    north = w + np.vstack([zero_row, send_e[:-1, :] + ns.total])
    if m <= n:
        return _scan_lines(east, north, w_pre)
    return np.ascontiguousarray(_scan_lines(north.T, east.T, w_pre).T)


def _scan_lines(along: np.ndarray, across: np.ndarray, w_pre: float) -> np.ndarray:
    """Start times of an (r, c) array whose process (j, k) is reached from
    (j, k-1) by the step along[j, k] and from (j-1, k) by across[j, k]
    (r2b), the first process starting at w_pre (r2a).

    Within line j, x_k = max(x_{k-1} + a_k, b_k), with a_k = along[j, k]
    and b_k = start[j-1, k] + across[j, k] (the step from the line before;
    for line 0 only b_0 = w_pre). With A_k = a_1 + ... + a_k this is
    x_k = A_k + max over i <= k of (b_i - A_i): each term is a path that
    enters the line at i and walks along it, and the running maximum picks
    the longest. So a line is a cumulative sum and a running maximum, and
    the recurrence costs one vector step per line. Every step is a time
    >= 0, so x_k >= A_k - A_0 and the rounding of the difference stays
    relative to the result."""
    r, c = along.shape
    out = np.empty((r, c))
    first = np.full(c, -np.inf)
    first[0] = w_pre
    for j in range(r):
        b = first if j == 0 else out[j - 1] + across[j]
        steps = along[j].copy()
        steps[0] = 0.0
        walked = np.cumsum(steps)
        out[j] = walked + np.maximum.accumulate(b - walked)
    return out


def _stacks(tiles: int, w: float, w_pre: float, ew: MessageCosts, ns: MessageCosts) -> np.ndarray:
    """r4 for every process, with its own neighbours' terms (0 where it
    has none): an (m, n) array."""
    m, n = ns.send.shape[0] + 1, ew.send.shape[1] + 1
    zero_row = np.zeros((1, n))
    zero_col = np.zeros((m, 1))
    receive_w = np.hstack([zero_col, ew.recv])
    receive_n = np.vstack([zero_row, ns.recv])
    send_e = np.hstack([ew.send, zero_col])
    send_s = np.vstack([ns.send, zero_row])
    return np.asarray((receive_w + receive_n + w + send_e + send_s + w_pre) * tiles - w_pre)
