"""The options of the network-map and bisection benchmarks: every default, once."""
from __future__ import annotations

from dataclasses import dataclass

from .._argtypes import size_arg
from .._protocol import option
from .._validate import Range

#: mpiGraph's default message size is 256 KiB; 1 MiB keeps a fast link busy
#: for tens of microseconds, long enough that the barrier's skew is small.
DEFAULT_SIZE = 1 << 20
#: Maps with more members than this measure every pair alone only when asked
#: (n (n - 1) flows one after another).
ALONE_UP_TO = 16
UNITS = ("node", "rank")


@dataclass(frozen=True)
class NetworkMapOptions:
    size: int = option(DEFAULT_SIZE, "--map-size", "message size of the bandwidth map", metavar="SIZE",
                       type=size_arg, size=True, range=Range(1, 1 << 30, size=True))
    iterations: int = option(5, "--map-iterations", "timed messages per flow (after one untimed)", metavar="N",
                             type=int, range=Range(1, 10000))
    latency_iterations: int = option(50, "--map-latency-iterations", "timed round trips of 8 B per pair",
                                     metavar="N", type=int, range=Range(1, 100000))
    alone: str = option("auto", "--map-alone", "also measure every pair alone, the others idle",
                        choices=("auto", "yes", "no"), default_text=f"auto: when at most {ALONE_UP_TO} members")
    unit: str = option("node", "--map-unit", "what a member of the map is: the first rank of each node, or "
                       "every rank", choices=UNITS)


@dataclass(frozen=True)
class BisectionOptions:
    size: int = option(DEFAULT_SIZE, "--bisection-size", "message size each pair exchanges", metavar="SIZE",
                       type=size_arg, size=True, range=Range(1, 1 << 30, size=True))
    bisections: int = option(20, "--bisection-samples", "random bisections drawn", metavar="N", type=int,
                             range=Range(1, 100000))
    iterations: int = option(3, "--bisection-iterations", "timed exchanges per bisection (after one untimed)",
                             metavar="N", type=int, range=Range(1, 10000))
    seed: int = option(1, "--bisection-seed", "seed of the random bisections (the same seed, the same ones)",
                       metavar="N", type=int, range=Range(0, (1 << 63) - 1))
    unit: str = option("node", "--bisection-unit", "what a member is: the first rank of each node, or every rank",
                       choices=UNITS)
