"""The options of the distance and network-access benchmarks (they share
them): every default, once."""
from __future__ import annotations

from dataclasses import dataclass

from .._argtypes import size_arg
from .._protocol import option
from .._validate import Range

#: Servet 3.0's message size.
DEFAULT_SIZE = 32 << 20
DEFAULT_CAP_S = 2.0


@dataclass(frozen=True)
class NetworkOptions:
    size: int = option(DEFAULT_SIZE, "--net-size", "message size, as Servet 3.0", metavar="SIZE", type=size_arg,
                       size=True, range=Range(1, 1 << 30, size=True))
    nodes: int | None = option(None, "--net-nodes", "nodes the distance benchmark uses, at most the job's",
                               metavar="N", type=int, default_text="all nodes of the job", range=Range(2, 1 << 20))
    cap_s: float = option(DEFAULT_CAP_S, "--net-cap", "time cap per distance or processes-per-node step",
                          metavar="S", type=float, range=Range(0, 600, lo_open=True, unit="s"))
    rse: float = 0.02
