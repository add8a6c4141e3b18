"""The real wavefront kernel (Hammond et al. 2009, section 3: a Chimaera-like
code) that the model and the simulator are validated on, and the
single-process W_g measurement the model takes as input.

Both run in C (csrc/kernels/wavefront.c, wavefront_wg.c) with the GIL
released; this module only converts ticks to seconds and gathers ranks.
The kernel follows hpcbench/predict/_params.py's contract exactly: the
m x n array with rank = j * n + i, SWEEP_ORDER, and per tile: MPI_Recv from
the upstream x neighbour, MPI_Recv from the upstream y neighbour, compute,
MPI_Send to the downstream x neighbour, MPI_Send to the downstream y
neighbour, all blocking, faces of 8 H_tile angles Ny/m (east-west) and
8 H_tile angles Nx/n (north-south) bytes.

`work` is the cost knob: each cell, for each angle, repeats a step-scheme
transport solve `work` times (one multiply-add-multiply per angle per round,
a dependency chain the compiler cannot shorten), so the seconds per cell
grow linearly with it, W_g ~ a + b work. On the 2-core test machine, for
a 64 x 64 x 64 stack with 6 angles, a is about 35 ns (the source term, the
faces and the cell's flux) and b 5 to 8 ns per round, both up to twice that
when other jobs share the cores; measure it with measure_wg.

The result of a run is bitwise the same for every decomposition and H_tile,
so after the timed iterations every rank's cells are checksummed and, with
verify, compared with a serial evaluation of the whole grid on rank 0; a
wrong, missing or stale face makes every rank raise CommError.

    from mpi4py import MPI
    from hpcbench.predict import WavefrontParams
    from hpcbench.predict._kernel import run_wavefront, measure_wg
    p = WavefrontParams(64, 64, 64, m=1, n=MPI.COMM_WORLD.size)
    times = run_wavefront(p)            # every rank calls it
    wg = measure_wg(p)                  # seconds per cell, one process
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from .._collective import check_comm, collectively
from .._errors import OptionError
from .._timer import ticks_per_second
from ._octants import octant_names
from ._params import SWEEP_ORDER, WavefrontParams

if TYPE_CHECKING:
    from mpi4py import MPI

#: Rounds of the per-cell repetition by default: one iteration of a 64^3
#: grid with 6 angles then takes 0.08 to 0.16 s on one core of the (shared)
#: test machine.
DEFAULT_WORK = 1

# hpcbench._collective has no annotations yet: called through Any, which
# mypy --strict accepts.
_check_comm: Any = check_comm
_collectively: Any = collectively
#: Timed iterations by default (after WARMUP untimed ones).
DEFAULT_ITERATIONS = 5
#: Untimed iterations before the timed ones (pages touched, caches warm).
WARMUP = 1
#: measure_wg aims at this many seconds of timed sweeps in all.
WG_BUDGET_S = 0.2
#: The faults run_wavefront can inject to test the verification (C's
#: WAVEFRONT_FAULT_*): a value of a received face changed, a face replaced by
#: zeros, the previous face from the same direction used again.
FAULTS = {"corrupt": _core.WAVEFRONT_FAULT_CORRUPT, "missing": _core.WAVEFRONT_FAULT_MISSING,
          "stale": _core.WAVEFRONT_FAULT_STALE}

#: What a sample is.
STATISTIC = ("per iteration (eight sweeps), the slowest rank's time; an untimed MPI_Barrier precedes each "
             "iteration, and the whole grid is checksummed (and with verify compared with a serial evaluation) "
             "after the timed iterations")


@dataclass(frozen=True)
class WavefrontTimes:
    """One run of the real kernel: seconds. Arrays of shape (ranks,
    iterations) hold each rank's own figures, summed over the iteration."""

    params: WavefrontParams
    work: int                 #: rounds of the per-cell repetition
    samples: np.ndarray       #: per timed iteration, the slowest rank's time
    per_rank: np.ndarray      #: (ranks, iterations): each rank's time of each iteration
    compute: np.ndarray       #: (ranks, iterations): of which computing tiles
    send: np.ndarray          #: (ranks, iterations): of which in MPI_Send
    recv: np.ndarray          #: (ranks, iterations): of which in MPI_Recv, waiting included
    checksum: int             #: the grid's final state (decomposition-independent)
    verified: bool            #: the checksum was compared with the serial evaluation's (and agreed)
    total: float              #: the sum of every cell's scalar flux, for people
    sent_messages: np.ndarray  #: (ranks,): faces each rank sends in an iteration
    sent_bytes: np.ndarray    #: (ranks,): their bytes (Table 1's message sizes, summed)

    @property
    def median(self) -> float:
        """Seconds per iteration: the median of the samples."""
        return float(np.median(self.samples))

    def split(self) -> dict[str, float]:
        """Median over iterations of the mean over ranks: seconds of an
        iteration computing, in MPI_Send, in MPI_Recv (waiting included) and
        the rest (loop and timer overhead)."""
        parts = {"compute": self.compute, "send": self.send, "recv": self.recv}
        out = {name: float(np.median(values.mean(axis=0))) for name, values in parts.items()}
        out["other"] = float(np.median((self.per_rank - self.compute - self.send - self.recv).mean(axis=0)))
        return out

    def compute_per_cell(self) -> float:
        """Seconds of computing per cell per sweep, from the run itself: the
        median over iterations of the mean over ranks of compute time /
        (8 sweeps x the rank's cells): W_g as the run saw it."""
        p = self.params
        cells = p.n_sweeps * p.cells_x * p.cells_y * p.nz
        return float(np.median(self.compute.mean(axis=0))) / cells


def _count(name: str, value: Any, lowest: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lowest:
        raise OptionError(name, f"must be a whole number of at least {lowest}, got {value!r}")
    return int(value)


def _fault_args(fault: Any) -> dict[str, int]:
    if fault is None:
        return {}
    try:
        kind, rank, sweep = fault
        return dict(fault=FAULTS[kind], fault_rank=_count("fault rank", rank, 0),
                    fault_sweep=_count("fault sweep", sweep, 0))
    except (TypeError, ValueError, KeyError):
        raise OptionError("fault", f"must be None or (kind, rank, sweep) with kind one of {', '.join(FAULTS)}, "
                          f"got {fault!r}") from None


def _kernel_args(params: WavefrontParams, work: int, iterations: int, verify: bool, fault: Any) -> dict[str, Any]:
    if not isinstance(params, WavefrontParams):
        raise OptionError("params", f"must be an hpcbench.predict.WavefrontParams, got {params!r}")
    problem = check_kernel_code(params)
    if problem:
        raise OptionError("params", f"describe a code the kernel does not run: {problem}")
    args: dict[str, Any] = dict(nx=params.nx, ny=params.ny, nz=params.nz, m=params.m, n=params.n,
                                h_tile=params.h_tile, angles=params.angles, work=_count("work", work), warmup=WARMUP,
                                iterations=_count("iterations", iterations), verify=bool(verify),
                                **_fault_args(fault))
    _core.wavefront_check(**args)        # C's rules, the same on every rank: raise before any message
    return args


def check_kernel_code(params: WavefrontParams) -> str | None:
    """What makes `params` a code the kernel does not run (it is
    Chimaera-like: its eight sweeps, one group, even blocks), in words, or
    None. Such a code (docs/predict.md, "Predicting a code you did not
    write") is predicted, not run."""
    order = params.sweeps
    different = [what for what, differs in (
        (f"the octants {octant_names(order) if order else 'of ' + str(params.n_sweeps) + ' sweeps'}",
         order != SWEEP_ORDER),
        (f"{params.groups} energy groups", params.groups != 1),
        (f"uneven blocks ({params.split_words()})", not params.even)) if differs]
    if not different:
        return None
    return (f"hpcbench's wavefront kernel runs Chimaera's eight sweeps of one group on even blocks, not "
            f"{', '.join(different)}")


def run_wavefront(params: WavefrontParams, comm: MPI.Intracomm | None = None, work: int = DEFAULT_WORK,
                  iterations: int = DEFAULT_ITERATIONS, verify: bool = True, *, fault: Any = None) -> WavefrontTimes:
    """Run the real wavefront kernel on `comm` (default COMM_WORLD), whose
    size must be params.m x params.n; every rank calls it with the same
    arguments and gets the same WavefrontTimes back.

    One untimed warm-up iteration, then `iterations` timed ones (eight
    sweeps each; STATISTIC). params supplies the grid, m, n, H_tile and the
    angles (its wg and the model's other fields are not used). verify
    compares the final grid with a serial evaluation of as many iterations
    on rank 0 (one process's time for the whole grid); any difference raises
    CommError on every rank. `fault` = (kind, rank, sweep), kind one of
    FAULTS, tests that: the first face `rank` receives in `sweep` of the
    last iteration is damaged after it arrived."""
    args = _kernel_args(params, work, iterations, verify, fault)
    if comm is None:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
    _check_comm(comm)
    ticks, compute, send, recv, checksum, _expected, total, messages, nbytes = _collectively(
        comm, _core.wavefront_times, comm, **args)
    rate = ticks_per_second()               # each rank converts with its own clock's rate
    mine = np.vstack([ticks, compute, send, recv]) / rate
    gathered = comm.allgather((mine, messages, nbytes))
    table = np.stack([g[0] for g in gathered])   # (ranks, 4, iterations)
    return WavefrontTimes(params=params, work=args["work"], samples=table[:, 0].max(axis=0), per_rank=table[:, 0],
                          compute=table[:, 1], send=table[:, 2], recv=table[:, 3], checksum=int(checksum),
                          verified=bool(verify), total=float(total),
                          sent_messages=np.array([g[1] for g in gathered], dtype=np.int64),
                          sent_bytes=np.array([g[2] for g in gathered], dtype=np.int64))


def serial_checksum(params: WavefrontParams, work: int = DEFAULT_WORK, iterations: int = 1) -> tuple[int, float]:
    """(checksum, total) of the serial evaluation of `iterations` iterations
    of params' grid on this process (no MPI): what a run of WARMUP +
    iterations iterations of any decomposition must end with."""
    if not isinstance(params, WavefrontParams):
        raise OptionError("params", f"must be an hpcbench.predict.WavefrontParams, got {params!r}")
    checksum, total = _core.wavefront_serial(params.nx, params.ny, params.nz, angles=params.angles,
                                             work=_count("work", work), iterations=_count("iterations", iterations))
    return int(checksum), float(total)


def _stack(params_or_cells: WavefrontParams | int, angles: int | None) -> dict[str, int]:
    """wavefront_wg's shape arguments: a rank's stack of WavefrontParams, or
    one tile of `cells` cells in a row."""
    if isinstance(params_or_cells, WavefrontParams):
        p = params_or_cells
        return dict(cells_x=p.cells_x, cells_y=p.cells_y, nz=p.nz, h_tile=p.h_tile,
                    angles=p.angles if angles is None else _count("angles", angles))
    cells = _count("cells", params_or_cells)
    return dict(cells_x=cells, cells_y=1, nz=1, h_tile=1, angles=6 if angles is None else _count("angles", angles))


def wg_samples(params_or_cells: WavefrontParams | int, work: int = DEFAULT_WORK, repetitions: int | None = None,
               angles: int | None = None) -> np.ndarray:
    """Seconds per cell of each timed sweep of measure_wg (see there)."""
    shape = _stack(params_or_cells, angles)
    cells = shape["cells_x"] * shape["cells_y"] * shape["nz"]
    work = _count("work", work)
    rate = ticks_per_second()
    if repetitions is None:
        # A short probe sets the count: enough sweeps for WG_BUDGET_S, 5..1000.
        probe = _core.wavefront_wg(**shape, work=work, warmup=1, repetitions=3)
        each = float(np.median(probe)) / rate
        repetitions = int(min(1000, max(5, WG_BUDGET_S / max(each, 1e-9))))
    ticks = _core.wavefront_wg(**shape, work=work, warmup=1, repetitions=_count("repetitions", repetitions))
    return np.asarray(ticks, dtype=float) / rate / cells


def measure_wg(params_or_cells: WavefrontParams | int, work: int = DEFAULT_WORK, repetitions: int | None = None,
               angles: int | None = None) -> float:
    """W_g: seconds of computing per cell (all its angles, one sweep), on
    this process alone, as the paper measures it (the kernel's tiles timed
    without MPI).

    params_or_cells: a WavefrontParams (one rank's stack: Nx/n x Ny/m cells
    per plane, Nz planes in tiles of H_tile, its angles), or a number of
    cells per tile (one tile of that many cells in a row, 6 angles unless
    `angles` says). Each timed sample is one sweep through the stack, solved
    as an interior rank solves it (faces read and written, no messages),
    sweeps cycling through the eight directions after one untimed sweep;
    `repetitions` (default: as many as fit in WG_BUDGET_S, 5..1000) samples.
    Returns the median sample: the typical per-cell time, which a noisy
    neighbour moves less than the mean (wg_samples gives them all)."""
    return float(np.median(wg_samples(params_or_cells, work, repetitions, angles)))
