"""The discrete-event replay of a Program (Hammond et al. 2009, section
4.2: WARPP): every rank runs its events in order; a compute event takes its
time; a send and the matching receive (the next unmatched receive of the
receiver from the sender, pair by pair in program order) are blocking: the
transfer starts when both sides have reached it, then the sender is busy
for its send time and the receiver for its receive time. Waiting for the
partner is idle time. Per rank the totals of compute, send, receive and
idle time are kept, as WARPP's per-processor breakdown (Figure 3).

Because every event's start depends only on the events before it on its
rank and on its partner's matching event, the times do not depend on the
order in which the simulator visits ranks. The replay therefore advances
all ranks at once, NumPy-wide: in each round every rank runs its compute
events up to its next send or receive, then every send whose partner has
reached the matching receive completes. A round in which nothing moves
while ranks are unfinished is a deadlock (each of those ranks waits for a
partner that waits elsewhere), reported as such, never a hang. Rounds are at
most the events of the longest rank plus the length of the longest chain of
waits, and each costs a few vector operations over the ranks: 4096 ranks
with millions of events replay in seconds.

That is WARPP's blocking transfer (sends="blocking", the default). The
contract the wavefront kernel and model share (_params.py) has eager sends
instead (sends="eager"): the sender never waits, it is busy t_send from
when it reaches the send, the message arrives when that ends, and the
receiver is busy t_recv from when it has both reached the receive and the
message has arrived; so a hop costs t_send + t_recv on the critical path,
as Table 2's Total_comm. Replayed the same way, one event per rank per
pass, a receive whose message has not been sent yet holding its rank.
Given wire and flight times per send (_simulate.py, for transports that
move messages beside the CPU), a message enters its link when its send
ends and the link is free, holds it for its wire time and arrives its
flight time after entering.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._errors import Deadlock, PredictError
from ._program import COMPUTE, RECV, SEND, Program


@dataclass(frozen=True)
class Replay:
    """What a replay gives: seconds, one value per rank."""

    finish: np.ndarray      #: when each rank ran its last event
    compute: np.ndarray     #: time computing
    send: np.ndarray        #: time sending (t_send of each message)
    recv: np.ndarray        #: time receiving (t_recv of each message)
    idle: np.ndarray        #: time waiting for a partner
    rounds: int             #: rounds the replay took

    @property
    def total(self) -> float:
        """The program's run time: the last rank's finish (seconds)."""
        return float(self.finish.max()) if self.finish.size else 0.0


#: The transfer semantics replay() knows (see the module docstring).
SEND_MODES = ("blocking", "eager")


def replay(program: Program, duration: np.ndarray, sends: str = "blocking", wire: np.ndarray | None = None,
           flight: np.ndarray | None = None) -> Replay:
    """Replay `program` with `duration[i]` seconds for event i: compute
    time, send time (sender) or receive time (receiver); `sends` is
    "blocking" (WARPP) or "eager" (the wavefront contract), see the module
    docstring. Eager only: `wire[i]` seconds a send's message holds the link
    of its pair (one message at a time), `flight[i]` seconds from entering
    the link to arriving (both 0 if not given: the message arrives when its
    send ends). Raises Deadlock (one line naming the waiting ranks) if it
    cannot finish."""
    duration = _per_event(program, duration, "duration")
    if sends not in SEND_MODES:
        raise PredictError(f"sends must be one of {', '.join(SEND_MODES)}, got {sends!r}")
    if sends == "eager":
        zeros = np.zeros(program.nevents)
        return _replay_eager(program, duration, zeros if wire is None else _per_event(program, wire, "wire"),
                             zeros if flight is None else _per_event(program, flight, "flight"))
    if wire is not None or flight is not None:
        raise PredictError("wire and flight times are for eager sends (a blocking transfer has no link queue)")
    return _replay_blocking(program, duration)


def _replay_blocking(program: Program, duration: np.ndarray) -> Replay:
    """WARPP's replay: rounds of every rank's compute events up to its
    next send or receive, then every send whose receiver has reached the
    matching receive (the module docstring)."""
    n = program.nranks
    # One sentinel event past the end: a finished rank points at it.
    done = program.nevents
    kind = np.append(program.kind, np.uint8(255))
    peer = np.append(program.peer, -1)
    dur = np.append(duration, 0.0)
    last = program.offsets[1:]
    pc = np.where(program.offsets[:-1] < last, program.offsets[:-1], done)
    t = np.zeros(n)
    compute, send, recv, idle = (np.zeros(n) for _ in range(4))
    ranks = np.arange(n)
    rounds = 0
    while True:
        rounds += 1
        moved = False
        # Compute events, up to each rank's next send or receive.
        at = np.flatnonzero(kind[pc] == COMPUTE)
        while at.size:
            moved = True
            d = dur[pc[at]]
            t[at] += d
            compute[at] += d
            pc[at] = _advance(pc[at], last[at], done)
            at = at[kind[pc[at]] == COMPUTE]
        # Sends whose receiver has reached the matching receive.
        s = np.flatnonzero(kind[pc] == SEND)
        if s.size:
            p = peer[pc[s]]
            ok = (kind[pc[p]] == RECV) & (peer[pc[p]] == s)
            s, p = s[ok], p[ok]
        if s.size:
            moved = True
            start = np.maximum(t[s], t[p])
            idle[s] += start - t[s]
            idle[p] += start - t[p]
            ds, dr = dur[pc[s]], dur[pc[p]]
            send[s] += ds
            recv[p] += dr
            t[s] = start + ds
            t[p] = start + dr
            pc[s] = _advance(pc[s], last[s], done)
            pc[p] = _advance(pc[p], last[p], done)
        if not moved:
            waiting = ranks[pc != done]
            if waiting.size:
                raise Deadlock(_deadlock_words(program, pc, waiting), tuple(int(r) for r in waiting))
            return Replay(finish=t, compute=compute, send=send, recv=recv, idle=idle, rounds=rounds)


def _per_event(program: Program, values: ArrayLike, name: str) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    if values.shape != program.kind.shape:
        raise PredictError(f"one {name} per event is needed, got {values.size} for {program.nevents}")
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise PredictError(f"event {name}s must be finite and not negative")
    return values


def _replay_eager(program: Program, duration: np.ndarray, wire: np.ndarray, flight: np.ndarray) -> Replay:
    """The eager replay: every pass, each unfinished rank runs its next
    event if it can (a receive can once its message has arrived). One
    event per rank per pass, all ranks at once: a rank running ahead alone
    (a sweep's corner sends for a whole stack without waiting) would
    otherwise cost one pass per event of its own. A pass runs at most one
    send per rank, so no two sends of a pass share a link (a link is a
    (sender, receiver) pair): the link queues update without conflict."""
    n = program.nranks
    done = program.nevents
    kind = np.append(program.kind, np.uint8(255))
    dur = np.append(duration, 0.0)
    wire = np.append(wire, 0.0)
    flight = np.append(flight, 0.0)
    match = np.append(matching_sends(program), done)
    # Each send's link, and when each link is free again.
    link = np.zeros(done + 1, dtype=np.int64)
    sends = np.flatnonzero(program.kind == SEND)
    _, link[sends] = np.unique(program.rank_of_events()[sends] * n + program.peer[sends], return_inverse=True)
    link_free = np.zeros(max(sends.size, 1))
    # When each send's message arrives (its send's end, or later past a link queue); -1: not sent yet.
    arrival = np.full(done + 1, -1.0)
    last = program.offsets[1:]
    pc = np.where(program.offsets[:-1] < last, program.offsets[:-1], done)
    t = np.zeros(n)
    compute, send, recv, idle = (np.zeros(n) for _ in range(4))
    rounds = 0
    live = np.flatnonzero(pc != done)
    while live.size:
        rounds += 1
        e = pc[live]
        k = kind[e]
        ready = arrival[match[e]]
        # A receive waits for its message; compute and send never wait.
        go = (k != RECV) | (ready >= 0)
        if not go.any():
            raise Deadlock(_deadlock_words(program, pc, live), tuple(int(r) for r in live))
        at, e, k, ready = live[go], e[go], k[go], ready[go]
        d = dur[e]
        now = t[at]
        s = k == SEND
        es = e[s]
        enter = np.maximum(now[s] + d[s], link_free[link[es]])
        link_free[link[es]] = enter + wire[es]
        arrival[es] = enter + flight[es]
        start = np.maximum(now, ready)      # ready is -1 unless a receive
        idle[at] += start - now
        compute[at] += np.where(k == COMPUTE, d, 0.0)
        send[at] += np.where(s, d, 0.0)
        recv[at] += np.where(k == RECV, d, 0.0)
        t[at] = start + d
        pc[at] = _advance(e, last[at], done)
        live = live[pc[live] != done]
    return Replay(finish=t, compute=compute, send=send, recv=recv, idle=idle, rounds=rounds)


def matching_sends(program: Program) -> np.ndarray:
    """For every event, the index of the send its receive matches (the k-th
    receive of rank b from a takes the k-th send of a to b); -1 elsewhere.
    Events are in rank order and program order within a rank, so a stable
    sort by (sender, receiver) lines both lists up pair by pair."""
    n = program.nranks
    owner = program.rank_of_events()
    s = np.flatnonzero(program.kind == SEND)
    r = np.flatnonzero(program.kind == RECV)
    s_order = np.argsort(owner[s] * n + program.peer[s], kind="stable")
    r_order = np.argsort(program.peer[r] * n + owner[r], kind="stable")
    out = np.full(program.nevents, -1, dtype=np.int64)
    out[r[r_order]] = s[s_order]
    return out


def _advance(pc: np.ndarray, last: np.ndarray, done: int) -> np.ndarray:
    """The next event of each rank, or the sentinel past its last one."""
    nxt = pc + 1
    return np.where(nxt < last, nxt, done)


def _deadlock_words(program: Program, pc: np.ndarray, waiting: np.ndarray) -> str:
    """One line: how many ranks wait, and what the first few wait on."""
    shown = []
    for r in waiting[:4]:
        i = int(pc[r])
        what = "send to" if program.kind[i] == SEND else "receive from"
        shown.append(f"rank {r} waits to {what} rank {program.peer[i]} (its event {i - int(program.offsets[r])})")
    more = f" and {waiting.size - 4} more" if waiting.size > 4 else ""
    return f"deadlock: {waiting.size} rank(s) wait for each other: {'; '.join(shown)}{more}"
