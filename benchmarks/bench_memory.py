"""Figures for the node benchmarks (issue: shared caches, memory overhead, scalability).

    python benchmarks/bench_memory.py [--runs 5] [--size 128MiB] [--json out.json]

Prints, measured in this run:
  * copy bandwidth of hpcbench's kernel against `likwid-bench -t copy_avx`
    (Debian package likwid) on one core and on all cores, with the same
    array size, as the median of paired ratios over `runs` alternating runs
    (target: at least 0.9 for both);
  * wall time of the whole node characterization, `python -m hpcbench run
    cache shared-caches memory` (target: at most 120 s on a 2-core machine);
  * how many pairs the auto mode tests on a 128-PU node against all pairs.
Nothing here is asserted: the script reports what it measured.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from hpcbench._format import format_size
from hpcbench._validate import parse_size
from hpcbench.memory import copy_bandwidth, default_array_bytes
from hpcbench.topology import Topology

REPETITIONS = 50


def ensure_likwid():
    if shutil.which("likwid-bench"):
        return True
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("installing likwid (apt-get install likwid) ...", flush=True)
        subprocess.run(["apt-get", "install", "-y", "-q", "likwid"], check=False, capture_output=True)
    if not shutil.which("likwid-bench"):
        print("likwid-bench is missing: install the Debian package likwid", file=sys.stderr)
        return False
    return True


def likwid_copy(array_bytes, threads):
    """likwid's aggregate MByte/s (read + write, as STREAM counts) as bytes/s.
    Its workgroup size is the total of both arrays over all threads."""
    total = 2 * array_bytes * threads
    out = subprocess.run(["likwid-bench", "-t", "copy_avx", "-w", f"N:{total}B:{threads}"],
                         capture_output=True, text=True, check=True).stdout
    return float(re.search(r"^MByte/s:\s+([0-9.]+)", out, re.M).group(1)) * 1e6


def hpcbench_copy(array_bytes, pus):
    """Aggregate bytes/s: per core, all bytes over all the time of its copies."""
    bw = copy_bandwidth(pus, array_bytes, REPETITIONS)   # (members, reps), bytes/s per copy
    seconds = (2.0 * array_bytes / bw).sum(axis=1)
    return float(np.sum(2.0 * array_bytes * REPETITIONS / seconds))


def node_characterization_seconds():
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "hpcbench", "run", "cache", "shared-caches", "memory", "-q",
                               "-o", os.path.join(tmp, "r.json")], capture_output=True, text=True)
        wall = time.monotonic() - t0
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
    return wall, proc.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--size", type=parse_size, default=None, help="bytes per array (default: hpcbench's)")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()

    topo = Topology.load()
    size = args.size or default_array_bytes(topo)
    pus = topo.pu_indexes
    figures = {"array_bytes": size, "runs": [], "pus": pus}
    if ensure_likwid():
        print(f"copy bandwidth, {format_size(size)} per array, {args.runs} alternating runs (GB/s)")
        print(f"  {'run':<5}{'cores':>6}{'hpcbench':>11}{'likwid':>9}{'ratio':>8}")
        for r in range(args.runs):
            for cores in ([pus[0]], pus):
                # Alternate which tool goes first, so drift does not favour one.
                if r % 2 == 0:
                    ours, theirs = hpcbench_copy(size, cores), likwid_copy(size, len(cores))
                else:
                    theirs, ours = likwid_copy(size, len(cores)), hpcbench_copy(size, cores)
                figures["runs"].append({"run": r, "cores": len(cores), "hpcbench": ours, "likwid": theirs})
                print(f"  {r + 1:<5}{len(cores):>6}{ours / 1e9:>11.1f}{theirs / 1e9:>9.1f}{ours / theirs:>8.2f}",
                      flush=True)
        for n in sorted({1, len(pus)}):
            ratios = [x["hpcbench"] / x["likwid"] for x in figures["runs"] if x["cores"] == n]
            med = float(np.median(ratios))
            figures[f"median_ratio_{n}_cores"] = med
            print(f"median ratio hpcbench / likwid copy_avx, {n} core(s): {med:.2f} (target >= 0.9): "
                  f"{'met' if med >= 0.9 else 'NOT met'}")

    wall, rc = node_characterization_seconds()
    figures["node_characterization_s"] = wall
    print(f"node characterization (cache, shared-caches, memory): {wall:.1f} s (target <= 120 s): "
          f"{'met' if wall <= 120 and rc == 0 else 'NOT met'}{'' if rc == 0 else f' (exit status {rc})'}")

    from hpcbench.topology import plan_pairs
    big = Topology.from_synthetic("pack:2 l3:4(size=32MiB) l2:8(size=1MiB) l1:1(size=48KiB) core:1 pu:2")
    plan = plan_pairs(big, mode="auto")
    figures["auto_pairs_128"] = len(plan.tested)
    print(f"auto mode on a 128-PU node (2 packages x 4 L3 x 8 cores x 2 threads): {len(plan.tested)} pairs "
          f"tested instead of {len(plan.all_pairs)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
