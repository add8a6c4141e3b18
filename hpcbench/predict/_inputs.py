"""What a study is asked (StudyInputs: `predict wavefront`'s flags as
fields) and what it makes of it before anything runs (Setup): the
wavefront parameters, the network profile and the machine as measured and
as the what-if projects them, where the ranks go, and the sizes checked
against this machine's memory. The same on every rank of a job; one line
(PredictError, or the reader's ResultsError) for anything wrong.

Messages name the flags (`--wg`, `--sweep`), which are the fields' names:
a script that sets StudyInputs(wg=-1) reads "--wg must be a positive
number ...", the same line as the command line.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ._allocate import Machine, allocate
from ._bounds import check_model, check_simulation, model_cost, size_words
from ._code_inputs import code_params, resolved_inputs
from ._contention import AccessContention
from ._cores import crowded_hosts, crowding_problem
from ._errors import PredictError
from ._kernel import DEFAULT_WORK, check_kernel_code
from ._params import WavefrontParams, parse_grid, parse_procs, square_array
from ._placement import Placement
from ._profile import NetworkProfile
from ._whatif import Projection, WhatIf, parse_what_if

__all__ = ["Setup", "StudyInputs", "WG_LIMIT_S", "grown_params", "set_up"]

#: The largest W_g taken (seconds per cell): already absurd, and far from
#: where the model's sums stop being finite.
WG_LIMIT_S = 1000.0
#: Timed iterations of a measurement when none are asked for.
DEFAULT_ITERATIONS = 5


@dataclass(frozen=True)
class StudyInputs:
    """A study of a wavefront code, as `predict wavefront`'s flags say it.

    grid 'NXxNYxNZ' (or one number for a cube) and procs 'MxN' (rows x
    columns) are the code (Table 1), with h_tile planes per tile and angles
    per cell; wg is W_g in seconds per cell (None: measured here with the
    real kernel, `work` rounds per cell and angle). The network is a comm
    results file (`results`) or a profile table (`profile`: a path,
    example:NAME, or a NetworkProfile); `machine` is 'NODESxPACKAGESxCORES'
    (or a Machine; default the results file's), `alloc` a strategy of
    STRATEGIES (default: the job's own placement under a communicator of
    M*N ranks, node fill otherwise). what_if is 'latency=+25%,...'
    (parse_what_if); simulate replays the run with `sends` ("eager" or
    "blocking"); sweep 'P1,P2,...' projects to other process counts;
    measure runs the real kernel `iterations` times on the communicator's
    M*N ranks. groups, group_faces, octants, inners, outers,
    t_nonwavefront, grind and eager_limit describe a code hpcbench did not
    write (docs/predict.md, "Predicting a code you did not write";
    _code_inputs.py). efficiency (a level, 0.5: 50 %) asks for the process count
    where parallel efficiency falls below it; match_profile (a table, as
    `profile`) or match_results (a comm results file) names a second
    network whose process count matching this one's time is asked for
    (_procure.py). access_results names a results file whose network-access
    record (ratNC) prices the sharing of a node's network access (default:
    the `results` file's own, if it has one; a profile table's "access");
    the what-if's contention=none turns it off (_contention.py)."""

    grid: str
    procs: str
    results: str | None = None
    profile: str | NetworkProfile | None = None
    machine: str | Machine | None = None
    alloc: str | None = None
    h_tile: int = 1
    angles: int = 6
    groups: int = 1
    group_faces: str = "each"
    octants: str = "chimaera"
    inners: int = 1
    outers: int = 1
    t_nonwavefront: float = 0.0
    grind: float | None = None
    eager_limit: int | None = None
    wg: float | None = None
    work: int | None = None
    what_if: str = ""
    simulate: bool = False
    sends: str = "eager"
    sweep: str | None = None
    measure: bool = False
    iterations: int | None = None
    efficiency: float | None = None
    match_profile: str | NetworkProfile | None = None
    match_results: str | None = None
    access_results: str | None = None


@dataclass(frozen=True)
class Setup:
    """A StudyInputs checked and built: params (W_g still 0 unless given),
    the machine as measured and as projected (profile, machine, core speed),
    the placement (None: the job's own, gathered once every rank agreed)."""

    inputs: StudyInputs
    params: WavefrontParams
    what_if: WhatIf
    measured: Projection        # the profile and machine as measured (core speed 1)
    projected: Projection       # the same, changed by the what-if
    placement: Placement | None
    work: int
    iterations: int
    sweep: tuple[int, ...]


def set_up(inputs: StudyInputs, comm: Any = None) -> Setup:
    """Everything `inputs` says, checked before anything is allocated per
    rank or measured; the same on every rank of `comm` (an mpi4py
    communicator, or None for a process alone)."""
    # Collective, first: every rank reaches it before anything can fail.
    crowded = crowded_hosts(comm) if comm is not None else {}
    inputs = resolved_inputs(inputs)
    params = code_params(inputs, _params(inputs))
    sweep = _sweep_counts(inputs.sweep) if inputs.sweep else ()
    _check_sizes(params, sweep, inputs.sends if inputs.simulate else None)
    size = 1 if comm is None else int(comm.Get_size())
    own_job = comm is not None and size == params.nranks and not inputs.alloc
    profile = _with_access(_profile(inputs), inputs)
    what_if = parse_what_if(inputs.what_if).resolved(profile)
    measured = Projection(profile, _machine(inputs, needed=not own_job), 1.0)
    projected = what_if.apply(profile, measured.machine)
    problem = crowding_problem(crowded) if (own_job or inputs.measure) else None
    if problem:
        raise PredictError(problem)
    kernel_problem = check_kernel_code(params) if inputs.measure else None
    if kernel_problem:                   # another code is predicted, not run
        raise PredictError(f"--measure runs the real kernel: {kernel_problem}; predict this code without --measure")
    if inputs.measure and (comm is None or size != params.nranks):
        raise PredictError(f"--measure runs the kernel on this job's ranks: the {params.m}x{params.n} array needs "
                           f"mpiexec -n {params.nranks}, this job has {size}")
    placement = None if own_job else _allocated(params.nranks, projected.machine, inputs.alloc)
    if own_job and what_if.cores_per_node != 1:
        raise PredictError("cores-per-node changes the machine: give --alloc (and --machine) to place the ranks "
                           "on the projected machine")
    work = _positive("--work", inputs.work) if inputs.work is not None else DEFAULT_WORK
    iterations = _positive("--iterations", inputs.iterations) if inputs.iterations is not None else DEFAULT_ITERATIONS
    return Setup(inputs, params, what_if, measured, projected, placement, work, iterations, sweep)


def grown_params(params: WavefrontParams, count: int) -> WavefrontParams:
    """`params` on the most square array of `count` processes, the grid
    rounded up to whole blocks (the largest block sets the pace)."""
    m, n = square_array(count)
    return params.with_(m=m, n=n, nx=n * -(-params.nx // n), ny=m * -(-params.ny // m))


def _params(inputs: StudyInputs) -> WavefrontParams:
    nx, ny, nz = parse_grid(inputs.grid)
    m, n = parse_procs(inputs.procs)
    return WavefrontParams(nx, ny, nz, m=m, n=n, h_tile=_positive("--h-tile", inputs.h_tile),
                           angles=_positive("--angles", inputs.angles), wg=_wg_given(inputs.wg))


def _profile(inputs: StudyInputs) -> NetworkProfile:
    if inputs.results and inputs.profile:
        raise PredictError("give the network profile once: --results (comm records) or --profile (a table)")
    if isinstance(inputs.profile, NetworkProfile):
        return inputs.profile
    if inputs.profile:
        return NetworkProfile.from_table(inputs.profile)
    if inputs.results:
        return NetworkProfile.from_results(inputs.results)
    raise PredictError("give --results RESULTS.json (with comm records) or --profile TABLE.json for the network")


def _with_access(profile: NetworkProfile, inputs: StudyInputs) -> NetworkProfile:
    """`profile` with the measured ratNC the inputs name: --access-results's
    network-access record (it must have one), else the --results file's
    (if it has one), else the profile's own (a table's "access")."""
    if inputs.access_results:
        access = AccessContention.from_results(inputs.access_results)
        if access is None:
            raise PredictError(f"--access-results {inputs.access_results} has no finished network-access record "
                               "(ratNC): run `mpiexec -n N python -m hpcbench run network-access` across 2 or more "
                               "nodes")
        return profile.with_access(access)
    if inputs.results and profile.access is None:
        return profile.with_access(AccessContention.from_results(inputs.results))
    return profile


def _machine(inputs: StudyInputs, needed: bool) -> Machine | None:
    """The machine given, else the results file's when the ranks are to be
    allocated (`needed`), else None."""
    if isinstance(inputs.machine, Machine):
        return inputs.machine
    if inputs.machine:
        return Machine.parse(inputs.machine)
    if inputs.results and needed:
        return Machine.from_results(inputs.results)
    return None


def _allocated(nranks: int, machine: Machine | None, alloc: str | None) -> Placement:
    if machine is None:
        raise PredictError("say where the ranks run: --machine NODESxPACKAGESxCORES (or --results with "
                           "hosts and topology) for --alloc, or run under mpiexec -n M*N")
    return allocate(nranks, machine, alloc or "node-fill")


def _positive(flag: str, value: int | None) -> int:
    if value is None or value < 1:
        raise PredictError(f"{flag} must be a positive whole number, got {value}")
    return int(value)


def _wg_given(value: float | None) -> float:
    if value is None:
        return 0.0
    if not (math.isfinite(value) and 0 < value <= WG_LIMIT_S):
        raise PredictError(f"--wg must be a positive number of seconds per cell, at most {WG_LIMIT_S:g}, got {value}")
    return float(value)


def _sweep_counts(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(t) for t in text.split(","))
    except ValueError:
        counts = ()
    if not counts or min(counts) < 1:
        raise PredictError(f"--sweep takes process counts P1,P2,... (positive whole numbers), got {text!r}")
    return counts


def _check_sizes(params: WavefrontParams, sweep: tuple[int, ...], sends: str | None) -> None:
    """SizeError (one line, with the estimate and what to do instead) if
    the model, the simulation (`sends` not None) or a count of the sweep
    needs more memory than this machine has, or the simulation would
    clearly run for hours (_bounds.py); before anything is allocated."""
    fewer = "give fewer processes (--procs) or a smaller grid"
    check_model(params.nranks, hint=fewer)
    if sends is not None:
        check_simulation(params, sends=sends,
                         hint=f"{fewer} (fewer tiles: Nz/--h-tile), or drop --simulate for the analytical model "
                              f"(Table 2, about {size_words(model_cost(params.nranks).bytes)})")
    for count in sweep:
        check_model(count, hint="give smaller --sweep counts")
        if sends is not None:
            check_simulation(grown_params(params, count), sends=sends,
                             hint="give smaller --sweep counts, or drop --simulate for the analytical model")
