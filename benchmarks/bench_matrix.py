"""Figures for CoMet's matrix layer (issue 16).

    python benchmarks/bench_matrix.py [--runs 5] [--n 1024] [--ranks 4] [--no-bind] [--json out.json]
                                      [--matrix-ref PATH]

Prints, measured in this run on this machine:
  * per kernel (update_guard, shift north and east, transpose, row and
    column broadcast), hpcbench's time at dimension n against a plain C MPI
    program doing the same exchanges (benchmarks/peers/matrix_ref.c, compiled
    here with mpicc): target hpcbench / plain C at most 1.1 at n = 1024 with
    4 ranks. Both report the median over applications of the slowest rank's
    time (a barrier before each application), and the C program times as
    many applications of each kernel as hpcbench's last run did (a first,
    uncounted hpcbench run sets them), so both sample windows of the same
    length of a machine whose load comes and goes. Runs alternate between
    the two programs (C first in odd runs, hpcbench first in even ones); the
    ratio of a kernel is the median over runs of hpcbench's time over the
    median over runs of C's, and each run's own ratio is printed too;
  * the wall time of `mpiexec -n 4 python -m hpcbench run matrix` with
    default settings: target at most 60 s.
With more ranks than cores mpiexec gets --oversubscribe; by default the
ranks are also bound round-robin to cores (--bind-to core:overload-allowed
--map-by core) for both programs alike, which makes runs repeatable:
unbound, the OS moves time-sharing ranks around and one run's shift or
transpose can take ten times another's, for either program. Nothing is
asserted.

Peer: the plain C program is built here from benchmarks/peers/matrix_ref.c
with $MPICC (default mpicc), or given built with --matrix-ref PATH;
hpcbench's side is benchmarks/peers/matrix_hpcbench.py, run with this
Python. Needs Open MPI's mpiexec on PATH. A missing peer is one line and
exit status 2. Runs the installed hpcbench.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
from build_peers import HERE, child_env, fail, peer_binary, tool

SCRIPT = "bench_matrix.py"
KERNELS = ["update_guard", "shift_north", "shift_east", "transpose", "row_broadcast", "col_broadcast"]


def mpiexec(n, args, bind, timeout=600):
    """stdout of `mpiexec -n n args`, started in the temporary directory (a
    clone's hpcbench/ in the current one would shadow the installed package)."""
    cmd = ["mpiexec", "-n", str(n)]
    if n > (os.cpu_count() or 1):
        cmd.append("--oversubscribe")
    if bind:
        cmd += ["--bind-to", "core:overload-allowed", "--map-by", "core"]
    proc = subprocess.run(cmd + args, capture_output=True, text=True, env=child_env(), timeout=timeout,
                          cwd=tempfile.gettempdir())
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd + args)} failed: {proc.stderr.strip()[-800:]}")
    return proc.stdout


def parse(text, column=1, kind=float):
    return {line.split()[0]: kind(line.split()[column]) for line in text.splitlines() if line.strip()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="alternating runs of the two programs (default 5)")
    ap.add_argument("--n", type=int, default=1024, help="matrix dimension of the comparison")
    ap.add_argument("--ranks", type=int, default=4, help="MPI ranks of both programs (default 4)")
    ap.add_argument("--no-bind", dest="bind", action="store_false", help="leave the ranks unbound")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--matrix-ref", metavar="PATH", help="a built benchmarks/peers/matrix_ref.c (default: build it "
                                                         "with $MPICC)")
    args = ap.parse_args()
    for name in ("runs", "n", "ranks"):
        if getattr(args, name) < 1:
            fail(SCRIPT, f"--{name} must be at least 1, got {getattr(args, name)}")
    tool("mpiexec", SCRIPT, "install Open MPI (Debian: openmpi-bin)")
    tmp = tempfile.mkdtemp()
    ref = peer_binary("matrix_ref", args.matrix_ref, tmp, SCRIPT)
    print(f"{args.ranks} ranks on {os.cpu_count()} cores"
          + (" (oversubscribed)" if args.ranks > (os.cpu_count() or 1) else "")
          + (", bound round-robin to cores" if args.bind else ", unbound") + f"; n = {args.n}")

    def hpcbench():
        return mpiexec(args.ranks, [sys.executable, os.path.join(HERE, "peers", "matrix_hpcbench.py"), str(args.n)],
                       args.bind)

    counts = parse(hpcbench(), 2, int)          # uncounted: how many applications each kernel takes
    runs = []
    print(f"{'run':<4}{'kernel':<15}{'plain C':>12}{'hpcbench':>12}{'ratio':>8}{'applications':>14}")
    for r in range(args.runs):
        got = {}
        for who in (["c", "h"] if r % 2 == 0 else ["h", "c"]):
            if who == "c":
                got["c"] = parse(mpiexec(args.ranks, [ref, str(args.n), ",".join(str(counts[k]) for k in KERNELS)],
                                         args.bind))
                got["c_applications"] = dict(counts)
            else:
                out = hpcbench()
                got["h"], counts = parse(out), parse(out, 2, int)
                got["h_applications"] = dict(counts)
        runs.append(got)
        for k in KERNELS:
            print(f"{r + 1:<4}{k:<15}{got['c'][k] * 1e6:>10.1f}us{got['h'][k] * 1e6:>10.1f}us"
                  f"{got['h'][k] / got['c'][k]:>8.3f}{got['c_applications'][k]:>7}/{got['h_applications'][k]:<6}",
                  flush=True)

    print()
    figures = {"n": args.n, "ranks": args.ranks, "bound": args.bind, "runs": runs, "ratio": {}}
    for k in KERNELS:
        c = float(np.median([g["c"][k] for g in runs]))
        h = float(np.median([g["h"][k] for g in runs]))
        per_run = float(np.median([g["h"][k] / g["c"][k] for g in runs]))
        figures["ratio"][k] = h / c
        print(f"{k:<15} hpcbench / plain C at n = {args.n}: {h / c:.3f} (median per-run ratio {per_run:.3f}; "
              f"target <= 1.1): {'met' if h / c <= 1.1 else 'NOT met'}")

    with tempfile.TemporaryDirectory() as out:
        t0 = time.monotonic()
        mpiexec(4, [sys.executable, "-m", "hpcbench", "run", "matrix", "-q", "-o", os.path.join(out, "r.json")],
                bind=False)
        wall = time.monotonic() - t0
    figures["run_matrix_s"] = wall
    print(f"mpiexec -n 4 python -m hpcbench run matrix (unbound, defaults): {wall:.1f} s (target <= 60 s): "
          f"{'met' if wall <= 60 else 'NOT met'}")
    shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
