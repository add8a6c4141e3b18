"""Predicting run times from measurements (Hammond et al. 2009): the
network profile (section 5.1, Table 3) per placement class, the placement
of ranks that decides each message's class (from the job, an allocation
strategy of section 7 or an `hpcbench map` mapping), the plug-and-play
wavefront model (Tables 1 and 2), the real wavefront kernel it is
validated on, the discrete-event replay (WARPP, section 4.2) and the
what-if projections of section 6. `study` does all of it as
`predict wavefront` does (W_g, placement, model, simulation, measurement,
sweep) and returns one Study. See docs/predict.md and docs/simulate.md.

A decision, not a benchmark: it reads results files and never measures,
except `run_wavefront`, `measure_wg` and a study asked to, which run the
real code.

Errors: PredictError (an hpcbench.InputError) for any bad input,
ProfileError (a PredictError) for a network profile, Deadlock (a
PredictError) for a program that cannot finish. The older names
(ParameterError, MachineError, PlacementError, SimulationError,
ProgramError, SizeError, WhatIfError, ClassError) are deprecated aliases
of PredictError, kept for one release.
"""
from ._allocate import STRATEGIES, Machine, allocate, placement_from_mapping
from ._bounds import Cost, available_memory, simulation_cost
from ._contention import AccessContention
from ._errors import (
                      ClassError,
                      Deadlock,
                      MachineError,
                      ParameterError,
                      PlacementError,
                      PredictError,
                      ProfileError,
                      ProgramError,
                      SimulationError,
                      SizeError,
                      WhatIfError,
)
from ._inputs import StudyInputs
from ._kernel import WavefrontTimes, measure_wg, run_wavefront
from ._model import WavefrontPrediction, wavefront
from ._output import check_outputs, write_outputs
from ._params import WavefrontParams, parse_grid, parse_procs, square_array
from ._placement import Placement
from ._procure import EfficiencyAnswer, MatchAnswer, MatchRow
from ._profile import NetworkProfile, Region
from ._program import Program
from ._replay import Replay, replay
from ._simulate import Simulation, message_timing, simulate
from ._study import Study, study
from ._sweep import SweepRow
from ._wavefront_program import wavefront_program
from ._whatif import Projection, WhatIf, parse_what_if

__all__ = ["AccessContention", "ClassError", "Cost", "Deadlock", "EfficiencyAnswer", "Machine", "MachineError",
           "MatchAnswer", "MatchRow", "NetworkProfile", "ParameterError", "Placement",
           "PlacementError", "PredictError", "ProfileError", "Program", "ProgramError", "Projection", "Region",
           "Replay", "STRATEGIES", "Simulation", "SimulationError", "SizeError", "Study", "StudyInputs", "SweepRow",
           "WavefrontParams", "WavefrontPrediction", "WavefrontTimes", "WhatIf", "WhatIfError", "allocate",
           "available_memory", "check_outputs", "measure_wg", "message_timing", "parse_grid", "parse_procs",
           "parse_what_if", "placement_from_mapping", "replay", "run_wavefront", "simulate", "simulation_cost",
           "square_array", "study", "wavefront", "wavefront_program", "write_outputs"]
