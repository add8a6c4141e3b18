"""Runs of the FMA chains (hpcbench._core.flops_team) on one core and on a
team; the sample length is set from a short pilot run of the same loop."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import _core, _validate
from ._isa import isa_code, isa_name
from ._options import FlopsOptions
from ._records import FlopsRun

_D = FlopsOptions()
#: Steps of the pilot run that sets the steps of a sample.
PILOT_ITERATIONS = 1 << 13


def precision_code(name: str) -> int:
    return int(_core.FLOPS_SINGLE if name == "single" else _core.FLOPS_DOUBLE)


def check_flops(samples: int, chains: int) -> None:
    """The kernel's own rules on the counts, stated once in C (_core.flops_check)."""
    with _validate.c_rules({}):
        _core.flops_check(PILOT_ITERATIONS, samples, chains=chains)


def sample_iterations(pu: int, isa: str, precision: str, sample_ms: float, chains: int) -> int:
    """Steps per sample so that one sample lasts about sample_ms on `pu`,
    from the fastest of three pilot samples."""
    ns, *_ = _core.flops_team([pu], PILOT_ITERATIONS, 3, warmup=1, chains=chains, isa=isa_code(isa),
                              precision=precision_code(precision))
    per_step = float(np.min(ns)) / PILOT_ITERATIONS
    return max(2, int(sample_ms * 1e6 / per_step))


def flops_run(pus: Sequence[int], isa: str, precision: str, samples: int = _D.samples,
              sample_ms: float = _D.sample_ms, chains: int = _D.chains) -> tuple[FlopsRun, bool]:
    """The chains on every PU of `pus` at once: the run (times and starts
    and ends after its first start) and whether the scalar loop uses FMA."""
    iterations = sample_iterations(pus[0], isa, precision, sample_ms, chains)
    ns, start, end, used, scalar_fma, flops = _core.flops_team(list(pus), iterations, samples, warmup=1,
                                                               chains=chains, isa=isa_code(isa),
                                                               precision=precision_code(precision))
    first = float(start.min())
    run = FlopsRun(isa=isa_name(used), precision=precision, pus=list(pus), iterations=iterations,
                   flops_per_sample=float(flops), ns=ns, start_ns=start - first, end_ns=end - first)
    return run, bool(scalar_fma)


def peak_rate(pu: int, samples: int = 3, sample_ms: float = 2.0) -> tuple[float, str]:
    """A short measure of one core's peak: the widest FMA loop this CPU
    runs, double precision, on `pu`; (flop/s of the best sample, the ISA).
    The MultiBSP benchmark's r."""
    from ._isa import cpu_isas, widest
    isa = widest(cpu_isas())
    run, _ = flops_run([pu], isa, "double", samples, sample_ms)
    return run.flops_per_sample / (float(np.min(run.ns)) * 1e-9), run.isa
