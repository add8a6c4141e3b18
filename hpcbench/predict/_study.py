"""A study: what `predict wavefront` does, as one function a script, a
notebook and the command line share.

    from hpcbench.predict import StudyInputs, study
    s = study(StudyInputs(grid="48x48x24", procs="4x4", profile="example:francesca-profile.json",
                          machine="8x2x2", wg=3e-7, simulate=True, sweep="1,4,16"))
    s.prediction.time, s.simulation.total, [row.efficiency for row in s.sweep]
    print("\\n".join(s.lines()))

The steps: the inputs checked and sized (_inputs.py); the placement (the
allocation asked for, or the job's own); W_g given, measured on one
process, or, with a measurement, measured by every rank just before and
just after the real kernel's run (the two bracket it: cores change speed
from one second to the next); the model (Table 2) and, if asked, the
simulation, with the what-if's profile and core speed; the sweep over
process counts (_sweep.py); the procurement answers (_questions.py: the
efficiency crossing, the count on a second network that matches the
time). Under a communicator every rank takes part and a failure on any
rank is one error on all, never a hang; the sweep and the answers are
rank 0's alone (other ranks get none), as they need no other rank.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from .._errors import HpcbenchError
from ._errors import PredictError
from ._inputs import Setup, StudyInputs, set_up
from ._kernel import WavefrontTimes, measure_wg, run_wavefront
from ._model import WavefrontPrediction, wavefront
from ._params import WavefrontParams
from ._placement import Placement
from ._procure import EfficiencyAnswer, MatchAnswer, check_level
from ._profile import NetworkProfile
from ._questions import answers, second_profile
from ._simulate import Simulation, simulate
from ._sweep import SweepRow, sweep_rows
from ._text import prediction_dict, prediction_lines
from ._wavefront_program import wavefront_program
from ._whatif import Projection, WhatIf

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Study", "study"]

T = TypeVar("T")

#: Per-rank lists of more ranks than this are written compact (JSON's C
#: encoder: seconds, not minutes, for a million ranks).
_INDENT_UP_TO = 4096


@dataclass(frozen=True, eq=False)
class Study:
    """What a study found. `params` carry W_g as the model used it
    (seconds per cell, divided by the what-if's core speed); `wg` is W_g as
    given or measured here, `wg_how` says which. `projection` is the machine
    the what-if made (profile, machine, core speed); `placement` where the
    ranks ran. `simulation`, `measured` and `sweep` are empty unless asked
    for. `efficiency` and `match` are the procurement answers
    (_procure.py), None unless asked for. Times are seconds."""

    params: WavefrontParams
    wg: float
    wg_how: str
    what_if: WhatIf
    projection: Projection
    placement: Placement
    prediction: WavefrontPrediction
    simulation: Simulation | None = None
    measured: WavefrontTimes | None = None
    sweep: tuple[SweepRow, ...] = ()
    efficiency: EfficiencyAnswer | None = None
    match: MatchAnswer | None = None

    @property
    def profile(self) -> NetworkProfile:
        """The network profile the prediction used (the what-if applied)."""
        return self.projection.profile

    def lines(self) -> list[str]:
        """What `predict wavefront` prints: the terms, the simulation, the
        measurement and the sweep, one string a line."""
        return prediction_lines(self)

    def to_dict(self) -> dict[str, Any]:
        """The same as plain data (seconds), what `-o FILE.json` holds."""
        return prediction_dict(self)

    def to_json(self) -> str:
        """to_dict() as JSON text, indented unless the per-rank lists are long."""
        indent = 1 if self.params.nranks <= _INDENT_UP_TO else None
        return json.dumps(self.to_dict(), indent=indent) + "\n"

    def figures(self) -> dict[str, Figure]:
        """The figures of what was asked, by name (FIGURE_NAMES): the
        simulation's per-rank breakdown heat maps, the sweep's time against
        processes, the efficiency curve (Figure 4) and the two networks'
        times (Figure 5); PredictError when nothing asked has a figure."""
        from ._plot import breakdown_figures, efficiency_figure, match_figure, sweep_figure
        out = {}
        if self.simulation is not None:
            out.update(breakdown_figures(self.simulation, self.params.m, self.params.n))
        if self.sweep:
            out["sweep"] = sweep_figure(self.sweep)
        if self.efficiency is not None:
            out["efficiency"] = efficiency_figure(self.efficiency)
        if self.match is not None:
            out["match"] = match_figure(self.match, self.profile.source or "the first network")
        if not out:
            raise PredictError("nothing to draw: the figures are the simulation's (simulate=True), the sweep's, "
                               "the efficiency's and the match's")
        return out


def study(inputs: StudyInputs, comm: Any = None) -> Study:
    """Predict (and, as `inputs` ask, simulate, measure and sweep) the
    wavefront code `inputs` describe; see the module docstring. `comm` is
    an mpi4py communicator whose ranks all call this (needed to measure, or
    to predict the job's own placement), or None. Raises PredictError (or
    the results reader's ResultsError, an OptionError of the kernel's
    arguments), one line, on every rank alike."""
    setup = _agreed(comm, lambda: set_up(inputs, comm))
    second = _agreed(comm, lambda: _asked_answers(setup))
    placement = setup.placement if setup.placement is not None else Placement.from_job(comm)
    measured, wg, wg_how = _measurement_and_wg(setup, comm)
    params = setup.params.with_(wg=wg / setup.projected.core_speed)
    profile = setup.projected.profile
    prediction = _agreed(comm, lambda: _finite(wavefront(params, profile, placement), "time", "the model's"))
    simulation = None
    if inputs.simulate:
        simulation = _agreed(comm, lambda: _finite(
            simulate(wavefront_program(params), profile, placement, sends=inputs.sends), "total", "the simulation's"))
    rows: tuple[SweepRow, ...] = ()
    if setup.sweep and (comm is None or comm.Get_rank() == 0):
        sends = inputs.sends if inputs.simulate else None
        rows = _one_line(lambda: sweep_rows(params, setup.sweep, setup.projected, setup.measured, inputs.alloc,
                                            sends))
    efficiency, match = None, None
    if (inputs.efficiency is not None or second is not None) and (comm is None or comm.Get_rank() == 0):
        counts = tuple(sorted({params.nranks, *setup.sweep}))
        efficiency, match = _one_line(lambda: answers(setup, params, second, counts))
    return Study(params, wg, wg_how, setup.what_if, setup.projected, placement, prediction, simulation, measured,
                 rows, efficiency, match)


def _asked_answers(setup: Setup) -> NetworkProfile | None:
    """The procurement questions checked before any work: the efficiency
    level, and the second network read (returned; None if not asked)."""
    if setup.inputs.efficiency is not None:
        check_level(setup.inputs.efficiency)
    return second_profile(setup)


def _measurement_and_wg(setup: Setup, comm: Any) -> tuple[WavefrontTimes | None, float, str]:
    """The real kernel's times (None unless asked) and W_g (seconds per
    cell) with how it was had: given; measured by this process alone, as
    the paper does; or, when measuring without a W_g given, by every rank
    at once just before and just after the run, the mean of the two, the
    slowest rank's (the pipeline waits for it; ranks sharing a core see
    the sharing in W_g, which is how the model accounts for it)."""
    inputs = setup.inputs

    def run() -> WavefrontTimes:
        return run_wavefront(setup.params, comm, work=setup.work, iterations=setup.iterations)

    def mine() -> float:
        return measure_wg(setup.params, work=setup.work)

    if inputs.wg is not None:
        return (run() if inputs.measure else None), float(inputs.wg), "given (--wg)"
    if not inputs.measure:
        return None, _agreed(comm, mine), f"measured on one process (work {setup.work})"
    before = comm.allgather(_agreed(comm, mine))
    measured = run()
    after = comm.allgather(_agreed(comm, mine))
    per_rank = [(a + b) / 2 for a, b in zip(before, after)]
    wg = max(per_rank)
    how = (f"measured by every rank at once just before and after the run (work {setup.work}), the mean of the "
           f"two, the slowest of {len(per_rank)} ranks: {min(per_rank) * 1e9:.1f}..{wg * 1e9:.1f} ns")
    return measured, wg, how


def _finite(result: T, field: str, whose: str) -> T:
    """`result` if its `field` (seconds) is finite; else PredictError: a
    profile or W_g so far out of range that the sums overflow."""
    value = float(getattr(result, field))
    if not math.isfinite(value):
        raise PredictError(f"{whose} time per iteration is {value}: the profile's latencies or bandwidths, or W_g, "
                           "are too far out of range to predict with")
    return result


def _one_line(make: Callable[[], T]) -> T:
    """make(), with running out of memory said in one line (the estimates
    of _bounds.py refuse first; another process may have taken the memory
    since)."""
    try:
        return make()
    except MemoryError:
        raise PredictError("ran out of memory: predict fewer processes or a smaller grid, or drop "
                           "--simulate") from None


def _agreed(comm: Any, make: Callable[[], T]) -> T:
    """make() on every rank of `comm`; an error on any rank is an error on
    all: each failing rank raises its own, the others PredictError with the
    lowest failing rank's text."""
    if comm is None:
        return _one_line(make)
    try:
        value, problem = _one_line(make), None
    except (HpcbenchError, ValueError, OSError) as e:
        value, problem = None, e
    texts = comm.allgather(None if problem is None else str(problem) or type(problem).__name__)
    first = next((text for text in texts if text), None)
    if problem is not None:
        raise problem
    if first is not None:
        raise PredictError(first)
    return value  # type: ignore[return-value]
