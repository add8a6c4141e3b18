"""Co-run measurements for the shared-cache benchmark (Servet 2010, Fig. 5).

For every tested pair and every round, three runs of the mcalibrator kernel
(hpcbench._core.traverse_team, timed loops in C): core a alone, core b alone,
then a and b at once, each with its own array. Measuring each pair's own
cores alone, next to the co-run, keeps the ratio honest when cores differ or
the machine's load drifts during the benchmark. Pairs are visited in a new
random order every round, so a burst of interference touches one round of a
few pairs, and the ratio takes the median over rounds.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .. import _core
from .._errors import OptionError
from .._memory import page_mode
from ..topology._pairs import PairPlan
from ._options import CacheOptions, SharedOptions
from ._resolve import ORDERS

_C, _S = CacheOptions(), SharedOptions()


@dataclass(frozen=True)
class CoRunSettings:
    """How measure_co_runs runs each chase; every field is also a keyword
    of measure_co_runs."""

    stride: int = 64                  #: bytes between the slots a chase visits
    order: str = "windowed"           #: visiting order: sequential, random or windowed
    window: int = _C.window           #: bytes shuffled together by the windowed order
    pages: str = _C.pages             #: page kind of each array
    samples: int = _S.samples         #: timings per run
    rounds: int = _S.rounds           #: times every pair is measured, in a new order each time
    min_accesses: int = 1 << 18       #: loads per timed sample, at least
    seed: int = _S.seed

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise OptionError("order", f"must be sequential, random or windowed, got {self.order!r}")

    def kernel_arguments(self) -> dict[str, Any]:
        """The keywords of every _core.traverse_team call but the seed."""
        return dict(order=ORDERS[self.order], min_accesses=self.min_accesses, warmup=1, samples=self.samples,
                    page_mode=page_mode(self.pages), window_bytes=self.window)


def measure_co_runs(plan: PairPlan, corun_size: int, settings: CoRunSettings | None = None, *,
                    progress: Callable[[str], None] | None = None, label: str = "",
                    **keywords: Any) -> dict[str, Any]:
    """Raw co-run samples for the plan's tested pairs at one array size
    (bytes). settings (CoRunSettings), each field of which may also be given
    as a keyword (stride=, order=, window=, pages=, samples=, rounds=,
    min_accesses=, seed=), overriding `settings`; progress, if given, hears
    `label` and the rounds done.

    Returns {"pairs": [...], "alone": array (pairs, rounds, 2, samples),
    "together": same shape}, in TSC ticks per access."""
    s = replace(settings or CoRunSettings(), **keywords)
    pairs = list(plan.tested)
    shape = (len(pairs), s.rounds, 2, s.samples)
    alone, together = np.empty(shape), np.empty(shape)
    rng = np.random.default_rng(s.seed)
    common = s.kernel_arguments()
    for r in range(s.rounds):
        for i in map(int, rng.permutation(len(pairs))):
            a, b = pairs[i]
            run_seed = int(rng.integers(1, 2**62))
            for m, pu in enumerate((a, b)):
                alone[i, r, m] = _core.traverse_team([pu], corun_size, s.stride, seed=run_seed + m, **common)[0][0]
            together[i, r] = _core.traverse_team([a, b], corun_size, s.stride, seed=run_seed, **common)[0]
        if progress:
            progress(f"{label}round {r + 1}/{s.rounds} of {len(pairs)} pair(s) done")
    return {"pairs": pairs, "alone": alone, "together": together}
