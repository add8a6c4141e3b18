"""WARPP's simulation (Hammond et al. 2009, section 4.2): a Program's
events timed on a machine, then replayed. Compute events take their
seconds divided by the core speed; a message between two ranks pays the
network profile's region for its size and for the class of the pair (the
placement decides it): the sender t_send, the receiver t_recv (section
5.1). The replay gives the run time and, per rank, the compute, send,
receive and idle totals Figure 3 draws.

Sends are eager by default (those above the program's eager limits are
coupled to their receive, _coupling.py), as the contract the wavefront kernel and model
share (_params.py): a hop then costs Table 2's Total_comm = t_send + t_recv
and the simulation agrees with the model where the model is exact;
sends="blocking" replays WARPP's rendezvous instead (_replay.py).

Where the profile splits a class into CPU overheads and wire time
(_profile.py), an eager send holds its sender o_s, then the message holds
the link of its pair of ranks (one direction) for its wire time g (LogP's
gap), one message after the other, and arrives `total - o_s - o_r` after it entered the link; the
receiver is busy o_r. Without the split a message has no wire time and
arrives when its send ends, as before. The blocking replay always prices
messages as Hammond does (t_send, t_recv): a rendezvous has no overlap.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._bounds import Cost, check_cost, program_cost
from ._classes import CLASSES
from ._contention import pair_slowdowns
from ._coupling import coupled_program
from ._errors import PredictError
from ._placement import Placement
from ._profile import MessageCosts, NetworkProfile
from ._program import COMPUTE, SEND, Program
from ._replay import SEND_MODES, replay

__all__ = ["Simulation", "event_durations", "message_timing", "simulate"]


@dataclass(frozen=True, eq=False)
class Simulation:
    """A simulated run: seconds, per rank where an array."""

    total: float               #: the run time: the last rank's finish (seconds)
    finish: np.ndarray         #: when each rank finished (seconds)
    compute: np.ndarray        #: seconds computing, per rank
    send: np.ndarray           #: seconds sending
    recv: np.ndarray           #: seconds receiving
    idle: np.ndarray           #: seconds waiting for a partner or a message
    placement: Placement
    core_speed: float = 1.0
    sends: str = "eager"
    profile_source: str = ""

    @property
    def nranks(self) -> int:
        return int(self.finish.size)

    def fractions(self) -> dict[str, np.ndarray]:
        """Per rank, the share of its finish time in each state (Figure 3)."""
        span = np.where(self.finish > 0, self.finish, 1.0)
        return {name: getattr(self, name) / span for name in ("compute", "send", "recv", "idle")}

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a results file (seconds; lists per rank)."""
        return {"total_s": self.total, "nranks": self.nranks, "core_speed": self.core_speed,
                "sends": self.sends, "profile": self.profile_source,
                "per_rank_s": {name: getattr(self, name).tolist()
                               for name in ("finish", "compute", "send", "recv", "idle")},
                "placement": self.placement.to_dict()}


def simulate(program: Program, profile: NetworkProfile, placement: Placement, core_speed: float = 1.0,
             sends: str = "eager") -> Simulation:
    """Replay `program` with its messages costed by `profile` for the pair
    classes of `placement` and its compute seconds divided by `core_speed`
    (2.0: cores twice as fast). Raises a one-line error when the placement
    does not fit the program, the profile lacks a class the placement
    needs, or the speed is not a positive finite number."""
    if sends not in SEND_MODES:
        raise PredictError(f"sends must be one of {', '.join(SEND_MODES)}, got {sends!r}")
    busiest = int(np.diff(program.offsets).max(initial=0))
    check_cost(program_cost(program.nevents, program.nranks, busiest, sends), _what(program),
               "simulate fewer ranks or fewer events, or use the analytical model (wavefront())")
    if sends == "eager":
        # Messages above the eager limit: coupled to their receive (_coupling.py).
        coupling = coupled_program(program, placement)
        if coupling is not None:
            program = coupling.program
        duration, wire, flight = message_timing(program, profile, placement, core_speed)
        if coupling is not None:
            coupling.price(profile, duration, wire, flight, _slowdowns_of(program, profile, placement, coupling.sends))
        r = replay(program, duration, sends=sends, wire=wire, flight=flight)
    else:
        r = replay(program, event_durations(program, profile, placement, core_speed), sends=sends)
    return Simulation(total=r.total, finish=r.finish, compute=r.compute, send=r.send, recv=r.recv, idle=r.idle,
                      placement=placement, core_speed=float(core_speed), sends=sends,
                      profile_source=profile.source)


def event_durations(program: Program, profile: NetworkProfile, placement: Placement,
                    core_speed: float = 1.0) -> np.ndarray:
    """Seconds of every event of `program` with Hammond's prices (t_send,
    t_recv; see `simulate`)."""
    duration, comm, costs, is_send = _priced(program, profile, placement, core_speed, split=False)
    if comm.size:
        duration[comm] = np.where(is_send, costs.send, costs.recv)
    return duration


def message_timing(program: Program, profile: NetworkProfile, placement: Placement,
                   core_speed: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(duration, wire, flight) per event for the eager replay: duration as
    event_durations but with each class's overheads where the profile has
    them; for sends, the seconds the message holds its link (g) and
    the seconds from entering the link to arriving (total - o_s - o_r, at
    least the wire time); 0 elsewhere."""
    duration, comm, costs, is_send = _priced(program, profile, placement, core_speed, split=True)
    wire, flight = np.zeros(duration.shape), np.zeros(duration.shape)
    if comm.size:
        duration[comm] = np.where(is_send, costs.send, costs.recv)
        at = comm[is_send]
        wire[at] = costs.wire[is_send]
        flight[at] = np.maximum(costs.total - costs.send - costs.recv, costs.wire)[is_send]
    return duration, wire, flight


def _contention_codes(program: Program, profile: NetworkProfile, placement: Placement, owner: np.ndarray,
                      comm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct bandwidth divisors of the messages' events (ratNC of
    their sharing ranks, profile.access; _contention.py) and each event's
    index among them: ([1.0], zeros) when the profile has no ratNC. A send
    and its receive are one message (sender -> receiver) and share it."""
    if profile.access is None:
        return np.ones(1), np.zeros(comm.size, dtype=np.int64)
    sender = np.where(program.kind[comm] == SEND, owner, program.peer[comm])
    receiver = np.where(program.kind[comm] == SEND, program.peer[comm], owner)
    slow = pair_slowdowns(profile.access, np.asarray(placement.node), sender, receiver)
    if slow is None:
        return np.ones(1), np.zeros(comm.size, dtype=np.int64)
    values, index = np.unique(slow, return_inverse=True)
    return values, index.reshape(-1)


def _slowdowns_of(program: Program, profile: NetworkProfile, placement: Placement,
                  events: np.ndarray) -> np.ndarray | None:
    """The bandwidth divisor (measured ratNC) of each of `events`, counted
    over every message of `program` as _priced counts it; None without ratNC."""
    owner = program.rank_of_events()
    comm = np.flatnonzero(program.kind != COMPUTE)
    values, index = _contention_codes(program, profile, placement, owner[comm], comm)
    if values.size == 1 and values[0] == 1.0:
        return None
    per_event = np.ones(program.kind.size)
    per_event[comm] = values[index]
    return np.asarray(per_event[events], dtype=float)


def _what(program: Program) -> str:
    return f"simulating this program ({program.nranks:,} ranks, {program.nevents:,} events)"


def _priced(program: Program, profile: NetworkProfile, placement: Placement, core_speed: float,
            split: bool) -> tuple[np.ndarray, np.ndarray, MessageCosts, np.ndarray]:
    """Compute durations, the positions of the messages' events, their
    costs (MessageCosts over those events; Hammond's unless `split`) and
    which of them are sends."""
    if not (isinstance(core_speed, (int, float)) and math.isfinite(core_speed) and core_speed > 0):
        raise PredictError(f"core_speed must be a finite number > 0 (1.0: as measured), got {core_speed!r}")
    if placement.nranks != program.nranks:
        raise PredictError(f"the placement has {placement.nranks} ranks, the program {program.nranks}")
    # The prices of every event: durations, the messages' indexes, owners,
    # classes and costs (about 64 bytes an event; _bounds.py).
    check_cost(Cost(bytes=64 * program.nevents, seconds=0.0, events=program.nevents), _what(program),
               "price fewer events, or use the analytical model (wavefront())")
    duration = np.where(program.kind == COMPUTE, program.value / float(core_speed), 0.0)
    comm = np.flatnonzero(program.kind != COMPUTE)
    if not comm.size:
        empty = np.zeros(0)
        return duration, comm, MessageCosts(empty, empty, empty, empty), np.zeros(0, dtype=bool)
    owner = program.rank_of_events()[comm]
    klass = placement.pair_class(owner, program.peer[comm])
    profile.require(CLASSES[int(k)] for k in np.flatnonzero(np.bincount(klass, minlength=len(CLASSES))))
    size = program.value[comm]
    # Few distinct sizes in any real program: cost each (size, class,
    # contention) triple once and look the millions of messages up, not the
    # other way round.
    sizes, which = np.unique(size, return_inverse=True)
    slowdowns, slow_code = _contention_codes(program, profile, placement, owner, comm)
    width = len(CLASSES) * slowdowns.size
    grid_size = np.repeat(sizes, width)
    grid_class = np.tile(np.repeat(np.arange(len(CLASSES)), slowdowns.size), sizes.size)
    grid_slow = np.tile(slowdowns, sizes.size * len(CLASSES))
    used = np.zeros(sizes.size * width, dtype=bool)
    code = which.reshape(-1) * width + klass.astype(np.int64) * slowdowns.size + slow_code
    used[code] = True
    table = [np.zeros(used.size) for _ in range(4)]
    slow = None if slowdowns.size == 1 and slowdowns[0] == 1.0 else grid_slow[used]
    if split:
        c = profile.message_costs(grid_size[used], grid_class[used], slow)
        parts = (c.send, c.recv, c.total, c.wire)
    else:
        send, recv = profile.costs(grid_size[used], grid_class[used], slow)
        parts = (send, recv, send + recv, np.zeros_like(send))
    for column, part in zip(table, parts):
        column[used] = part
    is_send = program.kind[comm] == SEND
    return duration, comm, MessageCosts(*(column[code] for column in table)), is_send
