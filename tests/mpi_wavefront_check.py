"""Run under mpiexec by test_wavefront_mpi.py (2 and 4 ranks) and by
tools/sanitize.sh: the real wavefront kernel on every m x n array the ranks
make (1 x P, P x 1 and 2 x 2), with several H_tile, on COMM_WORLD and on a
sub-communicator with its ranks reversed, ends with the serial evaluation's
checksum; a wrong, missing or stale face, on any rank that receives one,
fails the verification on every rank; bad input raises on every rank
without a hang. Every rank checks; verdicts are combined."""
import sys

import numpy as np
from mpi4py import MPI

from hpcbench.comm import CommError
from hpcbench.predict import WavefrontParams
from hpcbench.predict._kernel import FAULTS, WARMUP, run_wavefront, serial_checksum
from hpcbench.predict._params import SWEEP_ORDER

comm = MPI.COMM_WORLD
size, rank = comm.Get_size(), comm.Get_rank()
problems = []
WORK, ITERATIONS = 2, 2


def check(condition, what):
    if not condition:
        problems.append(f"rank {rank}: {what}")


def arrays(p):
    """The m x n shapes of p ranks, every one: 1 x p, p x 1 and the squares between."""
    return [(m, p // m) for m in range(1, p + 1) if p % m == 0]


def sent(p: WavefrontParams, r: int) -> tuple[int, int]:
    """Faces and bytes rank r sends in an iteration, from the contract alone:
    per sweep and tile one east-west face (message_ew bytes) if it has a
    downstream x neighbour, one north-south face (message_ns) if a y one."""
    i, j = r % p.n, r // p.n
    messages = nbytes = 0
    for east, north, _ in SWEEP_ORDER:
        x_down = i > 0 if east else i < p.n - 1
        y_down = j > 0 if north else j < p.m - 1
        messages += p.tiles * (x_down + y_down)
        nbytes += p.tiles * (x_down * p.message_ew + y_down * p.message_ns)
    return messages, nbytes


def receives(p: WavefrontParams, r: int, sweep: int) -> bool:
    """Whether rank r has an upstream neighbour in `sweep` (the contract's layout)."""
    east, north, _ = SWEEP_ORDER[sweep]
    i, j = r % p.n, r // p.n
    return (i < p.n - 1 if east else i > 0) or (j < p.m - 1 if north else j > 0)


base = WavefrontParams(8, 12, 8, m=1, n=1, angles=4)
want = serial_checksum(base, work=WORK, iterations=WARMUP + ITERATIONS)
reversed_comm = comm.Split(0, size - rank)      # the same ranks in the other order

try:
    for m, n in arrays(size):
        for h in (1, 2, 8):
            p = base.with_(m=m, n=n, h_tile=h)
            for on in (comm, reversed_comm):
                times = run_wavefront(p, on, work=WORK, iterations=ITERATIONS)
                check((times.checksum, times.verified) == (want[0], True), f"{m}x{n} H_tile {h}: checksum")
                check(times.per_rank.shape == (size, ITERATIONS) and np.all(times.samples > 0), f"{m}x{n}: times")
                check(np.all(times.samples >= times.per_rank.max(axis=0) - 1e-12), f"{m}x{n}: slowest rank")
                # Every rank but a sweep's corners receives and sends; with
                # more than one rank someone waits for a face.
                check(times.recv.sum() > 0 and times.send.sum() > 0, f"{m}x{n}: messages timed")
                check(np.all(times.compute + times.send + times.recv <= times.per_rank * (1 + 1e-9)),
                      f"{m}x{n}: parts within the iteration")
                me = on.Get_rank()
                check((times.sent_messages[me], times.sent_bytes[me]) == sent(p, me),
                      f"{m}x{n} H_tile {h}: faces and bytes sent, Table 1's sizes")
            results = comm.allgather((times.checksum, float(times.median)))
            check(all(r == results[0] for r in results), f"{m}x{n}: every rank gets the same result")

    # Faults: each kind, on ranks that receive in the chosen sweep, is caught on every rank.
    for m, n in arrays(size):
        p = base.with_(m=m, n=n, h_tile=2)
        for kind in FAULTS:
            for sweep in (1, 4, 7):
                victims = [r for r in range(size) if receives(p, r, sweep)]
                victim = victims[(sweep + len(kind)) % len(victims)]
                try:
                    run_wavefront(p, comm, work=WORK, iterations=1, fault=(kind, victim, sweep))
                    problems.append(f"rank {rank}: {m}x{n} {kind} face on rank {victim} sweep {sweep}: not detected")
                except CommError as e:
                    check("verification failed" in str(e), f"{m}x{n} {kind}: {e}")
        # Without verify the damage still shows in the checksum.
        damaged = run_wavefront(p, comm, work=WORK, iterations=ITERATIONS, verify=False,
                                fault=("stale", size - 1, 0))
        check(damaged.checksum != want[0] and not damaged.verified, f"{m}x{n}: stale face without verify")

    # Bad input on every rank: an array the communicator does not hold.
    try:
        run_wavefront(base.with_(m=size, n=2), comm)
        problems.append(f"rank {rank}: {size}x2 array on {size} ranks: no error")
    except CommError as e:
        check("must be the number of ranks of comm" in str(e), f"wrong array: {e}")
except Exception as e:  # anything unexpected is this rank's verdict, not a hang
    problems.append(f"rank {rank}: {type(e).__name__}: {e}")

everyone = [p for ps in comm.allgather(problems) for p in ps]
if rank == 0:
    print("\n".join(everyone) if everyone else f"OK ({size} ranks)")
sys.exit(1 if everyone else 0)
