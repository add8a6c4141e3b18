"""The MultiBSP inner-product prediction term by term (issue 27).

    python benchmarks/bench_multibsp_inner.py [--runs 5] [--max-vector 24] [--json out.json]

Runs `python -m hpcbench run multibsp` `runs` times and prints, per vector
length, the median over runs of measured / predicted three ways: with r =
DAXPY (the paper's), with the loop's own single-core rate (vector in L2),
and with r per memory level (the model of docs/multibsp.md: each leaf at
the rate its loop reaches in the level its slice sits in, every thread at
once). Then the terms side by side, measured two independent ways: the
leaf loop alone (`sumsq_rate`, hot, all threads at once) against each
thread's loop inside the inner product; the model's gathering superstep
((p - 1) g + L + p flops at r) against the reduction measured inside the
run and an empty run's supersteps; the start-up of an empty run against
the start-up of each run. The machine's load (os.getloadavg) before and
after is printed: other processes on a shared machine slow the thread that
shares their PU. Nothing is asserted.

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

import numpy as np
from build_peers import fail

SCRIPT = "bench_multibsp_inner.py"
RATIOS = (("measured_over_predicted", "r=DAXPY"), ("measured_over_predicted_kernel_rate", "r=loop"),
          ("measured_over_predicted_level_rate", "r/level"))


def run_once(tmp: str, index: int, max_vector: int) -> dict:
    out = os.path.join(tmp, f"m{index}.json")
    # From the scratch directory: a clone's hpcbench/ in the current one would shadow the installed one.
    subprocess.run([sys.executable, "-m", "hpcbench", "run", "multibsp", "-q", "-o", out, "--mbsp-max-vector",
                    str(max_vector)], check=True, capture_output=True, cwd=tmp)
    with open(out) as f:
        return json.load(f)["benchmarks"][0]["derived"]


def median(runs: list, key) -> float:
    return float(np.median([key(r) for r in runs]))


def print_ratios(runs: list) -> None:
    print("\nmeasured / predicted, median over runs (slices' memory level from the model):")
    print(f"  {'n':>9}{'measured us':>13}" + "".join(f"{label:>10}" for _, label in RATIOS) + "   level")
    for i, v in enumerate(runs[0]["inner_product"]):
        points = [r["inner_product"][i] for r in runs]
        cells = "".join(f"{np.median([x[k] for x in points]):>10.2f}" for k, _ in RATIOS)
        print(f"  {v['n']:>9}{np.median([x['measured_s'] for x in points]) * 1e6:>13.1f}{cells}   {v['slice_level']}")


def print_terms(runs: list) -> None:
    """The leaf rate, the reduction and the start-up, each measured alone and inside the run."""
    print("\nleaf loop, Gflop/s per thread (median over runs): alone (sumsq_rate, every thread at once) "
          "and inside the inner product (its loop's time):")
    for j, lv in enumerate(runs[0]["leaf_rates"]):
        alone = np.median([r["leaf_rates"][j]["rate"] for r in runs], axis=0) / 1e9
        print(f"  {lv['level']:>7} ({lv['slice_doubles'] * 8 >> 10} KiB per thread): "
              + " ".join(f"{x:6.2f}" for x in alone))
    print(f"  {'n':>9}  inside the run, per thread")
    for i, v in enumerate(runs[0]["inner_product"]):
        if v["n"] < 1 << 14:
            continue
        per = v["n"] / len(v["leaf_s"])
        inside = np.median([2 * per / np.array(r["inner_product"][i]["leaf_s"]) for r in runs], axis=0) / 1e9
        print(f"  {v['n']:>9}  " + " ".join(f"{x:6.2f}" for x in inside) + f"  ({v['slice_level']})")
    d = runs[0]
    (level,) = d["levels"][-1:]
    p = level["p"] if isinstance(level["p"], int) else max(level["p"])
    model = median(runs, lambda r: ((p - 1) * r["levels"][-1]["g"] + r["levels"][-1]["L"] + p) / r["rate"])
    reduce = median(runs, lambda r: np.median([v["reduce_s"] for v in r["inner_product"]]))
    print(f"\nroot superstep: model {model * 1e9:.0f} ns; measured inside the runs (median over sizes) "
          f"{reduce * 1e9:.0f} ns; an empty run's supersteps {median(runs, lambda r: r['sync_s']) * 1e9:.0f} ns")
    startup = median(runs, lambda r: np.median([v["measured_with_startup_s"] - v["measured_s"]
                                                 for v in r["inner_product"]]))
    print(f"start-up and join: an empty run {median(runs, lambda r: r['startup_s']) * 1e6:.0f} us; "
          f"the runs (median over sizes) {startup * 1e6:.0f} us")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="runs of `hpcbench run multibsp` (default 5)")
    ap.add_argument("--max-vector", type=int, default=24, help="largest vector: 2^E doubles (default 24)")
    ap.add_argument("--json", help="also write every run's derived figures here")
    args = ap.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    if not 14 <= args.max_vector <= 28:
        fail(SCRIPT, f"--max-vector must be in 14..28, got {args.max_vector}")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.runs):
            runs.append(run_once(tmp, r, args.max_vector))
            print(f"run {r + 1} done (load {os.getloadavg()[0]:.2f})", flush=True)
    if runs[0].get("leaf_rates") is None:
        fail(SCRIPT, "the installed hpcbench has no r per memory level (issue 27); reinstall it")
    print_ratios(runs)
    print_terms(runs)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(runs, f, indent=1)


if __name__ == "__main__":
    main()
