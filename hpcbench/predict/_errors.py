"""predict's errors, rooted in hpcbench._errors: one for bad input of any
kind (parameters, a machine, a placement, a program, a what-if, a size too
large for this machine), one for a network profile that cannot be read or
lacks what a placement needs, and Deadlock, which says which ranks wait.

The ten names predict had before (ParameterError, MachineError, ...) stay
importable as aliases of PredictError for one release (docs/predict.md,
"Errors"); new code catches PredictError (or hpcbench.InputError).
"""
from __future__ import annotations

from .._errors import InputError

__all__ = ["ClassError", "Deadlock", "MachineError", "ParameterError", "PlacementError", "PredictError",
           "ProfileError", "ProgramError", "SimulationError", "SizeError", "WhatIfError"]


class PredictError(InputError):
    """Input predict cannot use: wavefront parameters that describe no run,
    a machine, placement, program or what-if that does not fit, or a
    prediction too large for this machine; the message is one line."""


class ProfileError(PredictError):
    """A network profile that cannot be read or built, or that lacks a
    class the placement needs; one line naming the file and field."""


class Deadlock(PredictError):
    """A program that cannot finish: some ranks wait for each other.
    `waiting` holds the ranks left waiting (all of them, in rank order)."""

    def __init__(self, message: str, waiting: tuple[int, ...] = ()):
        super().__init__(message)
        self.waiting = waiting


# Deprecated aliases (one release): the classes predict had before one
# hierarchy; each is PredictError itself, so `except MachineError` goes on
# catching what it caught.
ParameterError = PredictError
MachineError = PredictError
PlacementError = PredictError
SimulationError = PredictError
ProgramError = PredictError
SizeError = PredictError
WhatIfError = PredictError
ClassError = PredictError
