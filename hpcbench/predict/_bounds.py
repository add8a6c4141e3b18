"""How much memory and time a prediction needs, said before it is spent.

The simulation holds every event of every rank in memory (_program.py) and
replays them in rounds whose count grows with the array's sides
(_replay.py); the model holds a few values per rank (_model.py). Both are
sized here from the grid and the process array alone, in O(1), and refused
with one line (the estimate and what to do instead) when this machine
cannot hold them or when the replay would clearly run for hours: a million
ranks must not end as MemoryError ("internal error") after minutes of
swapping, nor keep a shared machine busy for a day.

Memory available is the least of /proc/meminfo's MemAvailable (else
os.sysconf's free pages), the cgroup's memory.max less its memory.current
(a container or a batch job's limit) and RLIMIT_AS less this process's
address space (ulimit -v).
"""
from __future__ import annotations

import math
import os
import resource
from dataclasses import dataclass

from ._errors import PredictError
from ._params import WavefrontParams

__all__ = ["Cost", "available_memory", "build_cost", "check_cost", "check_model", "check_simulation",
           "model_cost", "program_cost", "simulation_cost", "wavefront_events"]

#: A replay estimated to take longer than this (seconds) is refused as absurd.
TIME_LIMIT_S = 3600.0

#: Bytes a run takes whatever its size (arrays of classes, the profile, NumPy's own).
_FIXED_BYTES = 4 << 20


@dataclass(frozen=True)
class Cost:
    """What a prediction needs: peak bytes of memory, and seconds of replay
    (at least: the estimate takes a fast machine; 0 for the model)."""

    bytes: int
    seconds: float
    events: int = 0          #: events held in memory (simulation)
    rounds: int = 0          #: vector steps of the replay (simulation)


def wavefront_events(params: WavefrontParams, iterations: int = 1) -> int:
    """The events wavefront_program(params, iterations) holds, exactly, in
    O(1): every tile of every sweep, each rank computes (W, and W_pre when
    W_g,pre > 0), and every neighbour pair carries one send and one receive;
    plus one T_nonwavefront compute per rank per iteration when it is > 0."""
    p = params
    m, n = int(p.m), int(p.n)
    pairs = m * (n - 1) + (m - 1) * n
    per_tile = m * n * (1 + int(p.wg_pre > 0)) + 2 * pairs
    return int(iterations) * (min(p.n_sweeps, 8) * p.tiles * per_tile + m * n * int(p.t_nonwavefront > 0))


def _busiest_rank_events(params: WavefrontParams, iterations: int) -> int:
    """Events of the rank with the most neighbours (at most two along each side)."""
    p = params
    neighbours = min(p.n - 1, 2) + min(p.m - 1, 2)
    return int(iterations) * (min(p.n_sweeps, 8) * p.tiles * (1 + int(p.wg_pre > 0) + neighbours)
                              + int(p.t_nonwavefront > 0))


def _fill_steps(params: WavefrontParams, iterations: int) -> int:
    """Messages one after the other on the longest chain of an iteration:
    n_full fills across the array (m + n - 2 hops) and n_diag up its side
    (m - 1); each hop takes the replay at least one round."""
    p = params
    return int(iterations) * (p.n_full * (p.m + p.n - 2) + p.n_diag * (p.m - 1))


# How the constants below were had: tracemalloc's peak over
# wavefront_program + simulate (Francesca's profile, node fill, arrays from
# 4x4 to 300x300, 10**5 to 3.6 * 10**6 events) was 112-114 bytes per event
# with eager sends and 84 with blocking ones; per event the program keeps 17
# (kind 1, peer 8, value 8), pricing adds the durations, the messages'
# indexes, owners and classes (about 50), the eager replay its appended
# copies, matching sends, links and arrivals (about 50). Rounded up, with
# per rank the placement, the replay's state and the per-rank breakdown as
# plain lists and JSON for -o (about 500 bytes).
# Time: the replay's rounds each cost a few vector operations over the
# live ranks; measured here 15-300 us per round plus 1.5 (blocking) to 20
# (eager) ns per rank per round, on rounds of about 1-2 (blocking) and 2-4
# (eager) times the fill chain, and never fewer than the busiest rank's
# events. The estimate takes the fast end of each (10 us, 1.5 or 5 ns, the
# chain once or twice), so a refusal is clearly absurd, never borderline.
_BYTES_PER_EVENT = {"eager": 128, "blocking": 96}
_BYTES_PER_RANK = 512
_ROUND_S = 10e-6
_RANK_ROUND_S = {"eager": 5e-9, "blocking": 1.5e-9}
_FILL_ROUNDS = {"eager": 2, "blocking": 1}
# The model: start times, stacks, the classes and prices of both faces
# (about 140 bytes per rank measured), the placement and -o's plain lists
# and JSON (about 350 more).
_MODEL_BYTES_PER_RANK = 640


def simulation_cost(params: WavefrontParams, iterations: int = 1, sends: str = "eager") -> Cost:
    """The memory (bytes) and replay time (seconds, at least) of simulating
    `iterations` iterations of the wavefront code `params` with `sends`
    ("eager" or "blocking"), from the array and the grid alone (see the
    comment above the constants for how it was derived)."""
    mode = sends if sends in _BYTES_PER_EVENT else "eager"
    events = wavefront_events(params, iterations)
    nranks = params.m * params.n
    rounds = max(_busiest_rank_events(params, iterations), _FILL_ROUNDS[mode] * _fill_steps(params, iterations))
    return Cost(bytes=_FIXED_BYTES + _BYTES_PER_EVENT[mode] * events + _BYTES_PER_RANK * nranks,
                seconds=rounds * (_ROUND_S + _RANK_ROUND_S[mode] * nranks), events=events, rounds=rounds)


def program_cost(nevents: int, nranks: int, busiest: int, sends: str = "eager") -> Cost:
    """The same for simulating a Program already built (its own 17 bytes
    per event are already spent), of `nevents` events over `nranks` ranks
    whose busiest has `busiest` events."""
    mode = sends if sends in _BYTES_PER_EVENT else "eager"
    return Cost(bytes=_FIXED_BYTES + (_BYTES_PER_EVENT[mode] - 17) * int(nevents) + _BYTES_PER_RANK * int(nranks),
                seconds=int(busiest) * (_ROUND_S + _RANK_ROUND_S[mode] * int(nranks)), events=int(nevents),
                rounds=int(busiest))


def build_cost(params: WavefrontParams, iterations: int = 1) -> Cost:
    """The memory (bytes) of building the program alone: its 17 bytes per
    event, and the index blocks each rank shape's events are written
    through (at most as many again, twice over)."""
    events = wavefront_events(params, iterations)
    return Cost(bytes=_FIXED_BYTES + 48 * events + 64 * params.m * params.n, seconds=0.0, events=events)


def model_cost(nranks: int) -> Cost:
    """The memory (bytes) of the analytical model for `nranks` ranks (its
    time is O(nranks) vector work, seconds for millions)."""
    return Cost(bytes=_FIXED_BYTES + _MODEL_BYTES_PER_RANK * int(nranks), seconds=0.0)


def available_memory() -> int | None:
    """Bytes this process may still allocate, or None if nothing says (see
    the module docstring)."""
    known = [v for v in (_meminfo_available(), _cgroup_room(), _rlimit_room()) if v is not None]
    return min(known) if known else None


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (OSError, ValueError, AttributeError):
        return None


def _cgroup_room() -> int | None:
    """memory.max - memory.current of this process's cgroup (v2), if limited."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8", errors="replace") as f:
            line = next((ln for ln in f if ln.startswith("0::")), None)
        if line is None:
            return None
        folder = os.path.join("/sys/fs/cgroup", line[3:].strip().lstrip("/"))
        with open(os.path.join(folder, "memory.max"), encoding="ascii") as f:
            limit = f.read().strip()
        if limit == "max":
            return None
        with open(os.path.join(folder, "memory.current"), encoding="ascii") as f:
            current = int(f.read().strip())
        return max(int(limit) - current, 0)
    except (OSError, ValueError):
        return None


def _rlimit_room() -> int | None:
    """RLIMIT_AS less the address space this process already has."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            size = next((int(ln.split()[1]) * 1024 for ln in f if ln.startswith("VmSize:")), 0)
        return max(soft - size, 0)
    except (OSError, ValueError):
        return None


def size_words(n: float) -> str:
    """Bytes in words: 512 bytes, 3.2 MiB, 29.6 GiB, 4.1 PiB."""
    for unit, shift in (("PiB", 50), ("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.3g} {unit}"
    return f"{int(n)} bytes"


def time_words(seconds: float) -> str:
    """Seconds in words: 40 s, 3.5 hours, 12 days."""
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:.3g} days"
    if seconds >= 2 * 3600:
        return f"{seconds / 3600:.3g} hours"
    if seconds >= 120:
        return f"{seconds / 60:.3g} minutes"
    return f"{seconds:.3g} s"


def check_cost(cost: Cost, what: str, hint: str, available: int | None = None) -> Cost:
    """`cost` if this machine can afford it; PredictError (one line: `what`
    needs ..., the estimate, `hint`) when it needs more memory than is
    available (`available` bytes, default available_memory()) or its replay
    would take longer than TIME_LIMIT_S."""
    room = available_memory() if available is None else available
    if room is not None and cost.bytes > room:
        raise PredictError(f"{what} needs about {size_words(cost.bytes)} of memory, more than the "
                           f"{size_words(room)} this machine has available: {hint}")
    if not math.isfinite(cost.seconds) or cost.seconds > TIME_LIMIT_S:
        raise PredictError(f"{what} would take at least about {time_words(cost.seconds)} ({cost.rounds:,} rounds "
                           f"over {cost.events:,} events), beyond the limit of {time_words(TIME_LIMIT_S)} for a "
                           f"replay: {hint}")
    return cost


def check_simulation(params: WavefrontParams, iterations: int = 1, sends: str = "eager",
                     available: int | None = None, hint: str = "") -> Cost:
    """simulation_cost(params, iterations, sends), or PredictError if this
    machine cannot afford it (check_cost); before anything is allocated."""
    cost = simulation_cost(params, iterations, sends)
    what = (f"simulating the {params.m}x{params.n} array ({params.m * params.n:,} ranks, {cost.events:,} "
            f"events)")
    model = model_cost(params.m * params.n)
    hint = hint or (f"simulate fewer ranks or fewer tiles (Nz/H_tile), or use the analytical model "
                    f"(wavefront(), needing about {size_words(model.bytes)})")
    return check_cost(cost, what, hint, available)


def check_model(nranks: int, available: int | None = None, hint: str = "") -> Cost:
    """model_cost(nranks), or PredictError if this machine cannot hold it."""
    return check_cost(model_cost(nranks), f"the model of {int(nranks):,} ranks",
                      hint or "predict fewer ranks", available)
