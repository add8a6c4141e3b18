"""ratDist and ratNC under srun against mpiexec on the emulated cluster (issue 26).

    sudo python benchmarks/bench_slurm_ratios.py [--runs 3] [--rate 400] [--size 2MiB] [--json out.json]

Builds the emulated cluster of tools/netcluster.py (4 network namespaces in
a ring of shaped veth links) and a Slurm on it (tools/slurmcluster.py: one
slurmd per namespace), then runs hpcbench's distance (one rank per node)
and network-access (two per node) benchmarks --runs times under each
launcher, alternating, and prints ratDist[2] and ratNC[2] of every run and
whether srun's lie within the spread (min to max) of the mpiexec runs.
Target (issue 26): every srun figure within that spread. Nothing is
asserted: the script reports what it measured.

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

from build_peers import child_env, fail, from_clone, tool

from hpcbench._validate import parse_size

SCRIPT = "bench_slurm_ratios.py"
NODES = 4
TIMEOUT = 900                          # seconds one launch may take on a busy machine
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="runs under each launcher, alternating (default 3)")
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
                _run(["srun", "--mpi=pmix", "-t", "15", "-N", str(NODES), "--ntasks-per-node", str(per_node), *argv],
                     slurm_env, work)

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
        ref = [g[key] for g in runs["mpiexec"]]
        low, high = min(ref), max(ref)
        inside = [low <= g[key] <= high for g in runs["srun"]]
        met = met and all(inside)
        figures[f"{key}_mpiexec_spread"] = [low, high]
        print(f"{name}: mpiexec {low:.3f} .. {high:.3f}; srun {', '.join(f'{g[key]:.3f}' for g in runs['srun'])}: "
              f"{sum(inside)} of {len(inside)} within the mpiexec spread")
    print(f"target (every srun figure within the mpiexec runs' spread): {'met' if met else 'NOT met'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
