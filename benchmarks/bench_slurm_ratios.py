"""ratDist and ratNC under srun against mpiexec on the emulated cluster (issue 26).

    sudo python benchmarks/bench_slurm_ratios.py [--runs 8] [--rate 400] [--size 2MiB] [--json out.json]

Builds the emulated cluster of tools/netcluster.py (4 network namespaces in
a ring of shaped veth links) and a Slurm on it (tools/slurmcluster.py: one
slurmd per namespace), then runs hpcbench's distance (one rank per node)
and network-access (two per node) benchmarks --runs times under each
launcher, alternating, and prints ratDist[2] and ratNC[2] of every run and
how srun's compare with mpiexec's: medians, spreads (min to max), how many
srun runs lie in the mpiexec spread, and a two-sided Mann-Whitney U test.
Target (issue 26): the same ratios within the run-to-run spread, read as
srun's median inside the mpiexec spread and no significant difference
(p >= 0.05). "Every srun run inside the mpiexec spread" is printed too,
but is no test: two identical launchers meet it with 3 runs each only one
time in five (inside_chance). Nothing is asserted: the script reports
what it measured.

Peer: mpiexec runs of the same benchmarks on the same emulated cluster
(Open MPI's mpiexec with netcluster's launch options). The cluster and the
Slurm are the repository's tools/netcluster.py and tools/slurmcluster.py,
found beside this benchmarks/ folder (clone the whole repository). Needs
root, iproute2, Open MPI, slurm-wlm and munge (tools/install.sh). A missing
tool is one line and exit status 2. Runs the installed hpcbench.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from statistics import median

from build_peers import child_env, fail, from_clone, tool
from scipy.stats import mannwhitneyu

from hpcbench._validate import parse_size

SCRIPT = "bench_slurm_ratios.py"
NODES = 4
TIMEOUT = 900                          # seconds one launch may take on a busy machine
ALPHA = 0.05                           # Mann-Whitney U: a p-value below this is a difference
BENCHES = (("distance", 1), ("network-access", 2))    # benchmark, ranks per node


def _run(cmd, env, work):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=TIMEOUT, cwd=work)
    if proc.returncode != 0:
        said = " / ".join(line.strip() for line in proc.stderr.splitlines() if line.strip())
        raise RuntimeError(f"`{' '.join(cmd[:8])} ...` failed (exit {proc.returncode}): {said[-600:]}")


def ratios(launch, work, tag, size):
    """ratDist[2] and ratNC[2] of one run of each benchmark, launched by `launch(per_node, argv)`."""
    got = {}
    for bench, per_node in BENCHES:
        out = os.path.join(work, f"{tag}-{bench}.json")
        launch(per_node, [sys.executable, "-m", "hpcbench", "run", bench, "-q", "--net-size", str(size),
                          "--net-cap", "1", "-o", out])
        with open(out) as f:
            record = json.load(f)["benchmarks"][0]
        key = "rat_dist" if bench == "distance" else "rat_nc"
        got[key] = record["derived"][key]["2"]
    return got


def inside_chance(runs: int) -> float:
    """The chance that every one of `runs` samples lies within the range of
    `runs` other samples of the same distribution: the smallest and largest
    of all 2*runs must both come from the second set."""
    return runs / (2 * runs) * (runs - 1) / (2 * runs - 1)


def compare(ref, got):
    """srun's figures `got` against mpiexec's `ref`: medians, spreads, how many
    of `got` lie in ref's range, and the two-sided Mann-Whitney U p-value;
    "same" when got's median lies in ref's range and p >= ALPHA."""
    p = float(mannwhitneyu(got, ref, alternative="two-sided").pvalue)
    low, high = min(ref), max(ref)
    return {"mpiexec_median": median(ref), "srun_median": median(got), "mpiexec_spread": [low, high],
            "srun_spread": [min(got), max(got)], "srun_within": sum(low <= g <= high for g in got), "p": p,
            "same": low <= median(got) <= high and p >= ALPHA}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=8, help="runs under each launcher, alternating (default 8)")
    ap.add_argument("--rate", type=float, default=400, help="link rate, Mbit/s (default 400)")
    ap.add_argument("--size", type=parse_size, default=2 << 20, help="bytes per message (default 2MiB)")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    if args.runs < 2:
        fail(SCRIPT, f"--runs must be at least 2 (a spread needs two mpiexec runs), got {args.runs}")
    netcluster = from_clone("tools/netcluster.py", "netcluster", SCRIPT)
    slurmcluster = from_clone("tools/slurmcluster.py", "slurmcluster", SCRIPT)
    tool("mpiexec", SCRIPT, "install Open MPI (Debian: openmpi-bin)")
    reason = "needs root" if os.geteuid() != 0 else (netcluster.available() or slurmcluster.why_not())
    if reason:
        fail(SCRIPT, f"the emulated cluster or its Slurm is unavailable: {reason}")
    try:
        netcluster.up(NODES, args.rate)
    except (ValueError, netcluster.NetclusterError) as e:
        fail(SCRIPT, str(e))
    work = tempfile.mkdtemp()
    runs = {"mpiexec": [], "srun": []}
    try:
        with slurmcluster.SlurmCluster(nodes=netcluster) as slurm:
            mpi_env, slurm_env = child_env(), slurm.env(child_env())

            def mpiexec(per_node, argv):
                _run(["mpiexec", "-n", str(NODES * per_node), "--map-by", "node",
                      *netcluster.mpiexec_args(2, work), *argv], mpi_env, work)

            def srun(per_node, argv):
                # Each task gets its share of the node's CPUs (-c), as mpiexec's
                # unbound ranks have: the emulated nodes share this machine's
                # CPUs, and a one-CPU step would pin every node's task to CPU 0.
                cpus = str(max(1, (os.cpu_count() or 1) // per_node))
                _run(["srun", "--mpi=pmix", "-t", "15", "-N", str(NODES), "--ntasks-per-node", str(per_node),
                      "-c", cpus, *argv], slurm_env, work)

            print(f"{NODES} nodes in a ring, {args.rate:g} Mbit/s links, {args.size} byte messages; "
                  f"Slurm up in {slurm.started_seconds:.1f} s")
            print(f"{'run':<4}{'launcher':<10}{'ratDist[2]':>11}{'ratNC[2]':>10}")
            for r in range(args.runs):
                order = ("mpiexec", "srun") if r % 2 == 0 else ("srun", "mpiexec")
                for who in order:
                    got = ratios(mpiexec if who == "mpiexec" else srun, work, f"{who}{r}", args.size)
                    runs[who].append(got)
                    print(f"{r + 1:<4}{who:<10}{got['rat_dist']:>11.3f}{got['rat_nc']:>10.3f}", flush=True)
    except (RuntimeError, subprocess.TimeoutExpired, slurmcluster.CannotRun, slurmcluster.SlurmError) as e:
        fail(SCRIPT, str(e).splitlines()[0] if str(e) else type(e).__name__)
    finally:
        netcluster.down()
        shutil.rmtree(work, ignore_errors=True)

    print()
    figures = {"rate_mbit": args.rate, "size": args.size, "runs": runs}
    met = True
    for key, name in (("rat_dist", "ratDist[2]"), ("rat_nc", "ratNC[2]")):
        verdict = compare([g[key] for g in runs["mpiexec"]], [g[key] for g in runs["srun"]])
        figures[key] = verdict
        met = met and verdict["same"]
        low, high = verdict["mpiexec_spread"]
        print(f"{name}: mpiexec median {verdict['mpiexec_median']:.3f} ({low:.3f} .. {high:.3f}), "
              f"srun median {verdict['srun_median']:.3f} ({verdict['srun_spread'][0]:.3f} .. "
              f"{verdict['srun_spread'][1]:.3f}); {verdict['srun_within']} of {len(runs['srun'])} srun runs "
              f"within the mpiexec spread; Mann-Whitney U p = {verdict['p']:.2f}")
    print(f"target (srun's median within the mpiexec spread and no significant difference, p >= {ALPHA}): "
          f"{'met' if met else 'NOT met'}")
    print("(every srun run inside the mpiexec range is no test: for two launchers that behave the same,\n"
          f" all {args.runs} srun runs fall inside the range of {args.runs} mpiexec runs with probability "
          f"{inside_chance(args.runs):.2f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
