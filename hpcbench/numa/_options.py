"""The options of the numa benchmark: every default, once."""
from __future__ import annotations

import argparse
from dataclasses import dataclass

from .._argtypes import size_arg
from .._protocol import option
from .._validate import Range
from ..topology._pairs import parse_pu_list


def node_list_arg(text: str) -> list:
    """'0-1,3' -> [0, 1, 3] (NUMA node OS indexes)."""
    try:
        return sorted(set(parse_pu_list(text)))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a NUMA node list is numbers and ranges like 0-1,3, got {text!r}") from None


@dataclass(frozen=True)
class NumaOptions:
    nodes: list | None = option(None, "--numa-nodes", "NUMA nodes (OS indexes) whose cores and memory are paired, "
                                "e.g. 0-1,3", metavar="LIST", type=node_list_arg,
                                default_text="every NUMA node of the machine")
    size: int | None = option(None, "--numa-size", "bytes of the buffer bound to each node in turn (read by each "
                              "node's cores, then chased by one of them)", metavar="SIZE", type=size_arg,
                              default_text="4 x the largest cache, at least 64 MiB, or 4 x the "
                              "cache of a node's cores at one level where more")
    repetitions: int = option(10, "--numa-reps", "timed reads of the buffer, and timed chase samples, per pair "
                              "of nodes", metavar="N", type=int, range=Range(1, 1000))
    accesses: int = option(200_000, "--numa-accesses", "dependent loads per chase sample", metavar="N", type=int,
                           range=Range(1000, 1 << 30))
    pages: str = "normal"
    seed: int = 1
