"""Figures for the communication benchmark (issue: CoMet kernels, layers, models).

    python benchmarks/bench_comm.py [--runs 5] [--json out.json]

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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIZES = [0, 8, 4 << 20]
ITERATIONS = {0: 100000, 8: 100000, 4 << 20: 500}


def mpiexec(n, *args, timeout=600):
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    proc = subprocess.run(["mpiexec", "-n", str(n), *args], capture_output=True, text=True, env=env,
                          timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {proc.stderr.strip()[-500:]}")
    return proc.stdout


def parse(text, column=1):
    return {int(line.split()[0]): float(line.split()[column]) for line in text.split("\n") if line.strip()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    if not shutil.which("mpiexec") or not shutil.which(os.environ.get("MPICC", "mpicc")):
        sys.exit("bench_comm.py needs mpiexec and mpicc (run tools/install.sh)")
    tmp = tempfile.mkdtemp()
    ref = os.path.join(tmp, "pingpong_ref")
    subprocess.run([os.environ.get("MPICC", "mpicc"), "-O2", "-o", ref, os.path.join(HERE, "peers", "pingpong_ref.c")],
                   check=True)

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
