"""Figures for the cache benchmark (issue: foundation and cache levels).

    python benchmarks/bench_cache.py [--runs 5] [--json out.json]

Runs the default cache sweep `runs` times on this machine and prints:
  * wall time of each sweep (target: at most 60 s on a 2-core machine);
  * measured sizes per level against hwloc's (targets: L1 and L2 equal,
    L3 within 15%) and whether the L1 and L2 answers change across runs;
  * timer overhead per sample as a share of the shortest timed sample
    (target: below 1%).
Nothing here is asserted: the script reports what it measured.
"""
import argparse
import json
import sys
import time

import numpy as np

from hpcbench import _core
from hpcbench._format import format_size
from hpcbench.cache import estimate_levels, measure
from hpcbench.topology import Topology


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()

    topo = Topology.load()
    pu = _core.thread_binding()[0]
    hw = {c.level: c.size for c in topo.data_caches_of(pu)}
    timer = _core.timer_calibrate(100)
    runs = []
    for r in range(args.runs):
        t0 = time.monotonic()
        sweep = measure(topology=topo, pu=pu, seed=1000 + r)
        wall = time.monotonic() - t0
        levels = estimate_levels(sweep.sizes, sweep.cycles, page_size=sweep.parameters["page_size"],
                                 refined=sweep.refined)
        # Shortest timed sample: ns per access times accesses per sample.
        sample_ns = np.nanmin(sweep.samples_ns, axis=(1, 2)) * sweep.accesses_per_sample
        runs.append({"wall_s": wall, "order": sweep.parameters["order"],
                     "levels": {lv.level: lv.size for lv in levels},
                     "onsets": {lv.level: lv.onset for lv in levels},
                     "shortest_sample_ns": float(sample_ns.min())})
        got = ", ".join(f"L{k}={format_size(v)}" for k, v in runs[-1]["levels"].items())
        print(f"run {r + 1}: {wall:5.1f} s, {sweep.parameters['order']} order, {got}", flush=True)

    print()
    print("hwloc: " + ", ".join(f"L{k}={format_size(v)}" for k, v in hw.items()))
    worst_wall = max(r["wall_s"] for r in runs)
    print(f"wall time per sweep: max {worst_wall:.1f} s (target <= 60 s): {'met' if worst_wall <= 60 else 'NOT met'}")
    for level, size in hw.items():
        got = [r["levels"].get(level) for r in runs]
        diffs = [None if g is None else (g - size) / size for g in got]
        shown = ", ".join("missing" if d is None else f"{100 * d:+.1f}%" for d in diffs)
        stable = len(set(got)) == 1
        target = "equal" if level <= 2 else "within 15%"
        ok = all(d is not None and (d == 0 if level <= 2 else abs(d) <= 0.15) for d in diffs)
        print(f"L{level}: vs hwloc {shown}; target {target}: {'met' if ok else 'NOT met'}; "
              f"same answer in every run: {stable}")
        onsets = [r["onsets"].get(level) for r in runs]
        print("    misses begin after: " + ", ".join("-" if o is None else format_size(o) for o in onsets))
    overhead = timer["overhead_ns"] / min(r["shortest_sample_ns"] for r in runs)
    print(f"timer overhead {timer['overhead_ns']:.0f} ns / shortest sample "
          f"{min(r['shortest_sample_ns'] for r in runs) / 1000:.1f} us = {100 * overhead:.3f}% (target < 1%): "
          f"{'met' if overhead < 0.01 else 'NOT met'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"hwloc": hw, "timer": timer, "runs": runs}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
