"""Figures for the MultiBSP benchmark (issue: MultiBSP tree, g and L, validation).

    python benchmarks/bench_multibsp.py [--runs 3] [--json out.json]

Runs `python -m hpcbench run multibsp` with default settings `runs` times and
prints: its wall time (target: at most 60 s on this 2-core machine), the
tree with g and L per level and how they vary between runs, and the
inner-product prediction against measurement per vector size (with r from
DAXPY as the paper, and with the loop's own rate). Nothing is asserted.

Peer: none beside hpcbench: the prediction is checked against the inner
product hpcbench times itself, as MBSPDiscover does. Runs the installed
hpcbench (`python -m hpcbench` with this Python).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from build_peers import fail

SCRIPT = "bench_multibsp.py"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="runs of `hpcbench run multibsp` (default 3)")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.runs):
            out = os.path.join(tmp, f"m{r}.json")
            t0 = time.monotonic()
            # From the scratch directory: a clone's hpcbench/ in the current one would shadow the installed one.
            subprocess.run([sys.executable, "-m", "hpcbench", "run", "multibsp", "-q", "-o", out], check=True,
                           capture_output=True, cwd=tmp)
            wall = time.monotonic() - t0
            with open(out) as f:
                rec = json.load(f)["benchmarks"][0]["derived"]
            runs.append({"wall_s": wall, "levels": [(lv["p"], lv["m"], lv["g"], lv["L"]) for lv in rec["levels"]],
                         "inner_product": rec["inner_product"]})
            tuples = ", ".join(f"<p={p}, m={m}, g={g:.1f}, L={L:.0f}>" for p, m, g, L in runs[-1]["levels"])
            print(f"run {r + 1}: {wall:.1f} s  [{tuples}]", flush=True)
    worst = max(x["wall_s"] for x in runs)
    print(f"\nwall time: max {worst:.1f} s (target <= 60 s): {'met' if worst <= 60 else 'NOT met'}")
    g = np.array([[lv[2] for lv in x["levels"]] for x in runs])
    print("g per level over runs: " + ", ".join(f"{a.mean():.1f} +- {a.std():.1f}" for a in g.T))
    print("\ninner product, median over runs (measured / predicted):")
    print(f"  {'n':>9}{'measured us':>13}{'r = DAXPY':>11}{'r = loop':>10}{'with start-up us':>18}")
    for i, v in enumerate(runs[0]["inner_product"]):
        def pick(key, i=i):
            return float(np.median([x["inner_product"][i][key] for x in runs]))
        print(f"  {v['n']:>9}{pick('measured_s') * 1e6:>13.1f}{pick('measured_over_predicted'):>11.2f}"
              f"{pick('measured_over_predicted_kernel_rate'):>10.2f}{pick('measured_with_startup_s') * 1e6:>18.0f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(runs, f, indent=1)


if __name__ == "__main__":
    main()
