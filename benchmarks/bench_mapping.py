"""Figures for the process mapping (issue: Servet's mapping from measurements).

    python benchmarks/bench_mapping.py --speed-only
    sudo python benchmarks/bench_mapping.py [--runs 5] [--rate 400] [--fast-rate 20000] [--json out.json]
                                            [--examples hpcbench/examples] [--node-ring PATH]

Prints, measured in this run (nothing is asserted):
  * speed: map_processes choosing 10,000 cores of 125 nodes x 80 PUs (every
    record present), median of 5 calls per kind; hwloc-distrib spreading
    10,000 processes over the same tree (no measurements) is timed beside it.
    Target: under one second.
  * contention: the emulated cluster of tools/netcluster.py, 4 nodes of 2
    slots in a ring of --rate Mbit/s links (ratNC[2] about 2). hpcbench
    measures comm and network-access there (8 ranks, 2 per node, bound to
    cores), `hpcbench map -n 4 --kind communication` writes a rankfile, and
    the communication-bound job benchmarks/peers/node_ring.c (every rank
    sends --size bytes to its counterpart on the next node, --iterations
    times) runs with Open MPI's default mapping and with the rankfile on
    the same nodes, alternating, --runs times each. Target: hpcbench's
    mapping at least 1.5x faster (median over runs).
  * no contention: the same at --fast-rate, where the links are not the
    bottleneck (ratNC[2] measured below 1.5, or the mapping says what it
    decided). Target: the mapping never slower than the default beyond the
    runs' own spread.
The cluster's nodes share this machine's cores: the job sleeps while it
waits (it polls every 50 us), so the network, not CPU time, sets its pace.
--examples DIR also writes the example results files of the mapping docs
there: mapping-node-example.json (cache, shared-caches, memory: one rank
on node hpcb0) and mapping-example.json (comm and network-access of the
contention run).

Peers: hwloc-distrib (hwloc's tools, found on PATH or given with
--hwloc-distrib PATH; the speed figure skips it when it is missing), and
the job benchmarks/peers/node_ring.c, built here with $MPICC (default
mpicc) or given built with --node-ring PATH. The records of the speed test
come from the repository's tests/mapping_records.py and the cluster from its
tools/netcluster.py, both found beside this benchmarks/ folder (clone the
whole repository). The cluster needs root, iproute2 and Open MPI's mpiexec.
A missing peer is one line and exit status 2. Runs the installed hpcbench.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from build_peers import child_env, fail, from_clone, peer_binary, tool

from hpcbench import Results
from hpcbench._validate import parse_size
from hpcbench.mapping import launch, map_processes
from hpcbench.topology import Topology

SCRIPT = "bench_mapping.py"
NODES = 4
SPEED_TREE = "pack:2 [numa] l3:4(size=32MiB) l2:10(size=1MiB) l1:1(size=32KiB) core:1 pu:1"   # 80 PUs
SPEED_NODES = 125


# ------------------------------------------------------------ speed

def _speed_results() -> Results:
    """125 alike nodes of 80 PUs: shared caches and memory measured on the
    first, comm on the first two (every 4th PU bound), ratNC for 1-4."""
    records = from_clone("tests/mapping_records.py", "mapping_records", SCRIPT, needs=("paper_machines",))
    cache_groups, comm, memory = records.cache_groups, records.comm, records.memory
    network_access, results, shared_caches = records.network_access, records.results, records.shared_caches
    topo = Topology.from_synthetic(SPEED_TREE)
    hosts = [f"n{i:03d}" for i in range(SPEED_NODES)]
    l3 = cache_groups(topo, 3)
    placement = [(h, 80 * i, pu) for i, h in enumerate(hosts[:2]) for pu in range(0, 80, 4)]

    def latency(a, b):
        if placement[a][0] != placement[b][0]:
            return 3e-6
        return 0.5e-6 if any(placement[a][2] in g and placement[b][2] in g for g in l3) else 1e-6
    return results(topo, hosts, [shared_caches(hosts[0], topo),
                                 memory(hosts[0], topo, [(0.7, [list(range(40)), list(range(40, 80))])]),
                                 comm(placement, latency), network_access({1: 1.0, 2: 1.3, 3: 1.8, 4: 2.4})])


def speed(hwloc_distrib: str | None, repeat: int = 5) -> dict:
    res = _speed_results()
    out = {}
    for kind in ("memory", "communication"):
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            mapping = map_processes(res, SPEED_NODES * 80, kind)
            times.append(time.perf_counter() - t0)
        assert len(mapping.choices) == SPEED_NODES * 80
        out[kind] = statistics.median(times)
    peer = None
    if hwloc_distrib:
        tree = f"group:{SPEED_NODES} {SPEED_TREE}"
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            subprocess.run([hwloc_distrib, "--input", tree, "--single", str(SPEED_NODES * 80)], check=True,
                           capture_output=True)
            times.append(time.perf_counter() - t0)
        peer = statistics.median(times)
    out["hwloc-distrib"] = peer
    return out


# ------------------------------------------------------------ the emulated cluster

def netcluster():
    """The repository's tools/netcluster.py (loaded once, by its path)."""
    return from_clone("tools/netcluster.py", "netcluster", SCRIPT)


def mpiexec(work: str, args: list, timeout: int = 900) -> str:
    """stdout of mpiexec across the emulated nodes, started in `work` (not the
    current directory, whose hpcbench/ could shadow the installed package)."""
    cmd = ["mpiexec", *netcluster().mpiexec_args(2, work), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=timeout, cwd=work)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:6])}: {proc.stderr.strip()[-800:]}")
    return proc.stdout


def measure(work: str, name: str, benchmarks: list, size: int) -> str:
    """hpcbench's benchmarks across the cluster: 8 ranks, 2 per node, bound to cores."""
    out = os.path.join(work, name)
    mpiexec(work, ["-n", str(2 * NODES), "--map-by", "node", "--bind-to", "core", sys.executable, "-m", "hpcbench",
                   "run", *benchmarks, "-q", "--net-size", str(size), "--net-cap", "2", "--comm-max", "1MiB",
                   "--comm-cap", "0.05", "-o", out])
    return out


def job_time(work: str, job: str, size: int, iterations: int, rankfile: str | None) -> tuple:
    """(seconds of the slowest rank, nodes the job ran on)."""
    extra = ["--rankfile", rankfile, "--mca", "rmaps_rank_file_physical", "1", "--use-hwthread-cpus"] \
        if rankfile else []
    line = mpiexec(work, ["-n", str(NODES), *extra, job, str(size), str(iterations)], timeout=600)
    seconds, nodes, _ = line.split()
    return float(seconds), int(nodes)


def compare(work: str, job: str, results: list, size: int, iterations: int, runs: int, label: str) -> dict:
    mapping = map_processes(results, NODES, "communication")
    plan = launch(mapping, "rankfile", os.path.join(work, f"rankfile-{label}"))
    with open(plan.path, "w") as f:
        f.write(plan.text)
    rat_nc = mapping.sources[-1].detail
    print(f"{label}: {rat_nc}; hpcbench puts {NODES} ranks on {mapping.counts()}", flush=True)
    times: dict = {"default": [], "hpcbench": []}
    for r in range(runs):
        for who in (("default", "hpcbench") if r % 2 == 0 else ("hpcbench", "default")):
            seconds, nodes = job_time(work, job, size, iterations, plan.path if who == "hpcbench" else None)
            times[who].append(seconds)
            print(f"  run {r + 1} {who:<9} {seconds:8.3f} s on {nodes} node(s)", flush=True)
    d, h = statistics.median(times["default"]), statistics.median(times["hpcbench"])
    spread = (max(times["default"]) - min(times["default"])) / d
    return {"times": times, "default": d, "hpcbench": h, "speedup": d / h, "default_spread": spread,
            "mapping": mapping.counts(), "rat_nc": rat_nc}


def cluster_figures(args, work: str, job: str) -> dict:
    out = {}
    for label, rate, iterations in (("contention", args.rate, args.iterations),
                                    ("no contention", args.fast_rate, args.fast_iterations)):
        netcluster().up(NODES, rate)
        try:
            print(f"{NODES} nodes in a ring of {rate:g} Mbit/s links", flush=True)
            world = measure(work, f"world-{rate:g}.json", ["comm", "network-access"], args.size)
            files = [world]
            if label == "contention" and args.examples:
                node = os.path.join(work, "node.json")
                mpiexec(work, ["-n", "1", sys.executable, "-m", "hpcbench", "run", "cache", "shared-caches", "memory",
                               "-q", "-o", node])
                for src, name in ((node, "mapping-node-example.json"), (world, "mapping-example.json")):
                    shutil.copy(src, os.path.join(args.examples, name))
                files = [node, world]
            out[label] = compare(work, job, files, args.size, iterations, args.runs, label)
            out[label]["rate_mbit"] = rate
        finally:
            netcluster().down()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="alternating runs of each mapping (default 5)")
    ap.add_argument("--rate", type=float, default=400, help="link rate of the contention run, Mbit/s")
    ap.add_argument("--fast-rate", type=float, default=20000, help="link rate of the run without contention")
    ap.add_argument("--size", type=parse_size, default=4 << 20, help="bytes per message (job and network-access)")
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--fast-iterations", type=int, default=60)
    ap.add_argument("--speed-only", action="store_true", help="only the speed figure (no root, no cluster)")
    ap.add_argument("--examples", default=None, help="write the mapping example results files here")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--node-ring", metavar="PATH", help="a built benchmarks/peers/node_ring.c (default: build it "
                                                        "with $MPICC)")
    ap.add_argument("--hwloc-distrib", metavar="PATH", default="hwloc-distrib",
                    help="hwloc-distrib to time beside the mapping (default: on PATH; skipped when missing)")
    args = ap.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    if args.examples and not os.path.isdir(args.examples):
        fail(SCRIPT, f"--examples {args.examples}: not a directory")

    figures = {"speed": speed(shutil.which(args.hwloc_distrib))}
    s = figures["speed"]
    print(f"speed: {SPEED_NODES * 80} cores of {SPEED_NODES} nodes mapped in {s['memory']:.3f} s (memory), "
          f"{s['communication']:.3f} s (communication), median of 5; target < 1 s: "
          f"{'met' if max(s['memory'], s['communication']) < 1 else 'NOT met'}")
    if s["hwloc-distrib"] is not None:
        print(f"  hwloc-distrib spreading {SPEED_NODES * 80} processes over the same tree: {s['hwloc-distrib']:.3f} s "
              f"(hpcbench / hwloc-distrib: {s['communication'] / s['hwloc-distrib']:.2f})")
    if not args.speed_only:
        reason = "needs root" if os.geteuid() != 0 else netcluster().available()
        if reason:
            fail(SCRIPT, f"the emulated cluster is unavailable: {reason}")
        tool("mpiexec", SCRIPT, "install Open MPI (Debian: openmpi-bin)")
        work = tempfile.mkdtemp()
        try:
            job = peer_binary("node_ring", args.node_ring, work, SCRIPT)
            figures.update(cluster_figures(args, work, job))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        c, f = figures["contention"], figures["no contention"]
        print()
        print(f"contention ({c['rate_mbit']:g} Mbit/s): default {c['default']:.3f} s, hpcbench {c['hpcbench']:.3f} s, "
              f"speedup {c['speedup']:.2f} (target >= 1.5): {'met' if c['speedup'] >= 1.5 else 'NOT met'}")
        slower = f["hpcbench"] / f["default"] - 1
        print(f"no contention ({f['rate_mbit']:g} Mbit/s): default {f['default']:.3f} s, hpcbench {f['hpcbench']:.3f} "
              f"s, hpcbench/default {f['hpcbench'] / f['default']:.3f}, default runs' spread "
              f"{f['default_spread']:.1%} (target: not slower beyond the spread): "
              f"{'met' if slower <= f['default_spread'] else 'NOT met'}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(figures, fh, indent=1)


if __name__ == "__main__":
    main()
