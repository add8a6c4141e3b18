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

import numpy as np

from .. import _core
from .._memory import page_mode
from ..topology import PairPlan
from ._measure import ORDERS
from ._options import CacheOptions, SharedOptions

_C, _S = CacheOptions(), SharedOptions()


def measure_co_runs(plan: PairPlan, corun_size: int, stride: int = 64, order: str = "windowed",
                    window: int = _C.window, pages: str = _C.pages, samples: int = _S.samples,
                    rounds: int = _S.rounds, min_accesses: int = 1 << 18, seed: int = _S.seed,
                    progress: Callable[[str], None] | None = None, label: str = "") -> dict:
    """Raw co-run samples for the plan's tested pairs at one array size.

    Returns {"pairs": [...], "alone": array (pairs, rounds, 2, samples),
    "together": same shape}, in TSC ticks per access."""
    if order not in ORDERS:
        raise ValueError(f"order must be sequential, random or windowed, got {order!r}")
    pairs = list(plan.tested)
    shape = (len(pairs), rounds, 2, samples)
    alone, together = np.empty(shape), np.empty(shape)
    rng = np.random.default_rng(seed)
    common = dict(order=ORDERS[order], min_accesses=min_accesses, warmup=1, samples=samples,
                  page_mode=page_mode(pages), window_bytes=window)
    for r in range(rounds):
        for i in map(int, rng.permutation(len(pairs))):
            a, b = pairs[i]
            run_seed = int(rng.integers(1, 2**62))
            for m, pu in enumerate((a, b)):
                alone[i, r, m] = _core.traverse_team([pu], corun_size, stride, seed=run_seed + m, **common)[0][0]
            together[i, r] = _core.traverse_team([a, b], corun_size, stride, seed=run_seed, **common)[0]
        if progress:
            progress(f"{label}round {r + 1}/{rounds} of {len(pairs)} pair(s) done")
    return {"pairs": pairs, "alone": alone, "together": together}
