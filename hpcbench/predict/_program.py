"""A parallel program as the simulator sees it: for every rank, an ordered
list of events (compute for t seconds, send x bytes to rank r, receive x
bytes from rank r), as in WARPP's replay of a code's control flow (Hammond
et al. 2009, section 4.2).

The events of all ranks live in flat NumPy arrays (rank r's are
`kind[offsets[r]:offsets[r + 1]]`, ...), so that programs of thousands of
ranks and millions of events are built and replayed without a Python loop
per event. Build one from plain lists (`Program.from_lists`) or from arrays
(`Program.from_arrays`, what the generators use).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._errors import PredictError

#: Event kinds.
COMPUTE, SEND, RECV = 0, 1, 2
KIND_NAMES = {"compute": COMPUTE, "send": SEND, "recv": RECV}


@dataclass(frozen=True, eq=False)
class Program:
    """Per-rank event lists (see the module docstring).

    kind: uint8 COMPUTE/SEND/RECV; peer: the other rank (-1 for compute);
    value: seconds for compute, bytes for send and receive. Events of rank
    r are offsets[r]:offsets[r + 1]. eager_limits: the MPI library's eager
    limits the sends run under, (class, bytes) pairs: the simulator couples
    a larger message to its receive (_coupling.py); empty, every send is
    eager."""

    offsets: np.ndarray
    kind: np.ndarray
    peer: np.ndarray
    value: np.ndarray
    eager_limits: tuple[tuple[str, int], ...] = ()

    @property
    def nranks(self) -> int:
        return int(self.offsets.size - 1)

    @property
    def nevents(self) -> int:
        return int(self.kind.size)

    def rank_of_events(self) -> np.ndarray:
        """The rank of every event (int64, one per event)."""
        return np.repeat(np.arange(self.nranks, dtype=np.int64), np.diff(self.offsets))

    def events_of(self, rank: int) -> list[tuple[Any, ...]]:
        """Rank `rank`'s events as tuples: ("compute", seconds),
        ("send", peer, bytes), ("recv", peer, bytes)."""
        out: list[tuple[Any, ...]] = []
        for i in range(int(self.offsets[rank]), int(self.offsets[rank + 1])):
            k = int(self.kind[i])
            out.append(("compute", float(self.value[i])) if k == COMPUTE else
                       ("send" if k == SEND else "recv", int(self.peer[i]), float(self.value[i])))
        return out

    @classmethod
    def from_arrays(cls, rank: np.ndarray, kind: np.ndarray, peer: np.ndarray, value: np.ndarray,
                    nranks: int) -> Program:
        """A program from one row per event, the rows of each rank in
        program order (the rows of different ranks may interleave: a stable
        sort by rank keeps each rank's order). Checked (see `check`)."""
        rank = np.asarray(rank, dtype=np.int64)
        if not (rank.shape == np.shape(kind) == np.shape(peer) == np.shape(value)) or rank.ndim != 1:
            raise PredictError("rank, kind, peer and value must be one-dimensional arrays of one length")
        if nranks < 1:
            raise PredictError(f"a program needs at least one rank, got {nranks}")
        if rank.size and (rank.min() < 0 or rank.max() >= nranks):
            raise PredictError(f"event ranks must be in 0..{nranks - 1}")
        order = np.argsort(rank, kind="stable")
        counts = np.bincount(rank, minlength=nranks)
        offsets = np.zeros(nranks + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        program = cls(offsets=offsets, kind=np.asarray(kind, dtype=np.uint8)[order],
                      peer=np.asarray(peer, dtype=np.int64)[order], value=np.asarray(value, dtype=float)[order])
        program.check()
        return program

    @classmethod
    def from_lists(cls, ranks: Sequence[Sequence[tuple[Any, ...]]]) -> Program:
        """A program from one list per rank of ("compute", seconds),
        ("send", peer, bytes) and ("recv", peer, bytes)."""
        rows = []
        for r, events in enumerate(ranks):
            for e in events:
                name = e[0] if e else None
                if name not in KIND_NAMES or len(e) != (2 if name == "compute" else 3):
                    raise PredictError(f"rank {r}: an event is ('compute', seconds), ('send', peer, bytes) or "
                                       f"('recv', peer, bytes), got {e!r}")
                if name == "compute":
                    rows.append((r, COMPUTE, -1, e[1]))
                else:
                    rows.append((r, KIND_NAMES[name], e[1], e[2]))
        table = np.array(rows, dtype=float).reshape(-1, 4)
        return cls.from_arrays(table[:, 0].astype(np.int64), table[:, 1].astype(np.uint8),
                               table[:, 2].astype(np.int64), table[:, 3], len(ranks))

    def check(self) -> None:
        """Raise PredictError (one line) unless every event is well formed
        and every receive has its send: each ordered pair of ranks has as
        many sends as receives (matching is in order, pair by pair)."""
        n = self.nranks
        comm = self.kind != COMPUTE
        if np.any(self.kind > RECV):
            raise PredictError("event kinds must be compute, send or recv")
        if not np.all(np.isfinite(self.value)) or np.any(self.value < 0):
            raise PredictError("compute times and message sizes must be finite and not negative")
        owner = self.rank_of_events()
        peers = self.peer[comm]
        if peers.size and (peers.min() < 0 or peers.max() >= n):
            bad = int(np.flatnonzero(comm)[np.argmax((peers < 0) | (peers >= n))])
            raise PredictError(f"rank {owner[bad]} names rank {self.peer[bad]}, which is not in 0..{n - 1}")
        if np.any(peers == owner[comm]):
            bad = int(np.flatnonzero(comm & (self.peer == owner))[0])
            event = bad - int(self.offsets[owner[bad]])
            raise PredictError(f"rank {owner[bad]} sends to or receives from itself (its event {event})")
        send, recv = self.kind == SEND, self.kind == RECV
        diff = _unmatched(owner[send] * n + self.peer[send], self.peer[recv] * n + owner[recv])
        if diff is not None:
            src, dst = divmod(diff, n)
            s = int(np.sum((owner[send] == src) & (self.peer[send] == dst)))
            r = int(np.sum((owner[recv] == dst) & (self.peer[recv] == src)))
            raise PredictError(f"rank {src} sends {s} message(s) to rank {dst}, which receives {r} from it: every "
                               "receive needs its send")


def _unmatched(sent: np.ndarray, received: np.ndarray) -> int | None:
    """The first pair code (src * n + dst) whose sends and receives differ
    in number, or None."""
    codes = np.union1d(sent, received)
    s_codes, s_counts = np.unique(sent, return_counts=True)
    r_codes, r_counts = np.unique(received, return_counts=True)
    s_all = np.zeros(codes.size, dtype=np.int64)
    r_all = np.zeros(codes.size, dtype=np.int64)
    s_all[np.searchsorted(codes, s_codes)] = s_counts
    r_all[np.searchsorted(codes, r_codes)] = r_counts
    bad = np.flatnonzero(s_all != r_all)
    return int(codes[bad[0]]) if bad.size else None
