"""Sends above the eager limit in the simulator: each coupled to its
receive (_eager.py says why and when).

The eager replay (_replay.py) has one semantics for every message. A
coupled message is made of eager pieces instead: before the receive, the
receiver sends a zero-byte, zero-cost "ready" to the sender; before the
send, the sender receives it; then the data goes, the send holding the
sender for the whole message (Total_comm) and arriving when it ends, the
receive costing nothing more. So the transfer starts when both sides have
reached it and holds both for Total_comm, as the model prices it
(Send_X = Receive_X = Total_comm_X), on the replay that already exists.

Matching is pair by pair in program order, as Program.check's: the ready
signals of a pair travel against its data, in the same order on both
sides, which holds for any program whose two ranks meet their exchanges in
one order (every wavefront program does).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._classes import CLASSES
from ._eager import coupled_mask
from ._placement import Placement
from ._profile import NetworkProfile
from ._program import RECV, SEND, Program

__all__ = ["Coupling", "coupled_program", "with_ready_signals"]


def _matched(program: Program) -> tuple[np.ndarray, np.ndarray]:
    """(send index, receive index) of every message, matched pair by pair
    in program order."""
    n = program.nranks
    owner = program.rank_of_events()
    send = np.flatnonzero(program.kind == SEND)
    recv = np.flatnonzero(program.kind == RECV)
    # Within one code (src * n + dst) the events of one rank are in index
    # order, which is program order: a stable sort by code ranks them.
    send_sorted = send[np.argsort(owner[send] * n + program.peer[send], kind="stable")]
    recv_sorted = recv[np.argsort(program.peer[recv] * n + owner[recv], kind="stable")]
    return send_sorted, recv_sorted


def with_ready_signals(program: Program, coupled_sends: np.ndarray) -> tuple[Program, np.ndarray, np.ndarray]:
    """`program` with a ready signal before each of `coupled_sends` (event
    indexes of sends) and its receive: the new program, the new indexes of
    the old events, and a mask of the inserted events."""
    send, recv = _matched(program)
    chosen = np.isin(send, coupled_sends)
    owner = program.rank_of_events()
    before = np.zeros(program.nevents, dtype=np.int64)   # events inserted before each old event
    before[send[chosen]] = 1
    before[recv[chosen]] = 1
    moved = np.arange(program.nevents) + np.cumsum(before)
    total = program.nevents + int(before.sum())
    kind = np.empty(total, dtype=np.uint8)
    peer = np.empty(total, dtype=np.int64)
    value = np.zeros(total)
    kind[moved], peer[moved], value[moved] = program.kind, program.peer, program.value
    inserted = np.ones(total, dtype=bool)
    inserted[moved] = False
    # Before a coupled send, its sender receives "ready" from the receiver;
    # before the matching receive, the receiver sends it.
    at = moved[before.astype(bool)] - 1
    was_send = program.kind[before.astype(bool)] == SEND
    kind[at] = np.where(was_send, RECV, SEND)
    peer[at] = program.peer[before.astype(bool)]
    per_rank = np.bincount(owner, weights=before, minlength=program.nranks).astype(np.int64)
    offsets = program.offsets + np.concatenate([[0], np.cumsum(per_rank)])
    out = Program(offsets=offsets, kind=kind, peer=peer, value=value, eager_limits=program.eager_limits)
    out.check()
    return out, moved, inserted


@dataclass(frozen=True, eq=False)
class Coupling:
    """A program with its coupled messages made of eager pieces: the new
    program, the new indexes of the coupled sends and of their receives,
    the inserted ready signals (a mask over the new events), and the
    coupled messages' bytes and classes (indexes into CLASSES)."""

    program: Program
    sends: np.ndarray
    receives: np.ndarray
    inserted: np.ndarray
    sizes: np.ndarray
    classes: np.ndarray

    def price(self, profile: NetworkProfile, duration: np.ndarray, wire: np.ndarray, flight: np.ndarray,
              slowdowns: np.ndarray | None = None) -> None:
        """Change the eager replay's (duration, wire, flight) of the new
        program in place: ready signals free, a coupled send holding its
        sender for the whole message and arriving as it ends, its receive
        free. `slowdowns`: the bandwidth divisor of each coupled send (the
        measured ratNC its message pays, as the rest of the replay prices
        it; None: none)."""
        profile.require(CLASSES[int(k)] for k in np.unique(self.classes))
        total = profile.message_costs(self.sizes, self.classes, slowdowns).total
        for array in (duration, wire, flight):
            array[self.inserted] = 0.0
            array[self.sends] = 0.0
            array[self.receives] = 0.0
        duration[self.sends] = total


def coupled_program(program: Program, placement: Placement) -> Coupling | None:
    """The Coupling of `program` under its eager limits and `placement`'s
    classes, or None when no message is above its class's limit."""
    if not program.eager_limits:
        return None
    owner = program.rank_of_events()
    send = np.flatnonzero(program.kind == SEND)
    if not send.size:
        return None
    klass = placement.pair_class(owner[send], program.peer[send])
    mask = coupled_mask(program.value[send], klass, dict(program.eager_limits))
    if not mask.any():
        return None
    coupled = send[mask]                 # ascending, as send
    new, moved, inserted = with_ready_signals(program, coupled)
    send_sorted, recv_sorted = _matched(program)
    chosen = np.isin(send_sorted, coupled)
    # The receives in the order of their sends' indexes (coupled's order).
    receives = recv_sorted[chosen][np.argsort(send_sorted[chosen])]
    return Coupling(program=new, sends=moved[coupled], receives=moved[receives], inserted=inserted,
                    sizes=program.value[coupled], classes=np.asarray(klass[mask], dtype=np.int64))
