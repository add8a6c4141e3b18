"""The options of the multibsp benchmark: every default, once."""
from __future__ import annotations

from dataclasses import dataclass

from .._protocol import option
from .._validate import Range


@dataclass(frozen=True)
class MultiBSPOptions:
    hmax: int | None = option(None, "--mbsp-hmax", "largest h of the h-communications, the same for every level "
                              "(default: chosen per level from a pilot sweep and the level's memory, "
                              "docs/multibsp.md)", metavar="H", type=int, range=Range(1, 65536))
    iterations: int = option(1000, "--mbsp-niters", "supersteps per timed block (10 blocks per h)", metavar="N",
                             type=int, range=Range(1, 100000))
    max_exponent: int = option(24, "--mbsp-max-vector", "largest inner-product vector: 2^E doubles", metavar="E",
                               type=int, range=Range(8, 28))
    blocks: int = 10                #: timed blocks per h
    warmup: int = 20                #: untimed supersteps per h
    reps: int = 5                   #: timed runs of each inner product
