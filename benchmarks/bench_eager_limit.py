"""The MPI library's effective eager limit: up to which size MPI_Send
returns before its receiver has entered MPI, the value `predict wavefront
--eager-limit` takes (faces above it are coupled to their receive;
docs/predict.md, "Predicting a code you did not write").

    python benchmarks/bench_eager_limit.py [--sizes 256,1024,...] [--late-ms 50] [--trials 5] [-- MPIEXEC_ARGS...]

Two ranks under `mpiexec -n 2` (the arguments after `--` go to mpiexec:
`--mca btl self,tcp` for the network path, `--host a,b` for two nodes).
For each size the pair first exchanges `--warm` messages of that size with
the receiver waiting (transports open fast paths after a few messages:
Open MPI's shared-memory fast boxes after 16), then, `--trials` times, the
receiver sleeps `--late-ms` before its MPI_Recv while the sender times its
MPI_Send. A send that took more than half the delay waited for its
receiver: coupled. Prints per size the median send time and the verdict,
then the largest size below the first coupled one.

Peer: none; the subject is the MPI library (ompi_info's
btl_*_eager_limit is what the library says; this is what it does).
Nothing is asserted: the verdicts are medians of timings on a shared
machine. Bad input (sizes not positive whole numbers, --trials or --warm
below 1, --late-ms not positive, no mpiexec) is one line and exit 2.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from build_peers import child_env, fail, tool

SCRIPT = "bench_eager_limit.py"
DEFAULT_SIZES = "64,256,512,1024,2048,4000,4096,4200,8192,16384,32768,60000,65536,70000,131072"


def worker(sizes: list[int], late_s: float, trials: int, warm: int) -> None:
    """One of the two ranks: rank 0 sends and prints JSON lines."""
    import numpy as np
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    for size in sizes:
        buf = np.zeros(size, dtype=np.uint8)
        for _ in range(warm):
            if rank == 0:
                comm.Send(buf, dest=1, tag=1)
            else:
                comm.Recv(buf, source=0, tag=1)
        times = []
        for _ in range(trials):
            comm.Barrier()
            if rank == 0:
                start = time.perf_counter()
                comm.Send(buf, dest=1, tag=2)
                times.append(time.perf_counter() - start)
            else:
                time.sleep(late_s)
                comm.Recv(buf, source=0, tag=2)
        if rank == 0:
            print(json.dumps({"size": size, "send_s": times}), flush=True)


def launch(args: argparse.Namespace, extra: list[str]) -> int:
    mpiexec = tool("mpiexec", SCRIPT, "to run the two ranks")
    argv = [mpiexec, "-n", "2", *extra, sys.executable, __file__, "--worker", "--sizes", args.sizes,
            "--late-ms", str(args.late_ms), "--trials", str(args.trials), "--warm", str(args.warm)]
    done = subprocess.run(argv, capture_output=True, text=True, env=child_env(), timeout=600)
    if done.returncode != 0:
        fail(SCRIPT, f"mpiexec exited {done.returncode}: {done.stderr.strip().splitlines()[-1:] or ''}")
    late = args.late_ms / 1e3
    print(f"MPI_Send against a receiver {args.late_ms:g} ms late (median of {args.trials}, after {args.warm} "
          f"warm messages; mpiexec {' '.join(extra) or '(defaults)'}):")
    limit = None
    for line in done.stdout.splitlines():
        row = json.loads(line)
        median = statistics.median(row["send_s"])
        coupled = median > late / 2
        if coupled and limit is None:
            limit = row["size"]
        print(f"  {row['size']:>8} B  {median * 1e3:8.3f} ms  {'coupled' if coupled else 'eager'}")
    print("every size eager" if limit is None else f"first coupled size: {limit} B (use --eager-limit below it)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=DEFAULT_SIZES, help="message sizes in bytes, comma-separated")
    ap.add_argument("--late-ms", type=float, default=50.0, help="how late the receiver posts (default 50 ms)")
    ap.add_argument("--trials", type=int, default=5, help="timed sends per size (default 5)")
    ap.add_argument("--warm", type=int, default=32, help="untimed messages per size first (default 32)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args, extra = ap.parse_known_args()
    extra = [a for a in extra if a != "--"]
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        fail(SCRIPT, f"--sizes takes positive whole numbers of bytes, comma-separated, got {args.sizes!r}")
    if args.trials < 1 or args.warm < 1:
        fail(SCRIPT, f"--trials and --warm must be at least 1, got {args.trials} and {args.warm}")
    if not args.late_ms > 0:
        fail(SCRIPT, f"--late-ms must be a positive number of milliseconds, got {args.late_ms}")
    if args.worker:
        worker(sizes, args.late_ms / 1e3, args.trials, args.warm)
        return 0
    return launch(args, extra)


if __name__ == "__main__":
    sys.exit(main())
