"""The options of the comm benchmark: every default, once (the library
functions' own defaults are the same constants)."""
from __future__ import annotations

from dataclasses import dataclass

from .._adaptive import DEFAULT_RSE
from .._argtypes import size_arg
from .._protocol import option
from .._validate import Range
from ._layerplan import DEFAULT_SAMPLE, PAIR_MODES
from ._layers import DEFAULT_TOLERANCE
from ._sweep import CAP_S, DEFAULT_MAX_SIZE, MAX_MESSAGE


@dataclass(frozen=True)
class CommOptions:
    max_size: int = option(DEFAULT_MAX_SIZE, "--comm-max", "largest message; sizes are 0 and powers of two up to it",
                           metavar="SIZE", type=size_arg, size=True, range=Range(1, MAX_MESSAGE, size=True))
    cap_s: float = option(CAP_S, "--comm-cap", "time cap per message size in seconds", metavar="S",
                          type=float, range=Range(0, 60, lo_open=True, unit="s"))
    rse: float = option(DEFAULT_RSE, "--comm-rse", "stop repeating once the median's relative standard error is "
                        "below this", metavar="F", type=float, range=Range(0, 1, lo_open=True, hi_open=True))
    probe_size: int | None = option(None, "--comm-probe", "message size for the pair latencies of Servet's "
                                    "layers", metavar="SIZE", type=size_arg, default_text="the L1 size",
                                    range=Range(0, MAX_MESSAGE, size=True))
    layer_tolerance: float = option(DEFAULT_TOLERANCE, "--comm-layer-tolerance", "relative latency gap that "
                                    "separates two layers", metavar="F", type=float,
                                    range=Range(0, 10, lo_open=True))
    pairs: str = option("auto", "--comm-pairs", "pairs of ranks whose latency Servet's layers measure: auto, one "
                        "per class of relation (what the two ranks share on a node, or their nodes' distance) "
                        "plus checks; all, every pair", choices=PAIR_MODES)
    sample: int = option(DEFAULT_SAMPLE, "--comm-sample", "random pairs that check the classes in auto mode",
                         metavar="N", type=int, range=Range(0, 10000))
