"""Predicting run times from measurements (Hammond et al. 2009): the
network profile (section 5.1, Table 3) per placement class, the placement
of ranks that decides each message's class (from the job, an allocation
strategy of section 7 or an `hpcbench map` mapping), the plug-and-play
wavefront model (Tables 1 and 2), the real wavefront kernel it is
validated on, the discrete-event replay (WARPP, section 4.2) and the
what-if projections of section 6. See docs/predict.md and docs/simulate.md.

A decision, not a benchmark: it reads results files and never measures,
except `run_wavefront` and `measure_wg`, which run the real code.
"""
from ._allocate import STRATEGIES, Machine, MachineError, allocate, placement_from_mapping
from ._bounds import Cost, SizeError, available_memory, model_cost, simulation_cost
from ._classes import CLASSES, ClassError, class_of_layer
from ._kernel import DEFAULT_WORK, WavefrontTimes, measure_wg, run_wavefront, serial_checksum, wg_samples
from ._model import WavefrontPrediction, wavefront
from ._params import ParameterError, WavefrontParams, parse_grid, parse_procs, square_array
from ._placement import Placement, PlacementError
from ._profile import MessageCosts, NetworkProfile, OverheadTable, ProfileError, Region
from ._program import Program, ProgramError
from ._replay import Deadlock, Replay, replay
from ._simulate import Simulation, SimulationError, message_timing, simulate
from ._wavefront_program import wavefront_program
from ._whatif import KEYS, WhatIf, WhatIfError, parse_what_if

__all__ = ["CLASSES", "ClassError", "Cost", "DEFAULT_WORK", "Deadlock", "KEYS", "Machine", "MachineError",
           "MessageCosts", "NetworkProfile", "OverheadTable", "ParameterError", "Placement", "PlacementError",
           "ProfileError", "Program", "ProgramError", "Region", "Replay", "STRATEGIES", "Simulation",
           "SimulationError", "SizeError", "WavefrontParams", "WavefrontPrediction", "WavefrontTimes", "WhatIf",
           "WhatIfError", "allocate", "available_memory", "class_of_layer", "measure_wg", "message_timing",
           "model_cost", "parse_grid", "parse_procs", "parse_what_if", "placement_from_mapping", "replay",
           "run_wavefront", "serial_checksum", "simulate", "simulation_cost", "square_array", "wavefront",
           "wavefront_program", "wg_samples"]
