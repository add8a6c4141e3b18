"""Figures for the communication benchmark (issue: CoMet kernels, layers, models).

    python benchmarks/bench_comm.py [--runs 5] [--json out.json] [--pingpong-ref PATH]

Prints, measured in this run on two ranks of this machine:
  * hpcbench's echo latency at 0 and 8 bytes against a plain C MPI
    ping-pong loop (benchmarks/peers/pingpong_ref.c, compiled here with
    mpicc; one timer around the loop, as OSU does): target at most 1.05;
  * bandwidth at 4 MiB against the same loop: target at least 0.95;
  * the same against a Python loop over mpi4py (what OMB-Py and
    mpi4py.bench time): the C kernel must be clearly faster at small sizes;
  * wall time of `mpiexec -n 2 python -m hpcbench run comm` with default
    settings: target at most 10 s (issue 16; bench_comm_scale.py times it
    over several runs).
Runs alternate between the three implementations; ratios are medians of
the per-run ratios. hpcbench's number is its reported statistic (the median
of its samples); its mean is printed too. Nothing is asserted.

Peers: the plain C ping-pong is built here from
benchmarks/peers/pingpong_ref.c with $MPICC (default mpicc), or given built
with --pingpong-ref PATH; the mpi4py loop is benchmarks/peers/pingpong_mpi4py.py,
run with this Python. Needs Open MPI's mpiexec on PATH. A missing peer is one
line and exit status 2. Runs the installed hpcbench.
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

SCRIPT = "bench_comm.py"
SIZES = [0, 8, 4 << 20]
ITERATIONS = {0: 100000, 8: 100000, 4 << 20: 500}


def mpiexec(n, *args, timeout=600, cwd=None):
    """stdout of `mpiexec -n n args`, oversubscribed, started in `cwd` (default the
    temporary directory: a clone's hpcbench/ in the current one would shadow the
    installed package for `python -m hpcbench`)."""
    env = child_env(OMPI_MCA_rmaps_base_oversubscribe="1")
    proc = subprocess.run(["mpiexec", "-n", str(n), *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=cwd or tempfile.gettempdir())
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {proc.stderr.strip()[-500:]}")
    return proc.stdout


def parse(text, column=1):
    return {int(line.split()[0]): float(line.split()[column]) for line in text.split("\n") if line.strip()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="alternating runs of the three (default 5)")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--pingpong-ref", metavar="PATH", help="a built benchmarks/peers/pingpong_ref.c (default: "
                                                           "build it with $MPICC)")
    args = ap.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    tool("mpiexec", SCRIPT, "install Open MPI (Debian: openmpi-bin)")
    tmp = tempfile.mkdtemp()
    ref = peer_binary("pingpong_ref", args.pingpong_ref, tmp, SCRIPT)

    runs = []
    print(f"{'run':<4}{'size':>9}{'plain C':>11}{'hpcbench':>11}{'(mean)':>10}{'mpi4py':>11}   one-way us")
    for r in range(args.runs):
        order = ["c", "h", "p"] if r % 2 == 0 else ["p", "h", "c"]
        got = {}
        for who in order:
            if who == "c":
                got["c"] = {s: parse(mpiexec(2, ref, str(s), str(ITERATIONS[s])))[s] for s in SIZES}
            elif who == "p":
                got["p"] = {s: parse(mpiexec(2, sys.executable, os.path.join(HERE, "peers", "pingpong_mpi4py.py"),
                                             str(s), str(ITERATIONS[s])))[s] for s in SIZES}
            else:
                out = mpiexec(2, sys.executable, os.path.join(HERE, "peers", "pingpong_hpcbench.py"),
                              *map(str, SIZES))
                got["h"], got["h_mean"] = parse(out, 1), parse(out, 2)
        runs.append(got)
        for s in SIZES:
            print(f"{r + 1:<4}{s:>9}{got['c'][s] * 1e6:>11.3f}{got['h'][s] * 1e6:>11.3f}{got['h_mean'][s] * 1e6:>10.3f}"
                  f"{got['p'][s] * 1e6:>11.3f}", flush=True)

    figures = {"runs": runs}
    lat = {s: float(np.median([g["h"][s] / g["c"][s] for g in runs])) for s in (0, 8)}
    bw = float(np.median([g["c"][4 << 20] / g["h"][4 << 20] for g in runs]))
    py = {s: float(np.median([g["p"][s] / g["h"][s] for g in runs])) for s in SIZES}
    figures.update(latency_ratio=lat, bandwidth_ratio_4MiB=bw, mpi4py_over_hpcbench=py)
    print()
    for s in (0, 8):
        verdict = "met" if lat[s] <= 1.05 else "NOT met"
        print(f"latency at {s} B, hpcbench / plain C: {lat[s]:.3f} (target <= 1.05): {verdict}")
    print(f"bandwidth at 4 MiB, hpcbench / plain C: {bw:.3f} (target >= 0.95): {'met' if bw >= 0.95 else 'NOT met'}")
    for s in SIZES:
        print(f"Python loop over mpi4py / hpcbench at {s} B: {py[s]:.2f}x the time")

    with tempfile.TemporaryDirectory() as out:
        t0 = time.monotonic()
        mpiexec(2, sys.executable, "-m", "hpcbench", "run", "comm", "-q", "-o", os.path.join(out, "r.json"))
        wall = time.monotonic() - t0
    figures["run_comm_s"] = wall
    print(f"mpiexec -n 2 python -m hpcbench run comm: {wall:.1f} s (target <= 10 s): "
          f"{'met' if wall <= 10 else 'NOT met'}")
    shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
