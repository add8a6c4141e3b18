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
    T_colfill  = Start P_{n,1}                                      (r3c, not in Table 2)
    T_stack = (Receive_W + Receive_N + W + Send_E + Send_S + W_pre)
              Nz/H_tile - W_pre                                     (r4)
    time per iteration = n_diag T_diagfill + n_col T_colfill + n_full T_fullfill
                         + n_sweeps T_stack + T_nonwavefront         (r5)

r3c is the fill across the columns an order of sweeps needs when a sweep
starts from the corner across the columns from the last one's (E <-> W);
Chimaera's order has none (n_col = 0: Table 2 exactly). The counts come
from the order (_octants.py). With energy groups passing one after the
other (group_faces "each") a stack holds Nz/H_tile tiles per group; with
one face for all groups W and the faces are G times larger (_params.py).

Uneven blocks (the grid not a multiple of the array): every process has
its own W and W_pre (its own Nx_i x Ny_j cells) and sends faces of its own
size; each step of r2b adds the W of the process it leaves (the
predecessor computes, then sends), r4 is each process's own and T_stack the
largest, so the largest block sets the pace.

Faces above the MPI library's eager limit for their pair's class
(params.eager_limits) are coupled to their receive: the sender waits for
the receiver to post, then both are held for the whole message. Such a
face has Send_X = Receive_X = Total_comm_X (and no wire time apart): in r2b
the hop is then unchanged where the receiver was already waiting, and the
sender's Send_E now holds it for the whole message; r4 counts the whole
message on both sides.

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
in one direction; ranks of one node sharing its network card are priced
by the measured ratNC where the profile carries it (profile.access,
_contention.py: the bandwidth of every message between nodes divided by
ratNC[k] of its k sharing ranks).

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
from ._contention import array_slowdowns
from ._eager import couple
from ._errors import PredictError
from ._params import BYTES_PER_VALUE, WavefrontParams
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
    w: float                    #: r1b: seconds per tile (the largest block's, if uneven)
    w_pre: float                #: r1a: seconds per tile before the kernel (the largest block's)
    compute: float              #: computation on the critical path of r5
    communication: float        #: time - t_nonwavefront - compute
    t_nonwavefront: float       #: seconds per iteration outside the sweeps
    start: np.ndarray           #: (m, n): Start P_{i,j} at [j-1, i-1]
    stacks: np.ndarray          #: (m, n): r4 of P_{i,j} with its own neighbours, at [j-1, i-1]
    stack_rank: int             #: the rank with the slowest process stack
    link_stack: float = 0.0     #: tiles x the busiest link's wire time per tile (0: no class has wire time)
    t_colfill: float = 0.0      #: r3c: Start P_{n,1}, the fill across the columns
    iterations: int = 1         #: iterations of r5 in a run (inners x outers)
    coupled: int = 0            #: neighbour pairs whose faces are above the eager limit (coupled sends)

    @property
    def run_time(self) -> float:
        """Seconds of the whole run: iterations x time."""
        return self.iterations * self.time


def wavefront(params: WavefrontParams, profile: NetworkProfile, placement: Placement) -> WavefrontPrediction:
    """Table 2 (r1a..r5) for `params` on `profile`, each message priced by
    the class of its pair of ranks under `placement` (seconds). Raises
    PredictError if the placement has not params.m x params.n ranks, and
    ProfileError if the profile lacks a class the placement needs."""
    m, n = params.m, params.n
    if placement.nranks != params.nranks:
        raise PredictError(f"the placement has {placement.nranks} ranks, the {m}x{n} process array "
                           f"needs {params.nranks}")
    # [j, i]: the cells of row j, column i (uneven blocks: each its own).
    cells = np.outer(params.blocks_y, params.blocks_x).astype(float) * params.tile_planes
    w = params.wg * cells                            # r1b
    w_pre = params.wg_pre * cells                    # r1a
    ew, ns, ns_coupled, coupled = _pair_costs(params, profile, placement)
    start = _start_times(w, w_pre, ew, ns)
    stacks = _stacks(params.tiles, w, w_pre, ew, ns, ns_coupled)
    stack_rank = int(np.argmax(stacks))
    link_stack = params.tiles * max(float(ew.wire.max(initial=0.0)), float(ns.wire.max(initial=0.0)))
    t_stack = max(float(stacks.flat[stack_rank]), link_stack)   # r4
    time = _r5(params, _fills(start), t_stack)
    if not params.even and params.sweeps is not None:
        time = _sweep_by_sweep(params, w, w_pre, ew, ns, ns_coupled)
    compute = _compute(params, w, w_pre)
    start.flags.writeable = stacks.flags.writeable = False
    diag, full, col = _fills(start)
    return WavefrontPrediction(time=time, t_diagfill=diag, t_fullfill=full, t_stack=t_stack,
                               w=float(w.max()), w_pre=float(w_pre.max()), compute=compute,
                               communication=time - params.t_nonwavefront - compute,
                               t_nonwavefront=params.t_nonwavefront, start=start, stacks=stacks,
                               stack_rank=stack_rank, link_stack=link_stack, t_colfill=col,
                               iterations=params.iterations, coupled=coupled)


def _compute(params: WavefrontParams, w: np.ndarray, w_pre: np.ndarray) -> float:
    """The computation on the critical path of r5: the same sums with every
    message free (with even blocks, n_diag (W_pre + (m-1) W) + n_full (W_pre
    + (m+n-2) W) + n_sweeps ((W + W_pre) tiles - W_pre), and n_col's)."""
    m, n = w.shape
    free_ew, free_ns = (MessageCosts(*(np.zeros(shape) for _ in range(4))) for shape in ((m, n - 1), (m - 1, n)))
    quiet = params.with_(t_nonwavefront=0.0)
    if not params.even and params.sweeps is not None:
        return _sweep_by_sweep(quiet, w, w_pre, free_ew, free_ns, np.zeros((m - 1, n), dtype=bool))
    return _r5(quiet, _fills(_start_times(w, w_pre, free_ew, free_ns)),
               float(((w + w_pre) * params.tiles - w_pre).max()))


def _sweep_by_sweep(params: WavefrontParams, w: np.ndarray, w_pre: np.ndarray, ew: MessageCosts,
                    ns: MessageCosts, ns_coupled: np.ndarray) -> float:
    """r5 with uneven blocks: every sweep from its own corner. Blocks of
    ceil size sit at the low columns and rows, so the sweeps from the four
    corners differ (from the south-west the largest block is the first
    stage, from the north-east the last); each sweep's stack, and the fill
    to the next sweep's corner, are computed on the array as seen from
    its corner (the arrays flipped), then summed as r5 sums them:
    the sweeps' stacks, the fills between consecutive sweeps, the last
    sweep's full fill and T_nonwavefront."""
    sweeps = params.sweeps or ()
    views = {}
    for east, north, _ in sweeps:
        if (east, north) not in views:
            views[east, north] = _view(params.tiles, east, north, w, w_pre, ew, ns, ns_coupled)
    total = params.t_nonwavefront
    for k, (east, north, _) in enumerate(sweeps):
        start, t_stack = views[east, north]
        total += t_stack
        after = sweeps[k + 1][:2] if k + 1 < len(sweeps) else (not east, not north)
        if after != (east, north):
            # The next corner, in this sweep's view: row 0 / column 0 is this corner's.
            total += float(start[-1 if after[1] != north else 0, -1 if after[0] != east else 0])
    return total


def _view(tiles: int, east: bool, north: bool, w: np.ndarray, w_pre: np.ndarray, ew: MessageCosts,
          ns: MessageCosts, ns_coupled: np.ndarray) -> tuple[np.ndarray, float]:
    """(start times, T_stack) of the sweep from corner (east, north): every
    (m, n)-shaped quantity flipped so that corner is [0, 0]. A pair's
    messages cost the same both ways (one class, one size), so the flipped
    cost arrays are the sweep's."""
    def flip(a: np.ndarray) -> np.ndarray:
        return a[::-1 if north else 1, ::-1 if east else 1]

    fe = MessageCosts(*(flip(a) for a in (ew.send, ew.recv, ew.total, ew.wire)))
    fn = MessageCosts(*(flip(a) for a in (ns.send, ns.recv, ns.total, ns.wire)))
    start = _start_times(flip(w), flip(w_pre), fe, fn)
    link = tiles * max(float(ew.wire.max(initial=0.0)), float(ns.wire.max(initial=0.0)))
    return start, max(float(_stacks(tiles, flip(w), flip(w_pre), fe, fn, flip(ns_coupled)).max()), link)


def _fills(start: np.ndarray) -> tuple[float, float, float]:
    """(T_diagfill, T_fullfill, T_colfill): Start P_{1,m}, P_{n,m}, P_{n,1} (r3a-c)."""
    return float(start[-1, 0]), float(start[-1, -1]), float(start[0, -1])


def _r5(params: WavefrontParams, fills: tuple[float, float, float], t_stack: float) -> float:
    diag, full, col = fills
    return (params.n_diag * diag + params.n_col * col + params.n_full * full + params.n_sweeps * t_stack
            + params.t_nonwavefront)


def _pair_costs(params: WavefrontParams, profile: NetworkProfile,
                placement: Placement) -> tuple[MessageCosts, MessageCosts, np.ndarray, int]:
    """E/W pairs ((m, n-1): column i to i+1) and N/S pairs ((m-1, n): row j
    to j+1), each priced by its class and its faces' size (coupled where
    above the eager limit), which N/S pairs are coupled, and how many pairs
    are. ProfileError if a class is missing."""
    rank = np.arange(params.nranks, dtype=np.int64).reshape(params.m, params.n)
    ew_class = placement.pair_class(rank[:, :-1], rank[:, 1:])
    ns_class = placement.pair_class(rank[:-1, :], rank[1:, :])
    # Every class some pair needs, so the error names one the placement uses.
    profile.require(CLASSES[int(k)] for k in np.unique(np.concatenate([ew_class.ravel(), ns_class.ravel()])))
    # [j, i]: the face from upstream process (row j, column i) to its
    # downstream neighbour along the axis (0-based).
    # An E/W face of row j carries that row's Ny_j cells; an N/S face of
    # column i its Nx_i cells.
    per_cell = float(BYTES_PER_VALUE * params.tile_planes * params.angles)
    ew_size = np.repeat(per_cell * params.blocks_y[:, None], params.n - 1, axis=1)
    ns_size = np.repeat(per_cell * params.blocks_x[None, :], params.m - 1, axis=0)
    # Measured contention for the nodes' network access (_contention.py).
    slow_ew, slow_ns = array_slowdowns(profile.access, placement.node, rank)
    ew = profile.message_costs(ew_size, ew_class, slow_ew)
    ns = profile.message_costs(ns_size, ns_class, slow_ns)
    limits = dict(params.eager_limits)
    ew, ew_coupled = couple(ew, ew_size, ew_class, limits)
    ns, ns_coupled = couple(ns, ns_size, ns_class, limits)
    return ew, ns, ns_coupled, int(ew_coupled.sum() + ns_coupled.sum())


def _start_times(w: np.ndarray, w_pre: np.ndarray, ew: MessageCosts, ns: MessageCosts) -> np.ndarray:
    """r2a and r2b over the array, one line of processes at a time, along
    the longer side of the array (rows when m <= n, else columns): at most
    min(m, n) vector steps, so a 1 x 10**7 array is one step, not 10**7
    (_scan_lines says how a line is one step). w and w_pre are (m, n): each
    process's own; a step adds the W of the process it leaves."""
    m, n = ns.send.shape[0] + 1, ew.send.shape[1] + 1
    zero_row = np.zeros((1, n))
    zero_col = np.zeros((m, 1))
    # Receive_N of every process: from the process below it; 0 on row 1.
    receive_n = np.vstack([zero_row, ns.recv])
    # Send_E of every process: to its east; 0 on column n.
    send_e = np.hstack([ew.send, zero_col])
    # The step into (j, i) from the west and from the south (r2b's two terms);
    # steps from outside the array are never taken.
    east = np.hstack([zero_col, w[:, :-1] + ew.total]) + receive_n
    north = np.vstack([zero_row, w[:-1, :] + send_e[:-1, :] + ns.total])
    first = float(w_pre[0, 0])
    if m <= n:
        return _scan_lines(east, north, first)
    return np.ascontiguousarray(_scan_lines(north.T, east.T, first).T)


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


def _stacks(tiles: int, w: np.ndarray, w_pre: np.ndarray, ew: MessageCosts, ns: MessageCosts,
            ns_coupled: np.ndarray | None = None) -> np.ndarray:
    """r4 for every process, with its own neighbours' terms (0 where it
    has none): an (m, n) array.

    A coupled y face also waits, each tile, for its receiver to post: the
    receiver takes its x face first, which arrives Total_comm of its west
    pair after both senders finished the tile, while the sender is ready
    after its own Send_E. So it waits max(0, that Total_comm - Send_E):
    nothing inside the array (both are the same coupled transfer), a whole
    transfer in the last column, which has no Send_E (a 2 x 2 array)."""
    m, n = ns.send.shape[0] + 1, ew.send.shape[1] + 1
    zero_row = np.zeros((1, n))
    zero_col = np.zeros((m, 1))
    receive_w = np.hstack([zero_col, ew.recv])
    receive_n = np.vstack([zero_row, ns.recv])
    send_e = np.hstack([ew.send, zero_col])
    send_s = np.vstack([ns.send, zero_row])
    wait = np.zeros((m, n))
    if ns_coupled is not None and ns_coupled.any():
        # [j, i]: the receiver (row j+1, column i)'s x face: the pair from column i-1.
        arrives = np.hstack([np.zeros((m - 1, 1)), ew.total[1:, :]])
        wait[:-1, :] = np.where(ns_coupled, np.maximum(0.0, arrives - send_e[:-1, :]), 0.0)
    return np.asarray((receive_w + receive_n + w + send_e + send_s + w_pre + wait) * tiles - w_pre)
