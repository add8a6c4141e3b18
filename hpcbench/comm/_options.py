"""The options of the comm benchmark: every default, once (the library
functions' own defaults are the same constants)."""
from __future__ import annotations

from dataclasses import dataclass

from .._adaptive import DEFAULT_CAP_S, DEFAULT_RSE
from .._argtypes import size_arg
from .._protocol import option
from .._validate import Range
from ._layers import DEFAULT_TOLERANCE
from ._sweep import DEFAULT_MAX_SIZE, MAX_MESSAGE


@dataclass(frozen=True)
class CommOptions:
    max_size: int = option(DEFAULT_MAX_SIZE, "--comm-max", "largest message; sizes are 0 and powers of two up to it",
                           metavar="SIZE", type=size_arg, size=True, range=Range(1, MAX_MESSAGE, size=True))
    cap_s: float = option(DEFAULT_CAP_S, "--comm-cap", "time cap per message size in seconds", metavar="S",
                          type=float, range=Range(0, 60, lo_open=True, unit="s"))
    rse: float = option(DEFAULT_RSE, "--comm-rse", "stop repeating once the median's relative standard error is "
                        "below this", metavar="F", type=float, range=Range(0, 1, lo_open=True, hi_open=True))
    probe_size: int | None = option(None, "--comm-probe", "message size for the all-pairs latency of Servet's "
                                    "layers", metavar="SIZE", type=size_arg, default_text="the L1 size",
                                    range=Range(0, MAX_MESSAGE, size=True))
    layer_tolerance: float = option(DEFAULT_TOLERANCE, "--comm-layer-tolerance", "relative latency gap that "
                                    "separates two layers", metavar="F", type=float,
                                    range=Range(0, 10, lo_open=True))
