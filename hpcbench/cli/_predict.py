"""`predict wavefront`: Hammond et al.'s plug-and-play model (and, with
--simulate, the discrete-event replay) of a wavefront code on the measured
machine; with --measure, the real kernel run under the current mpiexec
beside the prediction (docs/predict.md, docs/simulate.md).

Every rank of an mpiexec job parses the same command line and builds the
same inputs; whatever can fail before the ranks work together is agreed
first (cli/_agree.py), so bad input is one line from rank 0 and exit 2 on
every rank, never a hang. Only rank 0 prints and writes files.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from ._common import SUMMARIES, UsageError

_NAME = "hpcbench predict"


def add_predict_parser(sub) -> None:
    p = sub.add_parser("predict", help=SUMMARIES["predict"],
                       description="Predict the run time of a code from a results file's network profile.")
    codes = p.add_subparsers(dest="code", metavar="CODE", parser_class=type(p))
    wf = codes.add_parser(
        "wavefront", help="a Chimaera-like wavefront code: model, simulation, measurement",
        description="Predict one iteration of a wavefront code (Table 2 of Hammond et al. 2009) from the network "
                    "profile of a comm results file and W_g measured here; --simulate replays it event by event "
                    "(per-rank breakdown), --measure runs the real kernel under this mpiexec and compares.")
    source = wf.add_argument_group("the machine")
    source.add_argument("--results", metavar="RESULTS.json",
                        help="a results file with comm records: the network profile (and the machine, for --alloc)")
    source.add_argument("--profile", metavar="TABLE.json",
                        help="a network profile table instead (hpcbench/examples/francesca-profile.json is Table 3)")
    source.add_argument("--machine", metavar="NODESxPACKAGESxCORES",
                        help="the machine ranks are allocated on (default: the results file's hosts and topology)")
    source.add_argument("--alloc", default=None, metavar="STRATEGY",
                        help="round-robin, node-fill or processor-fill (section 7); default: the job's own "
                             "placement under mpiexec with M*N ranks, node-fill otherwise")
    code = wf.add_argument_group("the code (Table 1)")
    code.add_argument("--grid", required=True, metavar="NXxNYxNZ", help="the grid (one number for a cube)")
    code.add_argument("--procs", required=True, metavar="MxN", help="process array: M rows (y) x N columns (x)")
    code.add_argument("--h-tile", type=int, default=1, metavar="K", help="planes per tile (default 1)")
    code.add_argument("--angles", type=int, default=6, metavar="A", help="angles per cell (default 6)")
    code.add_argument("--wg", type=float, default=None, metavar="SECONDS",
                      help="W_g, seconds per cell (default: measured here with the real kernel's cells)")
    code.add_argument("--work", type=int, default=None, metavar="ROUNDS",
                      help="the real kernel's cost per cell and angle (default 1)")
    what = wf.add_argument_group("what to do")
    what.add_argument("--what-if", default="", metavar="K=V,...",
                      help="latency=+25%%,bandwidth=-10%%,core-speed=+20%%,cores-per-node=x2,contention=table5")
    what.add_argument("--simulate", action="store_true", help="also replay the run event by event (per rank)")
    what.add_argument("--sends", default="eager", choices=("eager", "blocking"),
                      help="the simulation's sends: eager (MPI_Send of a face below the eager limit, Table 2's "
                           "Total_comm; default) or blocking (WARPP's rendezvous: the sender waits for the receiver)")
    what.add_argument("--sweep", default=None, metavar="P1,P2,...",
                      help="predict for these process counts too (most square arrays): time, parallel "
                           "efficiency against the first count, change against the machine without the what-if")
    what.add_argument("--measure", action="store_true",
                      help="run the real kernel on this job's M*N ranks and print measured, predicted, error")
    what.add_argument("--iterations", type=int, default=None, metavar="I",
                      help="timed iterations of --measure (default 5)")
    out = wf.add_argument_group("output")
    out.add_argument("-o", "--output", default=None, metavar="FILE.json",
                     help="write the prediction (terms, per-rank breakdown, measurement) as JSON")
    out.add_argument("--plot", default=None, metavar="DIR",
                     help="write the per-rank breakdown heat maps (needs --simulate) as PNG files here")
    out.add_argument("--force", action="store_true",
                     help="replace an existing file that is not an hpcbench prediction (-o) or a PNG image (--plot); "
                          "never a symbolic link, a device or a FIFO")


@dataclass(frozen=True)
class _Inputs:
    """What every rank builds from the command line, before any collective."""

    params: Any             # WavefrontParams (wg still unset unless --wg)
    profile: Any            # NetworkProfile, what-if applied
    placement: Any          # Placement, or None: the job's, gathered once every rank agreed
    machine: Any            # Machine or None
    what_if: Any            # WhatIf
    core_speed: float
    work: int
    iterations: int
    sweep: tuple
    base_profile: Any       # the profile and machine as measured (what the what-if changes)
    base_machine: Any


def cmd_predict(args) -> int:
    if args.code is None:
        raise UsageError(f"{_NAME}: name the code to predict: wavefront (see --help)")
    comm = _world(args.measure)
    rank = comm.Get_rank() if comm is not None else 0

    inputs = _agreed(comm, lambda: _inputs(args, comm))
    placement = inputs.placement
    if placement is None:                              # the job's own, gathered from every rank
        from ..predict import Placement
        placement = Placement.from_job(comm)
    from ..predict import run_wavefront

    def run():
        return run_wavefront(inputs.params, comm, work=inputs.work, iterations=inputs.iterations)

    measured = None
    if args.measure and args.wg is None:
        # W_g just before and just after the run, by every rank at once:
        # this machine's cores change speed from one second to the next
        # (other tenants), and the two measurements bracket the run.
        before = _agreed(comm, lambda: _wg_of_ranks(inputs, comm))
        measured = run()
        after = _agreed(comm, lambda: _wg_of_ranks(inputs, comm))
        per_rank = [(a + b) / 2 for a, b in zip(before, after)]
        wg = max(per_rank)
        wg_how = (f"measured by every rank at once just before and after the run (work {inputs.work}), the mean "
                  f"of the two, the slowest of {len(per_rank)} ranks: {min(per_rank) * 1e9:.1f}.."
                  f"{wg * 1e9:.1f} ns")
    else:
        if args.measure:
            measured = run()
        wg, wg_how = _agreed(comm, lambda: _wg(args, inputs))
    params = inputs.params.with_(wg=wg / inputs.core_speed)

    from ..predict import wavefront
    prediction = _agreed(comm, lambda: _guarded(lambda: _finite(wavefront(params, inputs.profile, placement),
                                                                "time", "the model's")))
    simulation = None
    if args.simulate:
        simulation = _agreed(comm, lambda: _guarded(lambda: _finite(_simulate(params, inputs.profile, placement,
                                                                              args.sends), "total",
                                                                    "the simulation's")))
    sweep_rows = []
    if inputs.sweep and rank == 0:
        sweep_rows = _guarded(lambda: _sweep(params, inputs, args.alloc, args.simulate, args.sends))

    if rank != 0:
        return 0
    from ..predict._text import prediction_lines
    for line in prediction_lines(params, placement, inputs.profile, prediction, simulation, measured,
                                 wg_how, inputs.what_if, [row.printed() for row in sweep_rows]):
        print(line)
    if args.output is not None:
        _write_json(args.output, params, placement, inputs, prediction, simulation, measured, wg_how, sweep_rows,
                    args.force)
    if args.plot is not None:
        _plot(args.plot, params, simulation, args.force)
    return 0


# ------------------------------------------------------------ inputs

def _inputs(args, comm) -> _Inputs:
    """Everything the command line says, checked; UsageError (one line)
    otherwise. The same on every rank."""
    from ..predict import Machine, WavefrontParams, allocate, parse_grid, parse_procs, parse_what_if

    def build() -> _Inputs:
        nx, ny, nz = parse_grid(args.grid)
        m, n = parse_procs(args.procs)
        params = WavefrontParams(nx, ny, nz, m=m, n=n, h_tile=_positive("--h-tile", args.h_tile),
                                 angles=_positive("--angles", args.angles),
                                 wg=_wg_given(args.wg))
        sweep = _sweep_counts(args.sweep) if args.sweep else ()
        # Sized before anything per rank is allocated (the placement is).
        _check_sizes(params, sweep, args.simulate, args.sends)
        what_if = parse_what_if(args.what_if)
        profile = _profile(args)
        machine = Machine.parse(args.machine) if args.machine else None
        if machine is None and args.results and (args.alloc or comm is None or comm.Get_size() != params.nranks):
            machine = Machine.from_results(args.results)
        base_machine = machine
        projection = what_if.apply(profile, machine)
        machine = projection.machine
        if args.measure and (comm is None or comm.Get_size() != params.nranks):
            size = 1 if comm is None else comm.Get_size()
            raise ValueError(f"--measure runs the kernel on this job's ranks: the {m}x{n} array needs "
                             f"mpiexec -n {params.nranks}, this job has {size}")
        placement = None
        if args.alloc or comm is None or comm.Get_size() != params.nranks:
            if machine is None:
                raise ValueError("say where the ranks run: --machine NODESxPACKAGESxCORES (or --results with "
                                 "hosts and topology) for --alloc, or run under mpiexec -n M*N")
            placement = allocate(params.nranks, machine, args.alloc or "node-fill")
        elif what_if.cores_per_node != 1:
            raise ValueError("cores-per-node changes the machine: give --alloc (and --machine) to place the ranks "
                             "on the projected machine")
        work = _positive("--work", args.work) if args.work is not None else _default_work()
        iterations = _positive("--iterations", args.iterations) if args.iterations is not None else 5
        if args.plot is not None and not args.simulate:
            raise ValueError("--plot draws the simulated per-rank breakdown: add --simulate")
        _check_outputs(args)
        return _Inputs(params, projection.profile, placement, machine, what_if, projection.core_speed, work,
                       iterations, sweep, profile, base_machine)

    return _guarded(build)


def _profile(args):
    from ..predict import NetworkProfile
    if args.results and args.profile:
        raise ValueError("give the network profile once: --results (comm records) or --profile (a table)")
    if args.profile:
        return NetworkProfile.from_table(args.profile)
    if args.results:
        return NetworkProfile.from_results(args.results)
    raise ValueError("give --results RESULTS.json (with comm records) or --profile TABLE.json for the network")


def _wg(args, inputs: _Inputs) -> tuple[float, str]:
    """W_g in seconds per cell and how it was had: given, or measured by
    this process alone, as the paper does."""
    if args.wg is not None:
        return float(args.wg), "given (--wg)"
    from ..predict import measure_wg
    return (_guarded(lambda: measure_wg(inputs.params, work=inputs.work)),
            f"measured on one process (work {inputs.work})")


def _wg_of_ranks(inputs: _Inputs, comm) -> list:
    """W_g of every rank, measured by all at once on its own stack (with
    --measure): ranks that share a core (an oversubscribed job) see the
    sharing in W_g, which is how the model accounts for it, and the slowest
    rank, which the pipeline waits for, speaks."""
    from ..predict import measure_wg
    mine = _guarded(lambda: measure_wg(inputs.params, work=inputs.work))
    return comm.allgather(mine)


def _simulate(params, profile, placement, sends: str):
    from ..predict import simulate, wavefront_program
    return simulate(wavefront_program(params), profile, placement, sends=sends)


@dataclass(frozen=True)
class _SweepRow:
    """One count of --sweep: its time per iteration (seconds), its parallel
    efficiency, its change against the machine as measured, and the machine
    it ran on (None when no machine is known), grown when the one given had
    too few cores."""

    count: int
    array: str
    seconds: float
    efficiency: float
    change: float
    machine: Any = None     # Machine, or None
    grown: bool = False

    def printed(self) -> tuple:
        """The row as predict/_text.py prints it: the grown machine in a note at the end."""
        note = f"machine grown to {self.machine}" if self.grown else ""
        return (self.count, self.array, self.seconds, self.efficiency, self.change, note)

    def written(self) -> tuple:
        return (self.count, self.array, self.seconds, self.efficiency, self.change)


def _sweep(params, inputs: _Inputs, alloc: str | None, simulated: bool, sends: str) -> list:
    """A _SweepRow for every count of --sweep (section 6's projections): the
    time per iteration on the most square array (the grid rounded up to whole
    blocks: the largest block sets the pace), ranks placed by the strategy on
    the machine (every pair "other node" when no machine is known), grown in
    nodes where the count needs more cores than it has (predict/_whatif.py,
    machine_for); the parallel efficiency against the first count, T(P1) P1 /
    (T(P) P); and the change against the machine as measured (no what-if,
    grown alike) at the same count. By the model, or by the simulation with
    --simulate."""
    from ..predict import Placement, allocate, simulate, square_array, wavefront, wavefront_program
    from ..predict._whatif import machine_for

    def placed(count: int, machine) -> Placement:
        if machine is None:
            return Placement.uniform(count, "other node")
        return allocate(count, machine_for(count, machine), alloc or "node-fill")

    def time_of(p, profile, placement, core_speed: float) -> float:
        if simulated:
            return simulate(wavefront_program(p), profile, placement, core_speed=core_speed, sends=sends).total
        return wavefront(p.with_(wg=p.wg / core_speed, wg_pre=p.wg_pre / core_speed), profile, placement).time

    base_wg = params.wg * inputs.core_speed           # params carry the projected core speed
    rows = []
    first = None
    for count in inputs.sweep:
        m, n = square_array(count)
        p = params.with_(m=m, n=n, nx=n * -(-params.nx // n), ny=m * -(-params.ny // m), wg=base_wg)
        t = time_of(p, inputs.profile, placed(count, inputs.machine), inputs.core_speed)
        t_base = time_of(p, inputs.base_profile, placed(count, inputs.base_machine), 1.0)
        if first is None:
            first = (count, t)
        machine = machine_for(count, inputs.machine) if inputs.machine is not None else None
        rows.append(_SweepRow(count, f"{m}x{n}", t, first[1] * first[0] / (t * count), t / t_base - 1.0, machine,
                              grown=machine is not None and machine != inputs.machine))
    return rows


# ------------------------------------------------------------ small rules

def _world(measure: bool):
    """COMM_WORLD when this process is one rank of an MPI job (--measure,
    or a launcher's environment), else None: a prediction alone needs no
    MPI."""
    launched = any(k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_ID"))
    if not (measure or launched):
        return None
    from ._run import start_mpi
    comm, problem = start_mpi()
    if problem:
        raise UsageError(problem)
    return comm


def _positive(flag: str, value: int) -> int:
    if value is None or value < 1:
        raise ValueError(f"{flag} must be a positive whole number, got {value}")
    return int(value)


#: The largest W_g taken (seconds per cell): already absurd, and far from
#: where the model's sums stop being finite.
_WG_LIMIT_S = 1000.0


def _wg_given(value: float | None) -> float:
    import math
    if value is None:
        return 0.0
    if not (math.isfinite(value) and 0 < value <= _WG_LIMIT_S):
        raise ValueError(f"--wg must be a positive number of seconds per cell, at most {_WG_LIMIT_S:g}, got {value}")
    return float(value)


def _default_work() -> int:
    from ..predict._kernel import DEFAULT_WORK
    return DEFAULT_WORK


def _sweep_counts(text: str) -> tuple:
    try:
        counts = tuple(int(t) for t in text.split(","))
    except ValueError:
        counts = ()
    if not counts or min(counts) < 1:
        raise ValueError(f"--sweep takes process counts P1,P2,... (positive whole numbers), got {text!r}")
    return counts


def _check_sizes(params, sweep: tuple, simulated: bool, sends: str) -> None:
    """SizeError (one line, with the estimate and what to do instead) if
    the model, the simulation or a count of --sweep needs more memory than
    this machine has, or the simulation would clearly run for hours
    (predict/_bounds.py); before anything is allocated."""
    from ..predict import square_array
    from ..predict._bounds import check_model, check_simulation, model_cost, size_words
    fewer = "give fewer processes (--procs) or a smaller grid"
    check_model(params.nranks, hint=fewer)
    if simulated:
        check_simulation(params, sends=sends,
                         hint=f"{fewer} (fewer tiles: Nz/--h-tile), or drop --simulate for the analytical model "
                              f"(Table 2, about {size_words(model_cost(params.nranks).bytes)})")
    for count in sweep:
        check_model(count, hint="give smaller --sweep counts")
        if simulated:
            m, n = square_array(count)
            p = params.with_(m=m, n=n, nx=n * -(-params.nx // n), ny=m * -(-params.ny // m))
            check_simulation(p, sends=sends, hint="give smaller --sweep counts, or drop --simulate for the "
                                                  "analytical model")


def _check_outputs(args) -> None:
    """Refuse, before any work, an -o or --plot file that would never be
    written (hpcbench/_files.py: a symbolic link, a device, a FIFO, a
    directory, or without --force a file that is not ours)."""
    if args.output is not None:
        _check_json_target(args.output, args.force)
    if args.plot is not None:
        if not args.plot.strip():
            raise ValueError("--plot must name a directory")
        if os.path.islink(args.plot) and not os.path.isdir(args.plot):
            raise ValueError(f"--plot {args.plot} is a symbolic link to no directory")
        if os.path.exists(args.plot) and not os.path.isdir(args.plot):
            raise ValueError(f"--plot {args.plot} is not a directory")
        parent = os.path.dirname(os.path.abspath(args.plot))
        if not os.path.isdir(parent):
            raise ValueError(f"--plot {args.plot}: no such directory {parent}")
        if os.path.isdir(args.plot):
            for target in _plot_targets(args.plot):
                _check_png_target(target, args.force)


_PREDICTION = b'"format": "hpcbench-prediction"'


def looks_like_prediction(head: bytes) -> bool:
    """True if `head`, the first bytes of a file, start like a prediction
    predict -o wrote: a JSON object whose first member is "format":
    "hpcbench-prediction" (indented or compact)."""
    text = head.lstrip()
    return text.startswith(b"{") and text[1:].lstrip().startswith(_PREDICTION)


def looks_like_png(head: bytes) -> bool:
    """True if `head` starts with PNG's signature."""
    return head.startswith(b"\x89PNG\r\n\x1a\n")


def _check_json_target(path: str, force: bool) -> str:
    from .._files import check_target
    return check_target(path, "-o file", looks_like_prediction, force, ValueError, "an hpcbench prediction")


def _check_png_target(path: str, force: bool) -> str:
    from .._files import check_target
    return check_target(path, "--plot image", looks_like_png, force, ValueError, "a PNG image")


def _plot_targets(folder: str) -> list:
    from ..predict._plot import BREAKDOWN_NAMES
    return [os.path.join(folder, f"wavefront-{name}.png") for name in BREAKDOWN_NAMES]


def _finite(result, field: str, whose: str):
    """`result` if its `field` (seconds) is finite; else ValueError: a
    profile or W_g so far out of range that the sums overflow."""
    import math
    value = float(getattr(result, field))
    if not math.isfinite(value):
        raise ValueError(f"{whose} time per iteration is {value}: the profile's latencies or bandwidths, or W_g, "
                         "are too far out of range to predict with")
    return result


def _guarded(make):
    """make(), with the package's one-line errors turned into UsageError."""
    from .._results import ResultsError
    try:
        return make()
    except UsageError:
        raise
    except (ResultsError, ValueError, OSError) as e:
        raise UsageError(f"{_NAME}: {e}") from None
    except MemoryError:
        # The estimates (predict/_bounds.py) should refuse first; another
        # process may have taken the memory since.
        raise UsageError(f"{_NAME}: ran out of memory: predict fewer processes or a smaller grid, or drop "
                         "--simulate") from None


def _agreed(comm, make):
    """make() on every rank; a UsageError on any rank is one on all."""
    if comm is None:
        return make()
    from ._agree import agree
    return agree(comm, make)


# ------------------------------------------------------------ writing

def _write_json(path, params, placement, inputs, prediction, simulation, measured, wg_how, sweep_rows,
                force: bool = False) -> None:
    from .._files import write_file
    from ..predict._text import prediction_dict
    data = prediction_dict(params, placement, inputs.profile, prediction, simulation, measured, wg_how,
                           inputs.what_if, [row.written() for row in sweep_rows])
    for entry, row in zip(data.get("sweep", []), sweep_rows):    # the machine each count ran on
        entry["machine"] = str(row.machine) if row.machine is not None else None
        entry["machine_grown"] = row.grown
    # Indented for a reader; compact (JSON's C encoder, seconds not minutes)
    # where per-rank lists of many ranks would make indenting the cost.
    text = json.dumps(data, indent=1 if params.nranks <= 4096 else None) + "\n"
    _guarded(lambda: write_file(path, text, "-o file", looks_like_prediction, force, ValueError,
                                "an hpcbench prediction"))
    print(f"{_NAME}: wrote {path}", file=sys.stderr)


def _plot(folder, params, simulation, force: bool = False) -> None:
    """The heat maps as wavefront-NAME.png in `folder`: each drawn in
    memory, its target checked (never through a symbolic link, never over
    a file that is not a PNG unless --force) and replaced atomically."""
    import io

    from .._files import write_file
    from ..predict._plot import breakdown_figures
    _guarded(lambda: os.makedirs(folder, exist_ok=True))
    for name, figure in breakdown_figures(simulation, params.m, params.n).items():
        target = os.path.join(folder, f"wavefront-{name}.png")
        image = io.BytesIO()
        figure.savefig(image, dpi=100, format="png")
        _guarded(lambda t=target, data=image: write_file(t, data.getvalue(), "--plot image", looks_like_png, force,
                                                         ValueError, "a PNG image"))
        print(f"{_NAME}: wrote {target}", file=sys.stderr)
