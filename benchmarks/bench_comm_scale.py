"""Figures for communication at scale (issue 16), measured in this run.

    python benchmarks/bench_comm_scale.py [--runs 5] [--only allreduce|run|layers] [--json out.json]
                                          [--allreduce-ref PATH]

* allreduce: hpcbench's global sum of 64 KiB (8192 doubles) on 2 ranks
  against a plain C MPI_Allreduce loop with page-aligned buffers
  (benchmarks/peers/allreduce_ref.c, OSU's way: an untimed barrier before
  every timed call), in alternating runs; both report the median over
  iterations of the slowest rank's time. Target: hpcbench / C at most 1.1.
  The same C loop with malloc'd buffers is run too, to show the gap that
  page-aligned buffers close.
* run: wall time of `mpiexec -n 2 python -m hpcbench run comm` with default
  settings, `--runs` times. Target: at most 10 s.
* layers: Servet's layers in auto mode (benchmarks/peers/layers_auto.py)
  timed at 2, 4 and 8 ranks on this machine, the pairs and rounds the plan
  measures at 16 to 256 ranks on model clusters (hwloc synthetic nodes),
  and a projection of the step at 256 ranks. Targets: the count grows at
  most linearly; the step within 60 s at 256 ranks.
Nothing is asserted; every figure is printed with its target. The load
average is printed with each run: other processes on a shared host change
every timing here.

Peers: the plain C MPI_Allreduce loop is built here from
benchmarks/peers/allreduce_ref.c with $MPICC (default mpicc), or given built
with --allreduce-ref PATH (only --only allreduce needs it); the layers are
timed by benchmarks/peers/layers_auto.py, run with this Python. Needs Open
MPI's mpiexec on PATH. A missing peer is one line and exit status 2. Runs
the installed hpcbench.
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time

import numpy as np
from bench_comm import mpiexec  # the same launch (oversubscribed, as root where needed)
from build_peers import HERE, fail, peer_binary, tool

SCRIPT = "bench_comm_scale.py"
COUNT = 8192                 # doubles: 64 KiB
ITERATIONS = 5000


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


HPCBENCH_ALLREDUCE = f"""
import mpi4py
mpi4py.rc.thread_level = "single"
from mpi4py import MPI
from hpcbench.comm import allreduce
r = allreduce(MPI.COMM_WORLD, [{COUNT}])
if MPI.COMM_WORLD.rank == 0:
    print({COUNT}, r.median[0], r.rank_averages()[0])
"""


def bench_allreduce(runs, tmp, ref):
    script = os.path.join(tmp, "allreduce_hpcbench.py")
    with open(script, "w") as f:
        f.write(HPCBENCH_ALLREDUCE)
    rows = []
    print(f"{'run':<4}{'C page':>10}{'hpcbench':>10}{'C malloc':>10}   us, median of the slowest rank; load")
    for r in range(runs):
        order = ["c", "h", "m"] if r % 2 == 0 else ["m", "h", "c"]
        got = {}
        for who in order:
            if who == "h":
                got["h"] = float(mpiexec(2, sys.executable, script, cwd=tmp).split()[1])
            else:
                out = mpiexec(2, ref, str(COUNT), str(ITERATIONS), "page" if who == "c" else "malloc")
                got[who] = float(out.split()[1])
        rows.append(got)
        print(f"{r + 1:<4}{got['c'] * 1e6:>10.2f}{got['h'] * 1e6:>10.2f}{got['m'] * 1e6:>10.2f}   {load()}",
              flush=True)
    ratio = float(np.median([g["h"] / g["c"] for g in rows]))
    malloc = float(np.median([g["m"] / g["c"] for g in rows]))
    print(f"global sum 64 KiB, hpcbench / plain C (page-aligned), median of {runs} runs: {ratio:.3f} "
          f"(target <= 1.1): {'met' if ratio <= 1.1 else 'NOT met'}")
    print(f"plain C with malloc'd buffers / page-aligned: {malloc:.3f}")
    return {"runs": rows, "ratio": ratio, "malloc_over_page": malloc}


def bench_run(runs, tmp):
    walls = []
    for r in range(runs):
        before = load()
        t0 = time.monotonic()
        mpiexec(2, sys.executable, "-m", "hpcbench", "run", "comm", "-q", "-o", os.path.join(tmp, f"r{r}.json"),
                cwd=tmp)
        walls.append(time.monotonic() - t0)
        print(f"run {r + 1}: mpiexec -n 2 python -m hpcbench run comm: {walls[-1]:.1f} s (load before {before})",
              flush=True)
    median = float(np.median(walls))
    print(f"default run comm at 2 ranks, median of {runs}: {median:.1f} s, best {min(walls):.1f} s "
          f"(target <= 10 s): {'met' if median <= 10 else 'NOT met'}")
    return {"walls": walls, "median": median}


#: Model nodes for the plan at scale: hwloc synthetic descriptions.
NODES = {32: "pack:2 l3:1(size=32MiB) l2:8(size=1MiB) core:2 pu:1",
         16: "pack:2 l3:1(size=16MiB) l2:4(size=1MiB) core:2 pu:1",
         1: "pack:1 l3:1(size=8MiB) l2:1(size=1MiB) core:1 pu:1",
         256: "pack:2 numa:2 l3:4(size=16MiB) l2:4(size=1MiB) core:2 pu:2"}


def planned(ranks, per_node):
    """Pairs, rounds and classes the auto plan measures for `ranks` ranks,
    `per_node` per node (bound one per PU, mapped by slot)."""
    from hpcbench.comm import plan_layers
    from hpcbench.comm._records import Placement
    from hpcbench.topology import Topology
    topo = Topology.from_synthetic(NODES[per_node])
    pus = topo.pu_indexes
    placement = [Placement(rank=r, host=f"n{r // per_node}", node=r - r % per_node, pus=[pus[r % per_node]])
                 for r in range(ranks)]
    plan = plan_layers(placement, topo, "auto")
    return len(plan.measured), len(plan.rounds), len(plan.representative), plan.all_pairs


def bench_layers():
    measured = []
    for n in (2, 4, 8):
        out = json.loads(mpiexec(n, sys.executable, os.path.join(HERE, "peers", "layers_auto.py")).splitlines()[-1])
        out["load"] = load()
        measured.append(out)
        print(f"auto layers at {n} ranks here: {out['seconds']:.2f} s, {out['measured']} of {out['all_pairs']} pairs "
              f"in {out['rounds']} rounds, {out['layers']} layer(s) (load {out['load']})", flush=True)
    print(f"{'ranks':>6}{'per node':>9}{'pairs':>7}{'rounds':>7}{'classes':>8}{'all pairs':>10}   planned")
    plans = {}
    for per_node in (32, 16, 1):
        for ranks in (16, 32, 64, 128, 256):
            if ranks < per_node or ranks < 2:
                continue
            pairs, rounds, classes, everything = planned(ranks, per_node)
            plans[(ranks, per_node)] = (pairs, rounds, classes)
            print(f"{ranks:>6}{per_node:>9}{pairs:>7}{rounds:>7}{classes:>8}{everything:>10}")
    pairs, rounds, classes, everything = planned(256, 256)
    plans[(256, 256)] = (pairs, rounds, classes)
    print(f"{256:>6}{256:>9}{pairs:>7}{rounds:>7}{classes:>8}{everything:>10}   (one node of 256 PUs)")
    linear = all(plans[(2 * r, k)][0] <= 2 * plans[(r, k)][0] + 8
                 for (r, k) in plans if (2 * r, k) in plans)
    print(f"pairs at most double when the ranks double: {'yes' if linear else 'NO'} (target: at most linear)")
    # Projection to 256 ranks: every round costs what a round cost at 8 ranks here (the pair-latency phase
    # over its rounds), times log2(P)/log2(8) for the collectives around it (split, gather, broadcast,
    # barrier); every layer after the first costs what one cost at 8 ranks (its sweep, capped at 0.05 s
    # per size, and its scalability), for 6 layers.
    last = measured[-1]
    per_round = last["rounds_seconds"] / last["rounds"]
    per_layer = (last["seconds"] - last["rounds_seconds"]) / last["layers"]
    worst = max(plans[(256, k)][1] for k in (32, 16, 1, 256))
    layers = 6
    scale = math.log2(256) / math.log2(8)
    projection = worst * per_round * scale + layers * per_layer
    print(f"projection at 256 ranks: {worst} rounds x {per_round * 1e3:.1f} ms x {scale:.2f} + {layers} layers x "
          f"{per_layer:.2f} s = {projection:.0f} s (target <= 60 s): {'met' if projection <= 60 else 'NOT met'}; "
          f"all 32640 pairs one at a time: {32640 * per_round * scale / 60:.0f} min")
    return {"measured": measured, "plans": {f"{r}x{k}": v for (r, k), v in plans.items()},
            "projection_s": projection, "linear": linear}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="runs of the allreduce and run parts (default 5)")
    ap.add_argument("--only", choices=("allreduce", "run", "layers"))
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--allreduce-ref", metavar="PATH", help="a built benchmarks/peers/allreduce_ref.c (default: "
                                                            "build it with $MPICC)")
    args = ap.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    tool("mpiexec", SCRIPT, "install Open MPI (Debian: openmpi-bin)")
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "allreduce"):
            ref = peer_binary("allreduce_ref", args.allreduce_ref, tmp, SCRIPT)
            figures["allreduce"] = bench_allreduce(args.runs, tmp, ref)
        if args.only in (None, "run"):
            figures["run"] = bench_run(args.runs, tmp)
        if args.only in (None, "layers"):
            figures["layers"] = bench_layers()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
