"""The inputs of a code hpcbench did not write, from a study's inputs
(`predict wavefront`'s flags): energy groups and how they cross the
pipeline, the order of the octants, inner and outer iterations, the time
outside the sweeps, W_g from the code's grind time, and the MPI library's
eager limit (docs/predict.md, "Predicting a code you did not write").

Each is checked here and lands in WavefrontParams, which the model, the
simulated program and the sweep all read. `inputs` is a StudyInputs, taken
as Any so that this module and _inputs.py do not import each other.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ._eager import library_limits, uniform_limits
from ._errors import PredictError
from ._octants import parse_octants
from ._params import GROUP_FACES, MAX_COUNT, WavefrontParams

__all__ = ["code_params", "resolved_inputs"]

#: The largest grind time taken (seconds per cell, angle and group).
GRIND_LIMIT_S = 1.0
#: The largest time outside the sweeps taken (seconds per iteration).
NONWAVEFRONT_LIMIT_S = 1e6


def resolved_inputs(inputs: Any) -> Any:
    """`inputs` with --grind turned into --wg (W_g = grind x angles: W_g is
    a cell's time for all the angles of one octant, one group); one line if
    both are given or the grind is not a positive time."""
    grind = getattr(inputs, "grind", None)
    if grind is None:
        return inputs
    if inputs.wg is not None:
        raise PredictError("give W_g once: --wg (seconds per cell) or --grind (seconds per cell, angle and group)")
    if not (isinstance(grind, (int, float)) and math.isfinite(grind) and 0 < grind <= GRIND_LIMIT_S):
        raise PredictError(f"--grind must be a positive number of seconds per cell, angle and group, at most "
                           f"{GRIND_LIMIT_S:g}, got {grind}")
    return replace(inputs, wg=float(grind) * int(inputs.angles), grind=None)


def code_params(inputs: Any, params: WavefrontParams) -> WavefrontParams:
    """`params` (grid, array, H_tile, angles, W_g) with the code's other
    inputs from `inputs`, checked (one line naming the flag)."""
    group_faces = getattr(inputs, "group_faces", "each")
    if group_faces not in GROUP_FACES:
        raise PredictError(f"--group-faces must be one of {', '.join(GROUP_FACES)}, got {group_faces!r}")
    t_other = getattr(inputs, "t_nonwavefront", 0.0)
    if not (isinstance(t_other, (int, float)) and math.isfinite(t_other) and 0 <= t_other <= NONWAVEFRONT_LIMIT_S):
        raise PredictError(f"--t-nonwavefront must be a number of seconds per iteration, 0 to "
                           f"{NONWAVEFRONT_LIMIT_S:g}, got {t_other}")
    return params.with_(groups=_count("--groups", getattr(inputs, "groups", 1)), group_faces=group_faces,
                        octants=parse_octants(getattr(inputs, "octants", "chimaera") or "chimaera"),
                        inners=_count("--inners", getattr(inputs, "inners", 1)),
                        outers=_count("--outers", getattr(inputs, "outers", 1)),
                        t_nonwavefront=float(t_other), eager_limits=_limits(inputs))


def _limits(inputs: Any) -> tuple[tuple[str, int], ...]:
    """--eager-limit for every class; else the results file's MPI
    library's (_eager.EAGER_DEFAULTS); else none (every send eager)."""
    limit = getattr(inputs, "eager_limit", None)
    if limit is not None:
        return uniform_limits(limit)
    results = getattr(inputs, "results", None)
    if not results:
        return ()
    from .._results import load
    context = load(str(results)).context
    mpi = getattr(context, "mpi", None)
    library = getattr(mpi, "library", None) if not isinstance(mpi, dict) else mpi.get("library")
    return library_limits(library if isinstance(library, str) else None)


def _count(flag: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_COUNT:
        raise PredictError(f"{flag} must be a positive whole number up to 2**53, got {value!r}")
    return value
