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
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._program import COMPUTE, RECV, SEND, Program, ProgramError


class Deadlock(ProgramError):
    """The program cannot finish: some ranks wait for each other."""


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


def replay(program: Program, duration: np.ndarray) -> Replay:
    """Replay `program` with `duration[i]` seconds for event i: compute
    time, send time (sender) or receive time (receiver). Raises Deadlock
    (one line naming the waiting ranks) if it cannot finish."""
    duration = np.asarray(duration, dtype=float)
    if duration.shape != program.kind.shape:
        raise ProgramError(f"one duration per event is needed, got {duration.size} for {program.nevents}")
    if not np.all(np.isfinite(duration)) or np.any(duration < 0):
        raise ProgramError("event durations must be finite and not negative")
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
                raise Deadlock(_deadlock_words(program, pc, waiting))
            return Replay(finish=t, compute=compute, send=send, recv=recv, idle=idle, rounds=rounds)


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
