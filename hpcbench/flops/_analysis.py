"""Rates of the FMA chains (pure): per core and of the cores together.

A member's rate in a sample is its flops over its own time. What the team
did together in a sample is all members' flops over the slowest member's
own time, as likwid-bench counts its threads: on registers the cores do not
contend, and a member whose start another process delayed (a time slice is
a few ms, a sample 3) must not count the delay as the team's time, as the
memory benchmark's first-start-to-last-end span would. How much of the
slowest member's time all members really ran together is kept beside it
(`overlap`): the samples must overlap for the figure to be the node's,
e.g. at the clock all cores busy allow."""
from __future__ import annotations

import numpy as np

from ._records import FlopsRate, FlopsRun

#: Team runs whose members ran together for less than this share of the
#: slowest member's time (median over samples) get a warning.
LOW_OVERLAP = 0.5


def sample_rates(run: FlopsRun) -> np.ndarray:
    """flop/s of each member in each sample, (members, samples)."""
    return run.flops_per_sample / (np.asarray(run.ns, dtype=float) * 1e-9)


def together_rates(run: FlopsRun) -> np.ndarray:
    """flop/s of the team in each sample: all members' flops over the
    slowest member's own time."""
    ns = np.asarray(run.ns, dtype=float)
    return ns.shape[0] * run.flops_per_sample / (ns.max(axis=0) * 1e-9)


def overlap(run: FlopsRun) -> float:
    """The share of the slowest member's time in which every member was
    running its sample (the last start to the first end), median over
    samples: 1 for a team that started and ended together."""
    start, end = np.asarray(run.start_ns, dtype=float), np.asarray(run.end_ns, dtype=float)
    common = np.clip(end.min(axis=0) - start.max(axis=0), 0, None)
    return float(np.median(common / np.asarray(run.ns, dtype=float).max(axis=0)))


def overlap_warning(rates: list[FlopsRate]) -> str | None:
    """One line for the team runs whose members hardly ran at the same time."""
    low = [f"{r.isa} {r.precision} on {r.cores} cores ({r.overlap:.2f})" for r in rates
           if r.cores > 1 and r.overlap < LOW_OVERLAP]
    if not low:
        return None
    return (f"peakflops: the cores ran together for under {LOW_OVERLAP:g} of a sample in {', '.join(low[:3])}"
            f"{' and more' if len(low) > 3 else ''}: another process delayed a member's start; the node figure "
            "counts each sample's slowest core, as likwid-bench does, but the cores may not have been busy at once")


def run_rate(run: FlopsRun) -> FlopsRate:
    """The summary of one run (FlopsRate's fields)."""
    rates = sample_rates(run)
    median = float(np.median(rates))
    together = together_rates(run)
    return FlopsRate(isa=run.isa, precision=run.precision, cores=len(run.pus),
                     per_core=float(np.mean(np.median(rates, axis=1))),
                     per_core_spread=float((rates.max() - rates.min()) / median) if median > 0 else 0.0,
                     per_core_max=float(rates.max()), together=float(np.median(together)),
                     together_max=float(together.max()), overlap=overlap(run))


def headline(rates: list[FlopsRate], isa: str) -> tuple[float | None, float | None, int]:
    """(one core, all cores together, how many cores) of `isa` in double
    precision: the best sample of the 1-core run and of the widest team
    together; None where not measured. The best, not the median, as the
    MultiBSP benchmark's r: the peak is what the cores can do, and another
    process on a team PU only slows a sample (on a busy 2-vCPU machine it
    lands in most samples of 3 ms, and the median halves)."""
    mine = [r for r in rates if r.isa == isa and r.precision == "double"]
    one = next((r.per_core_max for r in mine if r.cores == 1), None)
    team = max(mine, key=lambda r: r.cores, default=None)
    return one, None if team is None else team.together_max, 0 if team is None else team.cores
