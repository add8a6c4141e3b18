"""The options of the memory benchmark: every default, once."""
from __future__ import annotations

from dataclasses import dataclass

from .._argtypes import pu_list_arg, size_arg
from .._protocol import option
from .._validate import Range
from ..topology._pairs import DEFAULT_SAMPLE, MAX_SAMPLE

#: Relative difference that separates "below the reference" and two levels.
DEFAULT_TOLERANCE = 0.10


@dataclass(frozen=True)
class MemoryOptions:
    pairs: str = option("auto", "--memory-pairs", "auto: one pair per hwloc relation plus a random sample; "
                        "all: every pair", choices=("auto", "all"), aliases=("--pairs",))
    cores: list | None = option(None, "--memory-cores", "PUs to test, e.g. 0-3,8", metavar="LIST", type=pu_list_arg,
                                aliases=("--cores",), default_text="every PU this process may use")
    sample: int = option(DEFAULT_SAMPLE, "--memory-sample", "extra random pairs in auto mode", metavar="N",
                         type=int, aliases=("--pair-sample",), range=Range(0, MAX_SAMPLE))
    size: int | None = option(None, "--memory-size", "bytes of each copy array", metavar="SIZE", type=size_arg,
                              default_text="4 x the largest cache, at least 64 MiB")
    tolerance: float = option(DEFAULT_TOLERANCE, "--memory-tolerance", "relative bandwidth difference that counts "
                              "as an overhead or a new level", metavar="F", type=float,
                              range=Range(0, 1, lo_open=True, hi_open=True))
    repetitions: int = option(10, "--memory-reps", "copies per measurement, each some milliseconds", metavar="N",
                              type=int, range=Range(1, 1000))
    rounds: int = option(3, "--memory-rounds", "times every pair is measured, in a new order each time",
                         metavar="N", type=int, aliases=("--rounds",), range=Range(1, 100))
    pages: str = "normal"
    seed: int = 1
