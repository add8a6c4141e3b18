"""The tick counter's calibration, measured once per process.

Every kernel times itself in ticks of hpcb_ticks() (the TSC on x86-64);
converting them to seconds needs the tick rate. It is measured on first use
and kept: a run calibrates once, and the same figure goes into the results
file's context block and into every conversion (each MPI rank calibrates its
own clock)."""
from __future__ import annotations

import functools
from dataclasses import dataclass

from . import _core

#: How long the calibration compares the tick counter with CLOCK_MONOTONIC.
CALIBRATION_MS = 60


@dataclass(frozen=True)
class TimerCalibration:
    source: str                  #: "tsc", "cntvct" or "clock_monotonic"
    ticks_per_ns: float
    resolution_ticks: float
    overhead_ticks: float        #: median cost of one timed empty interval
    resolution_ns: float
    overhead_ns: float
    calibration_ns: float

    @property
    def ticks_per_second(self) -> float:
        return self.ticks_per_ns * 1e9

    def to_dict(self) -> dict:
        """The context block's `timer` entry, with units."""
        out = dict(self.__dict__)
        out["units"] = {"ticks_per_ns": "ticks/ns", "resolution_ticks": "ticks", "overhead_ticks": "ticks",
                        "resolution_ns": "ns", "overhead_ns": "ns", "calibration_ns": "ns"}
        return out


@functools.lru_cache(maxsize=1)
def calibration() -> TimerCalibration:
    """This process's calibration (measured on the first call)."""
    return TimerCalibration(**_core.timer_calibrate(CALIBRATION_MS))


def ticks_per_second() -> float:
    return calibration().ticks_per_second
