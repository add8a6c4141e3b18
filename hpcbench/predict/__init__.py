"""Predicting run times from measurements (Hammond et al. 2009): the
network profile (section 5.1, Table 3) per placement class, the placement
of ranks that decides each message's class, the plug-and-play wavefront
model (Tables 1 and 2), the real wavefront kernel it is validated on, and
the discrete-event replay (WARPP, section 4.2). See docs/predict.md.

A decision, not a benchmark: it reads results files and never measures,
except `run_wavefront` and `measure_wg`, which run the real code.
"""
from ._classes import CLASSES, ClassError, class_of_layer
from ._params import ParameterError, WavefrontParams, parse_grid, parse_procs
from ._placement import Placement, PlacementError
from ._profile import NetworkProfile, ProfileError, Region
from ._program import Program, ProgramError
from ._replay import Deadlock, Replay, replay

__all__ = ["CLASSES", "ClassError", "Deadlock", "NetworkProfile", "ParameterError", "Placement", "PlacementError",
           "ProfileError", "Program", "ProgramError", "Region", "Replay", "WavefrontParams", "class_of_layer",
           "parse_grid", "parse_procs", "replay"]
