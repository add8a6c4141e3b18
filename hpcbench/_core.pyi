"""Typed stubs of hpcbench._core, the C extension (csrc/python/).

Every kernel checks its parameters in C (hpcb_<family>_check) and raises
ParameterError naming the broken parameter; the *_check functions run the
same checks without measuring. Integer arguments that select a mode take the
module constants below (plain ints with the same values work too).
Times: "ticks" are the tick counter's units (timer_calibrate gives
ticks_per_ns); "ns" are nanoseconds of CLOCK_MONOTONIC. Sample arrays are
float64; NaN marks a sample a rank did not take (it sat out).
"""
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

_F64 = npt.NDArray[np.float64]

class ParameterError(ValueError):
    """A parameter breaks one of the C core's rules.

    parameter: the name of the broken parameter (the C params field, spelled
    as the Python argument); rule: the rule in words with the value received.
    str(error) == f"{parameter} {rule}".
    """

    parameter: str
    rule: str

# Visiting orders of traverse / traverse_team (enum hpcb_order).
ORDER_SEQUENTIAL: Final[int]
ORDER_RANDOM: Final[int]
ORDER_WINDOWED: Final[int]
# Page policies of traverse / copy_team buffers (enum hpcb_page_mode).
PAGES_NORMAL: Final[int]
PAGES_HUGE: Final[int]
PAGES_SYSTEM: Final[int]
# Instruction sets of load_sweep's loop (enum hpcb_isa); ISA_AUTO picks the widest this CPU runs.
ISA_AUTO: Final[int]
ISA_SCALAR: Final[int]
ISA_SSE2: Final[int]
ISA_AVX2: Final[int]
ISA_AVX512: Final[int]
# Modes of overlap_times (enum hpcb_overlap_mode).
OVERLAP_BLOCKING: Final[int]
OVERLAP_NONBLOCKING: Final[int]
OVERLAP_COMM_ONLY: Final[int]
OVERLAP_COMPUTE_ONLY: Final[int]
OVERLAP_INTERLEAVED: Final[int]
# Roles of echo_contention (enum hpcb_contention_role).
ROLE_IDLE: Final[int]
ROLE_ECHO_INITIATOR: Final[int]
ROLE_ECHO_RESPONDER: Final[int]
ROLE_LOAD_SENDER: Final[int]
ROLE_LOAD_RECEIVER: Final[int]
# Sides of overhead (enum hpcb_overhead_side).
OVERHEAD_SEND: Final[int]
OVERHEAD_RECV: Final[int]
OVERHEAD_GAP: Final[int]
# Sources of topology_describe (enum hpcb_topo_source).
TOPO_THIS_MACHINE: Final[int]
TOPO_XML_FILE: Final[int]
TOPO_SYNTHETIC: Final[int]

# ---- build, timer, topology, binding ---------------------------------------

def build_info() -> dict[str, Any]:
    """compiler, cflags, hwloc_api_compiled, hwloc_api_runtime (strings), sanitized (bool)."""

def timer_calibrate(calibration_ms: int = 60) -> dict[str, Any]:
    """Compare the tick counter with CLOCK_MONOTONIC for calibration_ms (1..10000) milliseconds.

    Returns source (str), ticks_per_ns, resolution_ticks, overhead_ticks,
    resolution_ns, overhead_ns, calibration_ns (floats).
    """

def topology_describe(kind: int, source: str | None = None, /) -> dict[str, Any]:
    """The hwloc objects of a topology: kind TOPO_THIS_MACHINE, TOPO_XML_FILE
    (source: a file path) or TOPO_SYNTHETIC (source: an hwloc synthetic string).
    ValueError "hwloc could not load ..." if hwloc refuses the source."""

def network_devices(kind: int, source: str | None = None, /) -> list[dict[str, Any]]:
    """hwloc's network OS devices (network interfaces, OpenFabrics HCAs) of a
    topology loaded with I/O discovery: name, kind ("network" or
    "openfabrics") and pus, the PUs of the package, NUMA node or machine
    each is attached to. Same kinds and errors as topology_describe."""

def bind_thread(pus: Sequence[int], /) -> None:
    """Bind the calling thread to these PU OS indexes (ParameterError "pus" if one is unknown)."""

def thread_binding() -> list[int]:
    """The PU OS indexes the calling thread may run on."""

# ---- one node: traversal, copy, DAXPY, teams ------------------------------

def traverse(array_bytes: int, stride_bytes: int, order: int = ..., seed: int = 1, min_accesses: int = 1,
             warmup: int = 1, samples: int = 1, page_mode: int = ...,
             window_bytes: int = 131072) -> tuple[_F64, _F64, int]:
    """Dependent loads through array_bytes (bytes), slots stride_bytes (bytes) apart, on the calling thread.

    Returns (ticks per access, ns per access), one entry per sample, and the
    loads per sample (whole traversals, at least min_accesses). warmup is a
    number of untimed traversals; window_bytes (bytes) matters for ORDER_WINDOWED.
    """

def traverse_team(pus: Sequence[int], array_bytes: int, stride_bytes: int, order: int = ..., seed: int = 1,
                  min_accesses: int = 1, warmup: int = 1, samples: int = 1, page_mode: int = ...,
                  window_bytes: int = 131072) -> tuple[_F64, _F64, int]:
    """traverse on every PU of pus at once: arrays of shape (len(pus), samples)."""

def traverse_check(array_bytes: int, stride_bytes: int, order: int = ..., min_accesses: int = 1, samples: int = 1,
                   page_mode: int = ..., window_bytes: int = 131072) -> None:
    """None if traverse would accept these; else ParameterError (array_bytes, stride_bytes, order,
    window_bytes, min_accesses, samples, page_mode)."""

def chase_sweep(buffer_bytes: int, sizes: Sequence[int], stride_bytes: int = 64, order: int = ..., seed: int = 1,
                window_bytes: int = 131072, min_accesses: int = 1, warmup: int = 1, samples: int = 1,
                page_mode: int = ..., long_slots: int = 0) -> tuple[_F64, _F64, _F64, _F64, int, float]:
    """One buffer of buffer_bytes, touched in address order; for each size (bytes, in the order given)
    a pure pointer chase through the slots of the first size bytes.

    Returns (ticks, ns) per access of shape (len(sizes), samples) (a size of long_slots
    slots or more is timed once, its other samples NaN), the loads per sample of each
    size, the physical frame of each base page of the buffer (-1 unknown), how many
    frames are known, and the bytes huge pages back (-1 unknown).
    """

def chase_check(buffer_bytes: int, sizes: Sequence[int], stride_bytes: int = 64, order: int = ..., seed: int = 1,
                window_bytes: int = 131072, min_accesses: int = 1, warmup: int = 1, samples: int = 1,
                page_mode: int = ..., long_slots: int = 0) -> None:
    """None if chase_sweep would accept these; else ParameterError."""

def load_sweep(buffer_bytes: int, sizes: Sequence[int], min_bytes: int = 1 << 24, warmup: int = 1, samples: int = 1,
               page_mode: int = ..., isa: int = ...) -> tuple[_F64, _F64, _F64, int]:
    """Streaming loads over the first size bytes of one buffer, whole passes of at least min_bytes per sample.

    Returns (ns, ticks) per sample of shape (len(sizes), samples), the bytes read per
    sample of each size, and the ISA_* loop used.
    """

def load_check(buffer_bytes: int, sizes: Sequence[int], min_bytes: int = 1 << 24, warmup: int = 1, samples: int = 1,
               page_mode: int = ..., isa: int = ...) -> None:
    """None if load_sweep would accept these; else ParameterError."""

def load_supported(isa: int) -> bool:
    """Whether this CPU runs load_sweep's loop with that ISA_* instruction set."""

# Kernels of bandwidth_team (enum hpcb_bw_kernel): likwid-bench's load, store, copy, update, triad and stream.
BW_LOAD: Final[int]
BW_STORE: Final[int]
BW_COPY: Final[int]
BW_UPDATE: Final[int]
BW_TRIAD: Final[int]
BW_STREAM_TRIAD: Final[int]

def bandwidth_team(pus: Sequence[int], kernel: int, sizes: Sequence[int], isa: int = ..., nontemporal: bool = False,
                   min_bytes: int = 1 << 24, warmup: int = 1, samples: int = 1,
                   page_mode: int = ...) -> tuple[_F64, _F64, _F64, _F64, int]:
    """Kernel BW_* on every PU at once over each working set of sizes (bytes per member, all arrays).

    Returns (start_ns, end_ns) of shape (members, sizes * samples) on one clock, the data volume
    (loads + stores) of one member's sample per size, the bytes of each array per size, and the
    ISA_* loops used."""

def bandwidth_check(kernel: int, sizes: Sequence[int], isa: int = ..., nontemporal: bool = False,
                    min_bytes: int = 1 << 24, warmup: int = 1, samples: int = 1, page_mode: int = ...) -> None:
    """None if bandwidth_team would accept these (its PUs aside); else ParameterError."""

def bandwidth_streams(kernel: int) -> int:
    """The arrays kernel BW_* reads and writes (0 for an unknown kernel)."""

# Precisions and test faults of flops_team (enum hpcb_flops_precision, enum hpcb_flops_fault).
FLOPS_DOUBLE: Final[int]
FLOPS_SINGLE: Final[int]
FLOPS_FAULT_NONE: Final[int]
FLOPS_FAULT_SHORT: Final[int]

def flops_team(pus: Sequence[int], iterations: int, samples: int, warmup: int = 1, chains: int = 12,
               isa: int = ..., precision: int = ..., fault: int = ...) -> tuple[_F64, _F64, _F64, int, int, float]:
    """`chains` independent FMA chains (registers only) x `iterations` steps per sample on every PU at once.

    Returns (ns, start_ns, end_ns) of each sample, arrays (members, samples), start and end on one clock;
    the ISA_* the loop used; 1 if the scalar loop uses FMA (else multiply then add); the flops of one
    member's sample. RuntimeError if a member's chains fail the check after timing."""

def flops_check(iterations: int, samples: int, warmup: int = 1, chains: int = 12, isa: int = ...,
                precision: int = ...) -> None:
    """None if flops_team would accept these (its PUs aside); else ParameterError."""

def flops_supported(isa: int) -> bool:
    """Whether this CPU runs flops_team's loop of that ISA_* (AVX2 needs FMA3 too)."""

def flops_scalar_fma() -> bool:
    """Whether flops_team's scalar loop uses FMA instructions (the CPU has FMA3)."""

# Store kinds of stream_team (enum hpcb_stream_stores).
STREAM_ORDINARY: Final[int]
STREAM_NONTEMPORAL: Final[int]

def stream_team(pus: Sequence[int], array_bytes: int, repetitions: int, warmup: int = 1, page_mode: int = ...,
                isa: int = ..., stores: int = ..., plant_fault: int = 0) -> tuple[_F64, _F64, int]:
    """STREAM's Copy, Scale, Add and Triad on three arrays of array_bytes per PU, all PUs at once.

    Returns (start_ns, end_ns) of shape (len(pus), repetitions * 4), kernel k of repetition r at
    column 4 * r + k, ns after a CLOCK_MONOTONIC reading taken before any member started; and the
    ISA_* the loops used. plant_fault=1 (tests) makes the payload check fail (RuntimeError).
    """

def stream_check(array_bytes: int, repetitions: int, warmup: int = 1, page_mode: int = ..., isa: int = ...,
                 stores: int = ...) -> None:
    """None if stream_team would accept these (its PUs aside); else ParameterError."""

def numa_cell(pus: Sequence[int], node: int, buffer_bytes: int, repetitions: int, warmup: int = 1, samples: int = 5,
              accesses: int = 200000, order: int = ..., window_bytes: int = 131072, seed: int = 1,
              page_mode: int = ..., isa: int = ...,
              chase_bytes: int = -1) -> tuple[_F64, _F64, _F64, _F64, int, int, int, int, int]:
    """One cell of the NUMA matrix: the team `pus` reads a buffer bound to NUMA node `node`, then pus[0] chases
    its first chase_bytes (-1: all of it).

    Returns (ns, start_ns, end_ns) of shape (len(pus), repetitions), one read of each member's slice,
    start and end in ns after a CLOCK_MONOTONIC reading taken before any member started; latency_ns
    (samples,), ns per dependent load; then slice_bytes, the ISA_* of the read loop, strict (1 if the
    binding is HWLOC_MEMBIND_STRICT), location_chunks (chunks whose pages hwloc located; 0: it cannot
    here) and misplaced_chunks (of those, chunks with a page on another node).
    """

def numa_check(members: int, buffer_bytes: int, repetitions: int, warmup: int = 1, samples: int = 5,
               accesses: int = 200000, order: int = ..., window_bytes: int = 131072, page_mode: int = ...,
               isa: int = ..., chase_bytes: int = -1) -> None:
    """None if numa_cell would accept these with `members` PUs (its PUs and node aside); else ParameterError."""

def numa_distances(kind: int, source: str | None = None) -> tuple[list[int], _F64] | None:
    """hwloc's NUMA latency matrix of a topology (TOPO_*): (node OS indexes, matrix from row to column), or None."""

def copy_team(pus: Sequence[int], array_bytes: int, repetitions: int, warmup: int = 1,
              page_mode: int = ...) -> tuple[_F64, _F64, _F64, _F64]:
    """STREAM copy of array_bytes (bytes, a multiple of 64) on every PU at once.

    Returns (ns, ticks, start_ns, end_ns) of each copy, shape (len(pus),
    repetitions). start_ns and end_ns are CLOCK_MONOTONIC readings, in ns
    after one reading taken before any member started, so they compare across
    members (end_ns - start_ns == ns). Bandwidth counts 2 * array_bytes per copy.
    """

def copy_check(array_bytes: int, repetitions: int, warmup: int = 1, page_mode: int = ...) -> None:
    """None if copy_team would accept these (its PUs aside); else ParameterError
    (array_bytes, repetitions, warmup, page_mode)."""

def daxpy_times(n: int, warmup: int, iterations: int, /) -> _F64:
    """Ticks of each y += a*x over n doubles on the calling thread (iterations entries)."""

def team_check(pus: Sequence[int]) -> None:
    """None if pus is a valid team: 1..65536 distinct PUs of this machine allowed to this
    process; else ParameterError "pus"."""

# ---- MPI kernels (comm: an mpi4py communicator; every rank calls) ----------

def barrier_times(comm: Any, warmup: int = 10, samples: int = 100, /) -> _F64:
    """Nanoseconds of each MPI_Barrier on this rank."""

def echo(comm: Any, partner: int, initiator: bool, bytes: int, warmup: int, iterations: int,
         inner: int = 1, /) -> _F64:
    """Ticks of each sample of `inner` round trips of `bytes` bytes with partner (NaN if partner < 0)."""

def exchange(comm: Any, partner: int, initiator: bool, bytes: int, warmup: int, iterations: int,
             inner: int = 1, /) -> _F64:
    """Ticks of each sample of `inner` simultaneous exchanges of `bytes` bytes (NaN if partner < 0)."""

def overhead(comm: Any, partner: int, timed: bool, side: int, bytes: int, delay_ticks: int, warmup: int,
             iterations: int, window: int = 1, /) -> _F64:
    """Ticks of the timed rank's MPI_Send (side OVERHEAD_SEND), MPI_Recv (OVERHEAD_RECV, after waiting
    delay_ticks for the message to arrive) or `window` back-to-back sends and an ack (OVERHEAD_GAP), one per
    iteration; 0 on the partner, NaN if partner < 0."""

def p2p_check(bytes: int, warmup: int, iterations: int, inner: int = 1) -> None:
    """None if echo and exchange would accept these sizes and counts (communicator and partner
    aside); else ParameterError (bytes, iterations, inner, warmup)."""

def bcast_times(comm: Any, root: int, bytes: int, warmup: int, iterations: int, /) -> _F64:
    """Ticks of each broadcast of `bytes` bytes from root, on this rank."""

def allreduce_times(comm: Any, count: int, warmup: int, iterations: int, /) -> _F64:
    """Ticks of each global sum of `count` doubles, on this rank."""

def overlap_times(comm: Any, partner: int, bytes: int, n: int, mode: int, warmup: int, iterations: int, /) -> _F64:
    """Ticks of each iteration of mode OVERLAP_* (an exchange of `bytes` bytes and a DAXPY over
    n doubles) with partner (NaN if partner < 0); OVERLAP_INTERLEAVED runs the four timed modes in
    turn and returns shape (4, iterations), one row per mode in enum order."""

# The OSU/IMB micro-benchmarks (csrc/kernels/micro.h): tests, collective modes, one-sided syncs.
MICRO_LATENCY: Final[int]
MICRO_BW: Final[int]
MICRO_BIBW: Final[int]
MICRO_MBW_MR: Final[int]
MICRO_MULTI_LAT: Final[int]
MICRO_BARRIER: Final[int]
MICRO_BCAST: Final[int]
MICRO_ALLREDUCE: Final[int]
MICRO_REDUCE: Final[int]
MICRO_ALLGATHER: Final[int]
MICRO_ALLGATHERV: Final[int]
MICRO_ALLTOALL: Final[int]
MICRO_ALLTOALLV: Final[int]
MICRO_GATHER: Final[int]
MICRO_GATHERV: Final[int]
MICRO_SCATTER: Final[int]
MICRO_SCATTERV: Final[int]
MICRO_REDUCE_SCATTER: Final[int]
MICRO_PUT_LATENCY: Final[int]
MICRO_GET_LATENCY: Final[int]
MICRO_ACC_LATENCY: Final[int]
MICRO_PUT_BW: Final[int]
MICRO_GET_BW: Final[int]
MODE_BLOCKING: Final[int]
MODE_PURE: Final[int]
MODE_OVERLAP: Final[int]
MODE_CPU: Final[int]
SYNC_FENCE: Final[int]
SYNC_LOCK: Final[int]

def micro_times(comm: Any, test: int, bytes: int, warmup: int, iterations: int, inner: int = 1,
                mode: int = ..., sync: int = ..., pairs: int = 1, window: int = 1,
                compute_ticks: int = 0) -> Any:
    """Ticks of each sample of `inner` operations of test MICRO_* on this rank (NaN where the rank
    takes no part); mode MODE_OVERLAP: (ticks, the computation's ticks per sample)."""

def rma_available(comm: Any, /) -> bool:
    """Whether this MPI library creates a one-sided window on comm (collective over comm)."""

def shift_times(comm: Any, dest: int, source: int, bytes: int, warmup: int, iterations: int, /) -> _F64:
    """Ticks of each iteration sending `bytes` bytes to dest while receiving from source (NaN if dest < 0)."""

def flow_times(comm: Any, dest: int, source: int, bytes: int, warmup: int, iterations: int, /) -> _F64:
    """Ticks, shape (2, iterations), from each iteration's barrier to the completion of the send to dest (row 0,
    NaN if dest < 0) and of the receive from source (row 1, NaN if source < 0)."""

def echo_contention(comm: Any, role: int, partner: int, load_sender: int, bytes: int, load_bytes: int,
                    warmup: int, iterations: int, /) -> tuple[_F64, int, float]:
    """An echo timed while a load pair streams messages of load_bytes bytes (role ROLE_*).

    Returns (ticks of each round trip (echo ranks), load messages moved, load ticks (load ranks)).
    """

# ---- MultiBSP ---------------------------------------------------------------

def hcomm(pus: Sequence[int], hmax: int, iterations: int, blocks: int = 10, warmup: int = 10,
          daxpy_length: int = 1024) -> tuple[_F64, _F64]:
    """h-communication between the threads on pus (at least 2).

    Returns (ticks of each block of `iterations` supersteps, shape (hmax + 1, blocks), on thread 0;
    DAXPY flops per tick of each thread over daxpy_length doubles).
    """

def hcomm_check(hmax: int, iterations: int, blocks: int = 10, warmup: int = 10, daxpy_length: int = 1024) -> None:
    """None if hcomm would accept these (its PUs aside); else ParameterError
    (hmax, iterations, blocks, warmup, daxpy_length)."""

def inner_product(pus: Sequence[int], leaf_parent: Sequence[int], parent: Sequence[int], master: Sequence[int],
                  nleaves: Sequence[int], begin: Sequence[int], end: Sequence[int], x: npt.ArrayLike,
                  reps: int, /) -> tuple[_F64, _F64, _F64, _F64, float]:
    """The MultiBSP inner product of x (doubles) over a flattened tree, reps times.

    Components bottom up (parent[c] > c, root last with parent -1 and master 0);
    thread t runs on pus[t] and sums x[begin[t]:end[t]]. Returns (total ticks,
    ticks inside the team, per run; each thread's loop ticks, shape (reps, threads);
    ticks from the last loop's end to the root's sum, per run) and the last run's result.
    """

def sumsq_rate(pus: Sequence[int], length: int, trials: int, /) -> _F64:
    """The inner product's leaf loop, every thread on its own slice of length doubles at once.

    Returns flops per tick of each thread in each trial (of at least ~1 ms), shape (trials, threads).
    """

# ---- CoMet's matrix layer (csrc/kernels/matrix.c, matrix_verify.c) -----------
# mesh: rows * cols ranks, mesh[r * cols + c] at mesh row r, column c; transposed:
# cols * rows ranks, the mesh a transpose leaves the matrix on. A local matrix is
# (n/rows + 2) x (n/cols + 2) doubles, its guard wrapper included.

# Kernels (enum hpcb_matrix_op) and shift directions (enum hpcb_matrix_direction).
MATRIX_UPDATE_GUARD: Final[int]
MATRIX_SHIFT: Final[int]
MATRIX_TRANSPOSE: Final[int]
MATRIX_ROW_BROADCAST: Final[int]
MATRIX_COL_BROADCAST: Final[int]
MATRIX_NORTH: Final[int]
MATRIX_EAST: Final[int]

def matrix_times(comm: Any, op: int, n: int, rows: int, cols: int, mesh: Sequence[int], transposed: Sequence[int],
                 warmup: int, iterations: int, direction: int = 0, index: int = 0, block: bool = False) -> Any:
    """Ticks of each application of kernel `op` on this rank (an untimed barrier before each),
    or (ticks, this rank's local matrix after the last application) with block=True. Every
    element is verified after the loop: RuntimeError naming the first wrong one if any is."""

def matrix_check(op: int, n: int, rows: int, cols: int, mesh: Sequence[int], transposed: Sequence[int],
                 iterations: int = 1, direction: int = 0, index: int = 0) -> None:
    """None if matrix_times would accept these (the communicator aside); else ParameterError
    (op, direction, rows, cols, n, index, iterations, mesh, transposed)."""

def matrix_expected(rank: int, op: int, n: int, rows: int, cols: int, mesh: Sequence[int],
                    transposed: Sequence[int], applied: int = 0, direction: int = 0, index: int = 0) -> _F64:
    """The local matrix `rank` must hold after `applied` applications of `op` (0: the fixed setup)."""

def matrix_verify(block: npt.ArrayLike, rank: int, op: int, n: int, rows: int, cols: int, mesh: Sequence[int],
                  transposed: Sequence[int], applied: int, direction: int = 0, index: int = 0) -> tuple[int, str]:
    """(elements of block that differ from matrix_expected, the first of them in words)."""

# ---- the real wavefront kernel (csrc/kernels/wavefront.c, wavefront_solve.c, wavefront_wg.c) -----
# Hammond et al. 2009's Chimaera-like code, following hpcbench/predict/_params.py: an nx x ny x nz grid
# over m rows x n columns of ranks (rank = j * n + i), eight sweeps an iteration, tiles of h_tile planes.

# Faults a run can inject to test its verification (enum hpcb_wavefront_fault).
WAVEFRONT_FAULT_NONE: Final[int]
WAVEFRONT_FAULT_CORRUPT: Final[int]
WAVEFRONT_FAULT_MISSING: Final[int]
WAVEFRONT_FAULT_STALE: Final[int]

def wavefront_times(comm: Any, nx: int, ny: int, nz: int, m: int, n: int, h_tile: int = 1, angles: int = 6,
                    work: int = 1, warmup: int = 1, iterations: int = 1, verify: bool = True, fault: int = 0,
                    fault_rank: int = 0,
                    fault_sweep: int = 0) -> tuple[_F64, _F64, _F64, _F64, int, int, float, int, int]:
    """(ticks, computing ticks, MPI_Send ticks, MPI_Recv ticks) of each timed iteration on this rank (an
    untimed barrier before each), then the grid's checksum, the serial evaluation's (0 without verify),
    the sum of every cell's flux, and the faces and bytes this rank sent in one iteration. RuntimeError on
    every rank if the checksums differ."""

def wavefront_check(nx: int, ny: int, nz: int, m: int, n: int, h_tile: int = 1, angles: int = 6, work: int = 1,
                    warmup: int = 1, iterations: int = 1, verify: bool = True, fault: int = 0, fault_rank: int = 0,
                    fault_sweep: int = 0) -> None:
    """None if wavefront_times would accept these (the communicator aside); else ParameterError
    (nx, ny, nz, h_tile, m, n, angles, work, warmup, iterations, fault, fault_rank, fault_sweep)."""

def wavefront_serial(nx: int, ny: int, nz: int, angles: int = 6, work: int = 1,
                     iterations: int = 1) -> tuple[int, float]:
    """(checksum, total) of `iterations` iterations over the whole grid on this process, no MPI."""

def wavefront_wg(cells_x: int, cells_y: int, nz: int, h_tile: int = 1, angles: int = 6, work: int = 1,
                 warmup: int = 1, repetitions: int = 10) -> _F64:
    """Ticks of each sweep through a cells_x x cells_y x nz stack in tiles of h_tile planes, computing
    alone (no MPI); sample k runs sweep k mod 8."""
