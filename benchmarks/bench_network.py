"""Figures for the network degradation benchmarks (issue: Servet 3.0).

    sudo python benchmarks/bench_network.py [--runs 3] [--rate 400] [--size 4MiB] [--json out.json]
                                            [--shift-ref PATH]

Builds the emulated cluster of tools/netcluster.py (4 network namespaces in
a ring of shaped veth links, MPI over TCP; needs root) and prints, measured
in this run:
  * ratDist and ratNC against what the shaping predicts (ratDist[d] = d on
    the ring, ratNC[k] = k): target within 20%;
  * the bandwidth of hpcbench's distance benchmark against a plain C MPI
    program with the same pattern (benchmarks/peers/shift_ref.c, compiled
    here with mpicc), runs alternating: target at most 5% lower.
Nothing is asserted: the script reports what it measured.

Peer: the plain C program is built here from benchmarks/peers/shift_ref.c
with $MPICC (default mpicc), or given built with --shift-ref PATH. The
cluster is the repository's tools/netcluster.py, found beside this
benchmarks/ folder (clone the whole repository). Needs root, iproute2 and
Open MPI's mpiexec. A missing peer is one line and exit status 2. Runs the
installed hpcbench.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from build_peers import child_env, fail, from_clone, peer_binary, tool

from hpcbench._validate import parse_size

SCRIPT = "bench_network.py"
NODES = 4


def mpiexec(netcluster, work, n, *args):
    """stdout of mpiexec across the emulated nodes, started in `work` (not the
    current directory, whose hpcbench/ could shadow the installed package)."""
    cmd = ["mpiexec", "-n", str(n), "--map-by", "node", *netcluster.mpiexec_args(2, work), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=900, cwd=work)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip()[-800:])
    return proc.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="alternating runs of the two programs (default 3)")
    ap.add_argument("--rate", type=float, default=400, help="link rate, Mbit/s")
    ap.add_argument("--size", type=parse_size, default=4 << 20, help="bytes per message (default 4MiB)")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--shift-ref", metavar="PATH", help="a built benchmarks/peers/shift_ref.c (default: build it "
                                                        "with $MPICC)")
    args = ap.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    netcluster = from_clone("tools/netcluster.py", "netcluster", SCRIPT)
    reason = "needs root" if os.geteuid() != 0 else netcluster.available()
    if reason:
        fail(SCRIPT, f"the emulated cluster is unavailable: {reason}")
    tool("mpiexec", SCRIPT, "install Open MPI (Debian: openmpi-bin)")
    work = tempfile.mkdtemp()
    ref = peer_binary("shift_ref", args.shift_ref, work, SCRIPT)
    try:
        netcluster.up(NODES, args.rate)
    except (ValueError, netcluster.NetclusterError) as e:
        shutil.rmtree(work, ignore_errors=True)
        fail(SCRIPT, str(e))
    figures = {"runs": [], "rate_mbit": args.rate, "size": args.size}
    try:
        print(f"{NODES} nodes in a ring, {args.rate:g} Mbit/s links, {args.size} byte messages")
        print(f"{'run':<4}{'d':>3}{'plain C MB/s':>14}{'hpcbench MB/s':>15}{'ratio':>7}{'ratDist':>9}{'ratNC[2]':>10}")
        for r in range(args.runs):
            order = ["c", "h"] if r % 2 == 0 else ["h", "c"]
            got = {}
            for who in order:
                if who == "c":
                    out = mpiexec(netcluster, work, NODES, ref, str(args.size), "20")
                    got["c"] = {int(line.split()[0]): float(line.split()[1]) for line in out.strip().splitlines()}
                else:
                    # distance with one rank per node, like the C program;
                    # network-access needs two per node.
                    data = {}
                    for bench, n in (("distance", NODES), ("network-access", 2 * NODES)):
                        res = os.path.join(work, f"{bench}{r}.json")
                        mpiexec(netcluster, work, n, sys.executable, "-m", "hpcbench", "run", bench, "-q", "--net-size",
                                str(args.size), "--net-cap", "2", "-o", res)
                        with open(res) as f:
                            data[bench] = json.load(f)["benchmarks"][0]
                    got["h"] = {int(k): v for k, v in data["distance"]["derived"]["bandwidth"].items()}
                    got["rat_dist"] = {int(k): v for k, v in data["distance"]["derived"]["rat_dist"].items()}
                    got["rat_nc"] = {int(k): v for k, v in data["network-access"]["derived"]["rat_nc"].items()}
            figures["runs"].append(got)
            for d in sorted(got["c"]):
                print(f"{r + 1:<4}{d:>3}{got['c'][d] / 1e6:>14.1f}{got['h'][d] / 1e6:>15.1f}"
                      f"{got['h'][d] / got['c'][d]:>7.3f}{got['rat_dist'][d]:>9.2f}"
                      f"{got['rat_nc'].get(2, float('nan')):>10.2f}",
                      flush=True)
    finally:
        netcluster.down()
        shutil.rmtree(work, ignore_errors=True)

    runs = figures["runs"]
    overhead = float(np.median([g["h"][d] / g["c"][d] for g in runs for d in g["c"]]))
    dist2 = float(np.median([g["rat_dist"][2] for g in runs]))
    nc2 = float(np.median([g["rat_nc"][2] for g in runs]))
    figures.update(bandwidth_ratio=overhead, rat_dist_2=dist2, rat_nc_2=nc2)
    print()
    print(f"hpcbench / plain C bandwidth, median over runs and distances: {overhead:.3f} "
          f"(target >= 0.95): {'met' if overhead >= 0.95 else 'NOT met'}")
    for name, value in (("ratDist[2]", dist2), ("ratNC[2]", nc2)):
        print(f"{name} = {value:.2f}, predicted 2 (target within 20%): {'met' if abs(value - 2) <= 0.4 else 'NOT met'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
