"""Figures for the node benchmarks (issue: shared caches, memory overhead, scalability).

    python benchmarks/bench_memory.py [--runs 5] [--size 128MiB] [--json out.json]
                                      [--likwid-bench PATH | --no-likwid]

Prints, measured in this run:
  * copy bandwidth of hpcbench's kernel against `likwid-bench -t copy_avx`
    (Debian package likwid) on one core and on all cores, with the same
    number of threads and the same total working set, over `runs`
    alternating runs: hpcbench's aggregate (all bytes over the first start
    to the last end, the median over repetitions) and, for the record, the
    sum of its per-core rates; each ratio to likwid and whether it lies in
    0.9..1.1 (the target, for all cores and for one);
  * wall time of the whole node characterization, `python -m hpcbench run
    cache shared-caches memory` (target: at most 120 s on a 2-core machine);
  * how many pairs the auto mode tests on a 128-PU node against all pairs.
Nothing here is asserted: the script reports what it measured.

Peer: likwid-bench (copy_avx), not built or installed here: it is found on
PATH (Debian package likwid), or given with --likwid-bench PATH (or
$LIKWID_BENCH); --no-likwid skips the comparison and keeps the rest. A
missing peer is one line and exit status 2. Runs the installed hpcbench.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
from build_peers import fail, tool

from hpcbench._format import format_size
from hpcbench._validate import parse_size
from hpcbench.memory import copy_run, default_array_bytes, own_rates, run_aggregate
from hpcbench.topology import Topology

SCRIPT = "bench_memory.py"
REPETITIONS = 50
#: The band a ratio hpcbench / likwid must lie in to meet the target.
TARGET = (0.9, 1.1)


def likwid_copy(likwid, array_bytes, threads):
    """likwid's MByte/s (read + write, as STREAM counts; all threads' bytes
    over the longest thread's time) as bytes/s. The workgroup's size is the
    whole data set, both vectors over all threads (likwid-bench(1): "the
    allocated vectors in memory sum up to this size"; each thread gets its
    1/threads chunk of each), so `threads` hpcbench cores with two arrays of
    array_bytes each are N:<threads * 2 * array_bytes>B:<threads>. -W, not
    -w: each thread first-touches its own chunks, as each hpcbench member
    touches its own arrays (on one NUMA node both place pages alike)."""
    total = 2 * array_bytes * threads
    # likwid-bench refuses a size in bytes of 2^31 or more ("Stream size
    # cannot be read"; a 300 MiB L3 makes the default arrays 1.17 GiB): from
    # there the size goes in its kB, 1000 bytes, which the working set then
    # misses by less than 1e-6.
    spec = f"{total}B" if total < 1 << 31 else f"{round(total / 1000)}kB"
    out = subprocess.run([likwid, "-t", "copy_avx", "-W", f"N:{spec}:{threads}"],
                         capture_output=True, text=True, check=True).stdout
    size = int(re.search(r"^Size \(Byte\):\s+(\d+)", out, re.M).group(1))
    if abs(size - total) > 1000:
        raise RuntimeError(f"likwid-bench used {size} bytes, not the {total} asked for")
    return float(re.search(r"^MByte/s:\s+([0-9.]+)", out, re.M).group(1)) * 1e6


def hpcbench_copy(array_bytes, pus):
    """The aggregate as the memory benchmark counts it (run_aggregate), the
    sum of each core's median rate (which overstates it when the cores run
    at unequal speeds or take turns), bytes/s; the slowest core's rate over
    the fastest's, and the median spread of the members' starts (us)."""
    run = copy_run(pus, array_bytes, REPETITIONS)
    own = own_rates(run.bandwidth)
    return {"hpcbench": run_aggregate(2 * array_bytes, run.start_ns, run.end_ns), "sum_of_rates": float(own.sum()),
            "slow_over_fast": float(own.min() / own.max()),
            "start_spread_us": float(np.median(run.start_ns.max(axis=0) - run.start_ns.min(axis=0)) / 1e3)}


def within(ratio):
    return TARGET[0] <= ratio <= TARGET[1]


def compare_with_likwid(likwid, size, pus, runs, figures):
    """Alternating runs of hpcbench and likwid on one core and on all; the
    figures and ratios go into `figures`."""
    print(f"copy bandwidth, {format_size(size)} per array per core, {runs} alternating runs (GB/s; "
          f"ratio target {TARGET[0]}..{TARGET[1]}); load average {os.getloadavg()[0]:.2f}")
    print(f"  {'run':<5}{'cores':>6}{'aggregate':>11}{'likwid':>9}{'ratio':>8}  {'in target':<10}"
          f"{'sum':>7}{'sum/likwid':>12}{'slow/fast':>11}{'spread us':>11}")
    for r in range(runs):
        for cores in ([pus[0]], pus):
            # Alternate which tool goes first, so drift does not favour one.
            if r % 2 == 0:
                ours, theirs = hpcbench_copy(size, cores), likwid_copy(likwid, size, len(cores))
            else:
                theirs, ours = likwid_copy(likwid, size, len(cores)), hpcbench_copy(size, cores)
            ratio = ours["hpcbench"] / theirs
            figures["runs"].append({"run": r, "cores": len(cores), **ours, "likwid": theirs, "ratio": ratio,
                                    "in_target": within(ratio)})
            print(f"  {r + 1:<5}{len(cores):>6}{ours['hpcbench'] / 1e9:>11.1f}{theirs / 1e9:>9.1f}{ratio:>8.2f}  "
                  f"{'yes' if within(ratio) else 'NO':<10}{ours['sum_of_rates'] / 1e9:>7.1f}"
                  f"{ours['sum_of_rates'] / theirs:>12.2f}{ours['slow_over_fast']:>11.2f}"
                  f"{ours['start_spread_us']:>11.1f}", flush=True)
    for n in sorted({1, len(pus)}):
        ratios = [x["ratio"] for x in figures["runs"] if x["cores"] == n]
        med = float(np.median(ratios))
        figures[f"median_ratio_{n}_cores"] = med
        print(f"hpcbench aggregate / likwid copy_avx, {n} core(s): ratios {' '.join(f'{x:.2f}' for x in ratios)}, "
              f"median {med:.2f}; {sum(map(within, ratios))} of {len(ratios)} in {TARGET[0]}..{TARGET[1]}, "
              f"median {'in' if within(med) else 'NOT in'} target")


def node_characterization_seconds():
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        # From the scratch directory: a clone's hpcbench/ in the current one would shadow the installed one.
        proc = subprocess.run([sys.executable, "-m", "hpcbench", "run", "cache", "shared-caches", "memory", "-q",
                               "-o", os.path.join(tmp, "r.json")], capture_output=True, text=True, cwd=tmp)
        wall = time.monotonic() - t0
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
    return wall, proc.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="alternating runs of hpcbench and likwid (default 5)")
    ap.add_argument("--size", type=parse_size, default=None, help="bytes per array (default: hpcbench's)")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--likwid-bench", metavar="PATH", default=os.environ.get("LIKWID_BENCH", "likwid-bench"),
                    help="likwid-bench to compare with (default: $LIKWID_BENCH, else on PATH)")
    ap.add_argument("--no-likwid", action="store_true", help="skip the comparison with likwid-bench")
    args = ap.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    likwid = None if args.no_likwid else tool(args.likwid_bench, SCRIPT, "install the Debian package likwid, "
                                              "give --likwid-bench PATH, or run with --no-likwid")

    topo = Topology.load()
    size = args.size or default_array_bytes(topo)
    pus = topo.pu_indexes
    figures = {"array_bytes": size, "runs": [], "pus": pus}
    if likwid:
        compare_with_likwid(likwid, size, pus, args.runs, figures)

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
