"""WARPP's simulation (Hammond et al. 2009, section 4.2): a Program's
events timed on a machine, then replayed. Compute events take their
seconds divided by the core speed; a message between two ranks pays the
network profile's region for its size and for the class of the pair (the
placement decides it): the sender t_send, the receiver t_recv (section
5.1). The replay gives the run time and, per rank, the compute, send,
receive and idle totals Figure 3 draws.

Sends are eager by default, as the contract the wavefront kernel and model
share (_params.py): a hop then costs Table 2's Total_comm = t_send + t_recv
and the simulation agrees with the model where the model is exact;
sends="blocking" replays WARPP's rendezvous instead (_replay.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._classes import CLASSES
from ._placement import Placement, PlacementError
from ._profile import NetworkProfile
from ._program import COMPUTE, SEND, Program
from ._replay import SEND_MODES, replay

__all__ = ["Simulation", "SimulationError", "event_durations", "simulate"]


class SimulationError(ValueError):
    """A simulation that cannot be set up; the message is one line."""


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

    def to_dict(self) -> dict:
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
    duration = event_durations(program, profile, placement, core_speed)
    if sends not in SEND_MODES:
        raise SimulationError(f"sends must be one of {', '.join(SEND_MODES)}, got {sends!r}")
    r = replay(program, duration, sends=sends)
    return Simulation(total=r.total, finish=r.finish, compute=r.compute, send=r.send, recv=r.recv, idle=r.idle,
                      placement=placement, core_speed=float(core_speed), sends=sends,
                      profile_source=profile.source)


def event_durations(program: Program, profile: NetworkProfile, placement: Placement,
                    core_speed: float = 1.0) -> np.ndarray:
    """Seconds of every event of `program` (see `simulate`)."""
    if not (isinstance(core_speed, (int, float)) and math.isfinite(core_speed) and core_speed > 0):
        raise SimulationError(f"core_speed must be a finite number > 0 (1.0: as measured), got {core_speed!r}")
    if placement.nranks != program.nranks:
        raise PlacementError(f"the placement has {placement.nranks} ranks, the program {program.nranks}")
    duration = np.where(program.kind == COMPUTE, program.value / float(core_speed), 0.0)
    comm = np.flatnonzero(program.kind != COMPUTE)
    if not comm.size:
        return duration
    owner = program.rank_of_events()[comm]
    klass = placement.pair_class(owner, program.peer[comm])
    profile.require(CLASSES[int(k)] for k in np.flatnonzero(np.bincount(klass, minlength=len(CLASSES))))
    size = program.value[comm]
    # Few distinct sizes in any real program: cost each (size, class) pair
    # once and look the millions of messages up, not the other way round.
    sizes, which = np.unique(size, return_inverse=True)
    width = len(CLASSES)
    grid_size = np.repeat(sizes, width)
    grid_class = np.tile(np.arange(width), sizes.size)
    used = np.zeros(sizes.size * width, dtype=bool)
    code = which.reshape(-1) * width + klass
    used[code] = True
    t_send, t_recv = np.zeros(used.size), np.zeros(used.size)
    t_send[used], t_recv[used] = profile.costs(grid_size[used], grid_class[used])
    is_send = program.kind[comm] == SEND
    duration[comm] = np.where(is_send, t_send[code], t_recv[code])
    return duration
