"""Figures for peakflops (issue 29): hpcbench's peak FLOP/s against likwid-bench's peakflops kernels.

    python benchmarks/bench_flops.py [--runs 5] [--isas widest|all] [--json out.json]
                                     [--likwid-bench PATH]

Prints, measured in this run:
  * for the widest instruction set this CPU runs (or every one with --isas
    all), double and single precision, on one core and on all cores:
    hpcbench's rate (FMA chains on registers; all cores: all flops over the
    first start to the last end) against likwid-bench's peakflops kernel of
    the same instruction set (peakflops_avx512_fma, peakflops_avx_fma,
    peakflops_sse, peakflops and their _sp variants) on an L1-resident
    working set (its kernels stream over an array: 16 kB per thread), over
    `runs` alternating pairs. Like with like: a pair is one hpcbench run at
    its default options (5 samples of 3 ms) and 5 likwid runs of as many
    iterations (-i) as last 3 ms; per pair the ratio of the median samples
    and the ratio of the best ones (hpcbench's headline is its best sample),
    and the median of each over the pairs (target: at least 0.95). A default
    likwid run lasts a second and averages whatever else a shared machine
    does over it, which a median of 3 ms samples does not;
  * the FMA lanes per cycle these rates imply where lscpu knows the CPU's
    maximum frequency (context only: turbo and a VM's host clock differ);
  * the seconds `python -m hpcbench run peakflops` spends in the benchmark
    at its default options (the results file's elapsed_s; budget 1 s).
Nothing here is asserted: the script reports what it measured.

Peer: likwid-bench (Debian package likwid), found on PATH or given with
--likwid-bench PATH (or $LIKWID_BENCH); missing: one line and exit status 2.
Runs the hpcbench on sys.path.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from build_peers import fail, tool

from hpcbench.flops._analysis import run_rate
from hpcbench.flops._isa import cpu_isas, widest
from hpcbench.flops._measure import flops_run
from hpcbench.flops._options import FlopsOptions
from hpcbench.topology import Topology

SCRIPT = "bench_flops.py"
TARGET = 0.95
#: likwid-bench's peakflops kernel of each of hpcbench's instruction sets, double precision.
LIKWID_KERNELS = {"avx512": "peakflops_avx512_fma", "avx2": "peakflops_avx_fma", "sse2": "peakflops_sse",
                  "scalar": "peakflops"}
#: Bytes of likwid's array per thread: well inside any L1.
L1_BYTES_PER_THREAD = 16000
LANES = {"avx512": 8, "avx2": 4, "sse2": 2, "scalar": 1}
#: hpcbench's samples per run and their length at its default options; likwid runs as many, as long.
SAMPLES = FlopsOptions().samples
SAMPLE_S = FlopsOptions().sample_ms * 1e-3


def likwid_kernel(isa, precision):
    base = LIKWID_KERNELS[isa]
    return base if precision == "double" else base.replace("peakflops", "peakflops_sp", 1)


def likwid_once(likwid, kernel, threads, iterations=None):
    """One likwid-bench run of `kernel` on `threads` threads of socket 0:
    (flop/s from its MFlops/s, its seconds)."""
    size = L1_BYTES_PER_THREAD * threads // 1000
    command = [likwid, "-t", kernel, "-w", f"S0:{size}kB:{threads}"]
    out = subprocess.run(command + (["-i", str(iterations)] if iterations else []), capture_output=True, text=True,
                         check=True).stdout
    return (float(re.search(r"^MFlops/s:\s+([0-9.]+)", out, re.M).group(1)) * 1e6,
            float(re.search(r"^Time:\s+([0-9.e+-]+)", out, re.M).group(1)))


def likwid_iterations(likwid, kernel, threads):
    """likwid's iterations for one run as long as one of hpcbench's samples."""
    _, seconds = likwid_once(likwid, kernel, threads, 10000)
    return max(10, round(10000 * SAMPLE_S / seconds))


def likwid_rate(likwid, kernel, threads, iterations):
    """likwid's flop/s in as many runs as hpcbench takes samples, each as
    long as one sample: (the median run, the best run), the statistics
    hpcbench takes of its samples. One default likwid run lasts a second
    or more and averages whatever else the machine does over it; runs as
    short as hpcbench's samples compare like with like on a busy machine."""
    rates = [likwid_once(likwid, kernel, threads, iterations)[0] for _ in range(SAMPLES)]
    return float(np.median(rates)), max(rates)


def hpcbench_rate(pus, isa, precision):
    """flop/s of one core, or of the team together: (the median sample, the
    best sample, which is the benchmark's headline)."""
    run, _ = flops_run(pus, isa, precision, SAMPLES, SAMPLE_S * 1e3)
    rate = run_rate(run)
    return (rate.per_core, rate.per_core_max) if len(pus) == 1 else (rate.together, rate.together_max)


def max_mhz():
    """lscpu's maximum MHz, None where it does not say (a VM often does not)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    found = re.search(r"^CPU max MHz:\s+([0-9.]+)", out, re.M)
    return float(found.group(1)) if found else None


def compare(likwid, pus, isas, runs, figures):
    figures["load_average"] = os.getloadavg()[0]
    print(f"peak FLOP/s, {runs} alternating pairs (Gflop/s; target hpcbench/likwid >= {TARGET}); "
          f"load average {os.getloadavg()[0]:.2f}")
    for isa in isas:
        for precision in ("double", "single"):
            kernel = likwid_kernel(isa, precision)
            for team in ([pus[0]], pus) if len(pus) > 1 else ([pus[0]],):
                iterations = likwid_iterations(likwid, kernel, len(team))
                ours, theirs = [], []
                for r in range(runs):
                    # Alternate which goes first, so drift favours neither.
                    if r % 2 == 0:
                        ours.append(hpcbench_rate(team, isa, precision))
                        theirs.append(likwid_rate(likwid, kernel, len(team), iterations))
                    else:
                        theirs.append(likwid_rate(likwid, kernel, len(team), iterations))
                        ours.append(hpcbench_rate(team, isa, precision))
                median_ratios = [a[0] / b[0] for a, b in zip(ours, theirs)]
                best_ratios = [a[1] / b[1] for a, b in zip(ours, theirs)]
                med, best = float(np.median(median_ratios)), float(np.median(best_ratios))
                figures["comparisons"].append({"isa": isa, "precision": precision, "cores": len(team),
                                               "likwid_kernel": kernel, "likwid_iterations": iterations,
                                               "hpcbench": ours, "likwid": theirs, "median_ratios": median_ratios,
                                               "best_ratios": best_ratios, "median_ratio": med, "best_ratio": best})
                print(f"  {isa:<7}{precision:<7}{len(team):>2} core(s): hpcbench median/best "
                      f"{np.median([a[0] for a in ours]) / 1e9:.1f}/{np.median([a[1] for a in ours]) / 1e9:.1f}  "
                      f"{kernel} {np.median([b[0] for b in theirs]) / 1e9:.1f}/"
                      f"{np.median([b[1] for b in theirs]) / 1e9:.1f}", flush=True)
                print(f"      ratios of medians {' '.join(f'{x:.3f}' for x in median_ratios)}: median {med:.3f}; "
                      f"of bests {' '.join(f'{x:.3f}' for x in best_ratios)}: median {best:.3f} "
                      f"({'meets' if best >= TARGET else 'BELOW'} {TARGET})", flush=True)


def suite_seconds():
    """elapsed_s of peakflops at its default options, from the results file."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        proc = subprocess.run([sys.executable, "-m", "hpcbench", "run", "peakflops", "-q", "-o", out],
                              capture_output=True, text=True, cwd=tmp)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return None
        with open(out) as f:
            return json.load(f)["benchmarks"][0]["elapsed_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="alternating pairs per comparison (default 5)")
    ap.add_argument("--isas", choices=("widest", "all"), default="widest",
                    help="the widest instruction set only, or every one this CPU runs (default widest)")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--likwid-bench", metavar="PATH", default=os.environ.get("LIKWID_BENCH", "likwid-bench"),
                    help="likwid-bench to compare with (default: $LIKWID_BENCH, else on PATH)")
    args = ap.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    likwid = tool(args.likwid_bench, SCRIPT, "install the Debian package likwid or give --likwid-bench PATH")

    pus = Topology.load().pu_indexes
    have = cpu_isas()
    isas = have if args.isas == "all" else [widest(have)]
    figures = {"pus": pus, "isas": isas, "comparisons": []}
    compare(likwid, pus, isas, args.runs, figures)

    mhz = max_mhz()
    figures["max_mhz"] = mhz
    if mhz is None:
        print("theoretical peak: lscpu gives no maximum frequency here (context only)")
    else:
        for c in figures["comparisons"]:
            if c["cores"] == 1:
                lanes = LANES[c["isa"]] * (2 if c["precision"] == "single" and c["isa"] != "scalar" else 1)
                per_cycle = max(a[1] for a in c["hpcbench"]) / (mhz * 1e6 * 2 * lanes)
                print(f"  {c['isa']} {c['precision']}: {per_cycle:.2f} FMA instructions per cycle at "
                      f"{mhz:.0f} MHz (context only)")
    seconds = suite_seconds()
    figures["peakflops_default_s"] = seconds
    print(f"peakflops at its default options: {seconds:.2f} s in the benchmark (budget 1 s)" if seconds is not None
          else "peakflops at its default options: the run failed")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
