"""How long a run will take, without measuring: one model per benchmark from
its checked options, the machine (hwloc's topology) and the job's shape.

`run --estimate` prints these figures, `hpcbench sbatch` turns their sum
into `--time`, and the run's progress lines say the time left of a long
step. Every constant below was fitted on the machine the project's CI runs
on (2 PUs, 32 MiB L3, Open MPI 4.1): docs/slurm.md, "Estimates", says how
and how to refit them. The models count what each benchmark does (sizes,
loads, passes, rounds, messages) and price it; a machine much faster or
slower than that one scales every figure alike.

Standard library only: `hpcbench --help` and `sbatch` import this module
without NumPy. The options are duck-typed (each benchmark's own options
dataclass, already resolved by its `check`), so no domain is imported here.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from ._protocol import Job
from .topology import Topology

__all__ = ["CACHE_LOAD_S", "LONG_STEP_S", "bandwidth_seconds", "cache_loads", "cache_seconds", "cache_sizes",
           "comm_seconds", "format_estimates", "memory_seconds", "multibsp_seconds", "numa_seconds", "progress_label",
           "shared_seconds", "slurm_minutes", "stream_seconds", "time_left", "with_time_left", "FIXED_SECONDS"]

#: Seconds per load of the chase beyond the second-largest cache, bandwidth kernel included
#: (fitted: `run cache` at --cache-max 64 MiB and 256 MiB here). Priced alike in the largest cache
#: and in memory, so a machine whose last level is fast gets an estimate on the long side: the
#: safe side for --time.
CACHE_LOAD_S = 1.15e-7
#: Seconds per load within the smaller caches (L1, L2: a few cycles each).
CACHE_NEAR_LOAD_S = 1.5e-9
#: Seconds per measured size per pass besides its loads (allocation of the walk, its checks).
CACHE_SIZE_S = 0.001
#: Sizes refinement adds inside the rises, per base size (measured here: 79 to 85 for 65 to 73).
CACHE_REFINED_PER_SIZE = 1.2
#: Loads refinement adds per pass, per slot of the largest cache: its sizes bracket each edge,
#: the last edge's sizes are that cache's size, 13 of them walked twice (measured here: 12 to 15
#: million loads per pass for 0.5 million slots of a 32 MiB L3).
CACHE_REFINED_LOADS_PER_SLOT = 24
#: Seconds before the first pass: placement read back, calibration.
CACHE_START_S = 0.6
#: A progress line says the time left of a benchmark estimated longer than this (seconds).
LONG_STEP_S = 30.0
#: Benchmarks this machine cannot calibrate (matrix needs 4 ranks, the network ones 2 nodes):
#: their durations in the shipped examples (4 ranks on 4 emulated nodes), per benchmark.
FIXED_SECONDS = {"matrix": 13.0, "distance": 13.0, "network-access": 11.0}
_UNKNOWN_S = 15.0


def cache_sizes(min_size: int, max_size: int, stride: int, grid: str = "fine") -> list[int]:
    """The base sizes of a cache sweep (bytes): the sweep's own grid
    (hpcbench.cache._grid.sweep_sizes), so the estimate counts what runs."""
    from .cache._grid import sweep_sizes
    return [int(size) for size in sweep_sizes(min_size, max_size, stride, grid)]


def cache_loads(size: int, options: Any) -> int:
    """Loads one pass makes at `size` bytes: every timed sample walks at least
    min_accesses slots, after a verifying walk and the warm-up; sizes of
    long_slots slots or more are timed once, warmed by the verifying walk."""
    slots = max(size // options.stride, 1)
    if slots >= options.long_slots:
        return 2 * slots
    return (options.samples + options.warmup + 1) * max(options.min_accesses, slots)


def cache_seconds(options: Any, topology: Topology) -> float:
    """Seconds of the cache sweep (CacheOptions resolved: max_size, stride):
    passes x (loads priced by where they land + a cost per size), plus the
    sizes refinement adds. Grows with the largest cache, through max_size
    (twice it by default)."""
    caches = sorted(c.size for c in topology.caches if c.kind != "instruction")
    near = caches[-2] if len(caches) >= 2 else 0        # the larger of the caches a load hits fast
    sizes = cache_sizes(options.min_size, options.max_size, options.stride, options.grid)
    per_pass = sum(cache_loads(size, options) * (CACHE_NEAR_LOAD_S if size <= near else CACHE_LOAD_S)
                   for size in sizes) + CACHE_SIZE_S * len(sizes)
    if options.refine:
        largest = min(caches[-1] if caches else options.max_size, options.max_size)
        per_pass += CACHE_SIZE_S * CACHE_REFINED_PER_SIZE * len(sizes) + \
            CACHE_REFINED_LOADS_PER_SLOT * (largest // options.stride) * CACHE_LOAD_S
    return CACHE_START_S + options.passes * per_pass


def shared_seconds(options: Any, topology: Topology) -> float:
    """Seconds of shared-caches: a co-run per pair per round, pairs one per
    hwloc relation plus the random sample (every pair with pairs=all)."""
    pus = len(topology.pus)
    every = pus * (pus - 1) // 2
    pairs = every if options.pairs == "all" else min(every, 3 + options.sample)
    return 0.3 + 0.08 * options.rounds * pairs


def memory_seconds(options: Any, topology: Topology) -> float:
    """Seconds of memory: copies of `size` bytes, repetitions x rounds per
    pair (one per hwloc relation plus the sample) and the scalability runs."""
    pus = len(topology.pus)
    every = pus * (pus - 1) // 2
    pairs = every if options.pairs == "all" else min(every, 3 + options.sample)
    copies = options.rounds * options.repetitions * (pairs + pus)
    return 0.5 + copies * (options.size or 64 << 20) * 2.2e-10


#: bandwidth: seconds per byte of data volume of a sample (loads + stores; cache levels are faster, so
#: this prices them on the safe side), and per byte of a call's largest working set (allocation, first
#: touch and filling of the arrays, the check after the samples).
BANDWIDTH_S_PER_BYTE = 2.5e-11
BANDWIDTH_FILL_S_PER_BYTE = 1.5e-9


def bandwidth_seconds(options: Any, topology: Topology) -> float:
    """Seconds of bandwidth: per kernel and ISA one call on one core over
    every working set (filling the largest, warm-up and samples of at least
    min_bytes each), and per kernel one call of the team over memory."""
    from .bandwidth._plan import default_team, plan_levels
    team = default_team(topology, options.cores)
    levels, team_size = plan_levels(options, topology, team)
    sizes = [lv.size for lv in levels]
    per_sample = sum(max(options.min_bytes, s) for s in sizes) * BANDWIDTH_S_PER_BYTE
    one_call = max(sizes) * BANDWIDTH_FILL_S_PER_BYTE + (options.warmup + options.samples) * per_sample
    team_call = team_size * BANDWIDTH_FILL_S_PER_BYTE + (options.warmup + options.samples) * max(
        options.min_bytes, team_size) * len(team) * BANDWIDTH_S_PER_BYTE if team_size else 0.0
    kernels = options.kernels or ["load", "store", "copy", "update", "triad", "stream_triad"] + [
        f"{k}_nt" for k in ("store", "copy", "triad", "stream_triad")]
    isas = options.isas or ["avx512", "avx2", "sse2", "scalar"]
    calls = sum(not (k.endswith("_nt") and i == "scalar") for k in kernels for i in isas)   # no scalar NT stores
    return 0.05 + calls * one_call + len(kernels) * team_call


#: stream: seconds per byte STREAM counts, per core of a team (its four kernels, ordinary stores),
#: and per byte of first touch (three arrays per core, base pages).
STREAM_S_PER_BYTE = 2.5e-11
STREAM_TOUCH_S_PER_BYTE = 4e-10


def stream_seconds(options: Any, topology: Topology) -> float:
    """Seconds of stream: per team of the plan (one core, each shared
    domain, the node), the first touch of three arrays per core and
    1 + repetitions rounds of the four kernels (10 array lengths a round)."""
    from .stream._plan import plan_teams
    size = options.size or 64 << 20
    seconds = 0.2
    for team in plan_teams(topology, options.cores):
        k = len(team.pus)
        seconds += 3 * size * STREAM_TOUCH_S_PER_BYTE + (1 + options.repetitions) * 10 * size * k * STREAM_S_PER_BYTE
    return seconds


#: peakflops: seconds of a run beside its samples (pilot, start-up, the check's replay of one sample).
FLOPS_RUN_S = 0.01


def flops_seconds(options: Any, topology: Topology) -> float:
    """Seconds of peakflops: per instruction set and precision one run on
    one core and one on the all-cores team, each a warm-up and the samples
    of sample_ms, and the check's replay (about one more sample)."""
    isas = 4 if options.isa == "all" else 1
    precisions = 2 if options.precision == "both" else 1
    teams = 2 if options.cores is None or len(options.cores) > 1 else 1
    per_run = (options.samples + 2) * options.sample_ms * 1e-3 + FLOPS_RUN_S
    return 0.1 + isas * precisions * teams * per_run


#: numa: seconds per byte of a cell's buffer (binding, first touch, the reads, linking and walking the
#: chase once: 0.5 s for 128 MiB here), and per dependent load of the chase samples.
NUMA_S_PER_BYTE = 3.5e-9
NUMA_S_PER_LOAD = 1.2e-7


def numa_seconds(options: Any, topology: Topology) -> float:
    """Seconds of numa: one cell per (node with cores, node) of the
    chosen nodes, each the buffer's set-up and reads and the chase samples."""
    from .numa._plan import plan_numa
    cells = len(plan_numa(topology, options.nodes).cells)
    per_cell = (options.size or 64 << 20) * NUMA_S_PER_BYTE + options.repetitions * options.accesses * NUMA_S_PER_LOAD
    return 0.1 + cells * per_cell


def multibsp_seconds(options: Any, topology: Topology) -> float:
    """Seconds of multibsp: h-relations up to hmax, blocks of iterations
    per level, and the inner product up to 2^max_exponent doubles."""
    levels = len({c.level for c in topology.caches}) + 1
    hmax = options.hmax or 512          # None: chosen per level (512 to 1024 on a 2-vCPU guest)
    supersteps = levels * options.blocks * options.iterations * math.log2(max(hmax, 2))
    return 0.3 + supersteps * 2.5e-6 + options.reps * 2 ** options.max_exponent * 8 * 1e-9


def comm_seconds(options: Any, job: Job) -> float:
    """Seconds of comm: each kernel sweeps message sizes (0 and powers of
    two up to max_size) under a time cap per size; collectives are repeated
    for every number of processes, so they grow with the ranks."""
    sizes = 2 + int(math.log2(max(options.max_size, 1)))
    kernels = 2.5 + math.log2(max(job.ranks, 2)) * 2 + (job.nodes - 1)
    return 1.0 + sizes * options.cap_s * kernels


#: micro: Python's share of each test and size (probe, gather, statistics).
MICRO_POINT_S = 0.004
#: micro: the rate large messages move at, for the floor of a size's time
#: (a shared-memory copy here; a network is slower and the budget then grows).
MICRO_BYTES_PER_S = 4e9
#: micro: operations every size runs however short the budget (probe,
#: warm-up, the minimum samples).
MICRO_MIN_OPERATIONS = 8


def micro_seconds(family: str, options: Any, job: Job) -> float:
    """Seconds of an OSU/IMB family: each test (and sync) at each size takes
    its budget, or its minimum operations where those take longer (a window
    of 4 MiB messages); nbc measures three times per size; collectives
    repeat at each number of processes of `procs`."""
    tests = getattr(options, {"p2p": "p2p_tests", "collectives": "coll_tests", "nbc": "nbc_tests",
                              "rma": "rma_tests"}[family]) or ()
    syncs = len(options.syncs) if family == "rma" else 1
    total = 0.0
    for test in tests:
        windowed = test.endswith("bw") or test == "mbw_mr"
        for size in options.sizes or ():
            moved = size * (options.window if windowed else max(job.ranks, 2))
            floor = MICRO_MIN_OPERATIONS * moved / MICRO_BYTES_PER_S
            total += syncs * (MICRO_POINT_S + max(options.budget_s * (4 / 3 if family == "nbc" else 1), floor))
    scaling = len(options.procs or ()) * len(tests) * 2 * (MICRO_POINT_S + options.budget_s)
    return 0.2 + total + scaling


def time_left(estimate_s: float, elapsed_s: float) -> str:
    """"about 40 s left" for a step estimated at `estimate_s` seconds after
    `elapsed_s`; "" when it is not long (LONG_STEP_S) or already overdue."""
    if estimate_s <= LONG_STEP_S or elapsed_s >= estimate_s:
        return ""
    left = estimate_s - elapsed_s
    return f"about {left / 60:.0f} min left" if left >= 120 else f"about {left:.0f} s left"


def with_time_left(say: Callable[[str], None], estimate_s: float,
                   clock: Callable[[], float] = time.monotonic) -> Callable[[str], None]:
    """A benchmark's progress sink that adds the time left to each of its
    lines ("cache sweep: pass 2/5 done; about 40 s left") when the step is
    long (time_left); `say` itself for a short one."""
    if estimate_s <= LONG_STEP_S:
        return say
    start = clock()

    def progress(message: str) -> None:
        left = time_left(estimate_s, clock() - start)
        say(f"{message}; {left}" if left else message)
    return progress


def progress_label(name: str, k: int, n: int, estimate_s: float | None = None) -> str:
    """The head of a benchmark's first progress line: "cache (1 of 5)", and
    its estimate when long ("comm (5 of 5, about 2 min)")."""
    long = estimate_s is not None and estimate_s > LONG_STEP_S
    return f"{name} ({k} of {n}" + (f", about {_words(estimate_s or 0)}" if long else "") + ")"


def slurm_minutes(total_s: float, margin: float = 1.5, floor_s: float = 120.0) -> int:
    """A batch job's --time in whole minutes: the estimate times `margin`
    plus `floor_s` (start-up, MPI initialisation, the results file), rounded up."""
    return max(1, math.ceil((total_s * margin + floor_s) / 60))


def format_estimates(rows: list[tuple[str, float]], job: Job) -> list[str]:
    """The lines `run --estimate` prints: one per benchmark, then the total."""
    width = max([len(name) for name, _ in rows] + [5])
    lines = [f"estimated duration on {job.ranks} rank(s), {job.nodes} node(s) (not measured; docs/slurm.md):"]
    lines += [f"  {name:<{width}} {seconds:8.1f} s" for name, seconds in rows]
    total = sum(seconds for _, seconds in rows)
    lines.append(f"  {'total':<{width}} {total:8.1f} s ({_words(total)})")
    return lines


def _words(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s"


def fixed_seconds(name: str) -> float:
    """The duration of a benchmark this machine could not calibrate (FIXED_SECONDS)."""
    return FIXED_SECONDS.get(name, _UNKNOWN_S)
