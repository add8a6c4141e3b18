"""Figures for the network map and the bisection bandwidth (issue 30), on the
emulated cluster of tools/netcluster.py (network namespaces joined by veth
links shaped with tc; MPI over TCP; needs root).

    sudo python benchmarks/bench_netmap.py [--nodes 8] [--rate 100] [--burst 16384] [--runs 5]
                                           [--factor 0.5] [--cpu-cap 0.02] [--only PARTS] [--json out.json]
                                           [--keep DIR] [--default-protocol]

Parts (--only takes a comma-separated subset; default all):
  link       a full mesh, the link between two nodes at --factor x rate:
             `python -m hpcbench run network-map` --runs times; target: the
             map names that link, both directions, and nothing else, in every run;
  node       the same mesh, one node's CPU capped to --cpu-cap of one CPU
             (cgroup cpu.max, or v1's CFS quota), and again with every link of
             one node at --factor x rate: named, nothing else, in every run;
  clean      the mesh with nothing slowed: no finding in every run;
  bisection  `run bisection` on a ring and on a star (a non-blocking switch):
             the per-flow bandwidth against what the shaping implies (target
             within 20 %): on the star every flow gets the rate; on the ring
             the script computes each flow's max-min fair share of its links
             (shortest-path routes, as netcluster routes them) over 10000
             random bisections, and for the very bisections measured;
  time       the wall time of every network-map run (target at most 60 s).
Nothing is asserted: the script prints what it measured, each figure with its
target.

Rates: with one rank per node on a 2-core machine the CPUs must not be the
bottleneck. Here 8 simultaneous flows reached the rate at 200 Mbit/s but
only 23-27 MB/s each (of 48) at 400 Mbit/s, so the default 100 Mbit/s
leaves half the CPUs spare; the burst, 16 KiB (about 1 ms of the rate),
makes every message cross at the link's rate rather than partly at the
veth's speed. The flows are TCP: a link's payload rate is the shaped rate x
1448/1514 (MSS over the frame the token bucket counts).

Open MPI's TCP transport sends a message above its eager limit (64 KiB) by a
handshake whose reply shares one TCP connection with the partner's data: when
two nodes send to each other at once (the bisections; the map's shift at
distance N/2) the reply waits behind that data and each direction reaches
about 57 % of the link's rate whatever the shaping. The runs therefore raise
the eager limit above the message size (--mca btl_tcp_eager_limit etc.);
--default-protocol keeps Open MPI's defaults.

Peer: none is built. The reference is the shaping itself (the rates tc gives
each link), and the cluster is the repository's tools/netcluster.py, found
beside this benchmarks/ folder (clone the whole repository). Needs root,
iproute2 and Open MPI's mpiexec; runs the installed hpcbench. Bad input is one
line and exit status 2; the cluster is brought down at the end, also on failure.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from build_peers import child_env, fail, from_clone, tool

SCRIPT = "bench_netmap.py"
PARTS = ("link", "node", "clean", "bisection", "time")
#: Open MPI's TCP transport sends messages up to this size eagerly (see the docstring).
EAGER = ["--mca", "btl_tcp_eager_limit", "2097152", "--mca", "btl_tcp_rndv_eager_limit", "2097152",
         "--mca", "btl_tcp_max_send_size", "2097152"]
#: TCP payload per frame the token bucket counts: MSS with timestamps over a 1500-byte MTU plus Ethernet's header.
PAYLOAD = 1448 / 1514
MAP_TARGET_S = 60
RANDOM_BISECTIONS = 10000


# ---- What the shaping implies for random bisections (pure).

def ring_path(a: int, b: int, n: int) -> list:
    """The directed links a message from a to b crosses on netcluster's ring:
    the shorter way round, forward on ties; ("f", i) is link i from node i to
    i+1, ("b", i) from node i+1 to i."""
    forward = (b - a) % n
    if 2 * forward <= n:
        return [("f", (a + k) % n) for k in range(forward)]
    return [("b", (a - k - 1) % n) for k in range(n - forward)]


def max_min_shares(paths: list, capacity: float) -> list:
    """Each flow's max-min fair share (progressive filling) when every link
    has `capacity` and flow f crosses the links paths[f]."""
    rates = [0.0] * len(paths)
    residual = {link: capacity for path in paths for link in path}
    active = {f for f, path in enumerate(paths) if path}
    while active:
        users: dict = {}
        for f in active:
            for link in paths[f]:
                users[link] = users.get(link, 0) + 1
        step = min(residual[link] / count for link, count in users.items())
        for f in active:
            rates[f] += step
            for link in paths[f]:
                residual[link] -= step
        full = {link for link in users if residual[link] <= capacity * 1e-12}
        active = {f for f in active if not full.intersection(paths[f])}
    return [r if paths[f] else math.inf for f, r in enumerate(rates)]


def random_bisection(n: int, rng: random.Random) -> list:
    """Netgauge's random bisection: a random order of the nodes, its first
    half paired with its second half (a node left out when n is odd)."""
    order = list(range(n))
    rng.shuffle(order)
    half = n // 2
    return [(order[k], order[half + k]) for k in range(half)]


def ring_flow_shares(pairs: list, n: int, capacity: float) -> list:
    """Every flow's share (a to b, then b to a, pair by pair) when the pairs exchange at once on the ring."""
    paths = [ring_path(s, d, n) for a, b in pairs for s, d in ((a, b), (b, a))]
    return max_min_shares(paths, capacity)


def expected_ring(n: int, capacity: float, bisections, seed: int = 1) -> list:
    """All flows' shares over `bisections` (a count: random ones; or lists of pairs)."""
    if isinstance(bisections, int):
        rng = random.Random(seed)
        bisections = [random_bisection(n, rng) for _ in range(bisections)]
    return [share for pairs in bisections for share in ring_flow_shares(pairs, n, capacity)]


# ---- Runs on the cluster.

def run_hpcbench(netcluster, work: str, n: int, protocol: list, *args: str) -> float:
    """`mpiexec ... python -m hpcbench run ARGS` across the cluster, one rank per node; its wall time (s)."""
    cmd = ["mpiexec", "-n", str(n), "--map-by", "node", *netcluster.mpiexec_args(1, work), *protocol,
           sys.executable, "-m", "hpcbench", "run", *args, "-q"]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=900, cwd=work)
    if proc.returncode != 0:
        raise RuntimeError(f"hpcbench run {' '.join(args[:1])} failed: {proc.stderr.strip()[-800:]}")
    return time.monotonic() - start


def record(path: str, name: str):
    import hpcbench
    return hpcbench.load(path).get(name)


def findings(rec, matrices: str = "") -> tuple:
    """({(source, destination)} of the slow links, {node} of the slow nodes),
    of the matrices whose name starts with `matrices` ("bandwidth": those only)."""
    return ({(s.source, s.destination) for s in rec.slow_links if s.matrix.startswith(matrices)},
            {s.node for s in rec.slow_nodes if s.matrix.startswith(matrices)})


def exact_but_latency(rec, want_links: set, want_nodes: set) -> bool:
    """Everything wanted found, and whatever else found only by a latency matrix
    (each finding carries the evidence of its worst matrix only)."""
    links, nodes = findings(rec)
    bw_links, bw_nodes = findings(rec, "bandwidth")
    return want_links <= links and want_nodes <= nodes and bw_links <= want_links and bw_nodes <= want_nodes


def unexpected(rec, want_links: set, want_nodes: set) -> list:
    """The findings beyond those wanted, each with its matrix and evidence."""
    return ([f"node {s.node}, {s.matrix}: {s.evidence}" for s in rec.slow_nodes if s.node not in want_nodes]
            + [f"{s.source}->{s.destination}, {s.matrix}: {s.evidence}" for s in rec.slow_links
               if (s.source, s.destination) not in want_links])


def map_runs(netcluster, work: str, args, label: str, want_links: set, want_nodes: set) -> dict:
    """--runs network-map runs on the cluster that is up; how many found exactly what is wanted."""
    hits, but_latency, walls, elapsed = 0, 0, [], []
    for r in range(args.runs):
        out = os.path.join(work, f"map-{label}-{r}.json")
        walls.append(run_hpcbench(netcluster, work, args.nodes, args.protocol, "network-map", "-o", out))
        rec = record(out, "network-map")
        elapsed.append(rec.elapsed_s)
        links, nodes = findings(rec)
        exact = links == want_links and nodes == want_nodes
        hits += exact
        but_latency += exact_but_latency(rec, want_links, want_nodes)
        said = ", ".join([f"node {x}" for x in sorted(nodes)] + [f"{s}->{d}" for s, d in sorted(links)]) or "none"
        print(f"  {label} run {r + 1}: {elapsed[-1]:.1f} s ({walls[-1]:.1f} s with mpiexec), findings: {said} "
              f"({'exact' if exact else 'NOT exact'})", flush=True)
        for extra in unexpected(rec, want_links, want_nodes):
            print(f"    not expected: {extra}", flush=True)
        if args.keep:
            shutil.copy(out, args.keep)
    return {"label": label, "exact": hits, "exact_but_latency": but_latency, "runs": args.runs, "walls": walls,
            "elapsed": elapsed}


def _host(i: int) -> str:
    return f"hpcb{i}"


def _up(netcluster, args, topology: str, **slowed) -> None:
    """The cluster of the next case (the previous one, this script's, brought down first)."""
    netcluster.down()
    shape = netcluster.up(args.nodes, args.rate, args.burst, topology, **slowed)
    print(netcluster.describe(shape), flush=True)


def part_link(netcluster, work: str, args) -> dict:
    a, b = args.link
    _up(netcluster, args, "mesh", slow_links=[(a, b, args.factor)])
    return map_runs(netcluster, work, args, f"link {a}-{b} at {args.factor:g}",
                    {(_host(a), _host(b)), (_host(b), _host(a))}, set())


def part_node(netcluster, work: str, args) -> list:
    node = args.node
    out = []
    if args.cpu_cap:
        _up(netcluster, args, "mesh", cpu_caps=[(node, args.cpu_cap)])
        out.append(map_runs(netcluster, work, args, f"node {node} CPU at {args.cpu_cap:g}", set(), {_host(node)}))
    _up(netcluster, args, "mesh", slow_nodes=[(node, args.factor)])
    out.append(map_runs(netcluster, work, args, f"node {node} links at {args.factor:g}", set(), {_host(node)}))
    return out


def part_clean(netcluster, work: str, args) -> dict:
    _up(netcluster, args, "mesh")
    return map_runs(netcluster, work, args, "nothing slowed", set(), set())


def bisection(netcluster, work: str, args, topology: str) -> dict:
    """One `run bisection` on the topology; measured and expected per-flow figures (bytes/s)."""
    _up(netcluster, args, topology)
    out = os.path.join(work, f"bisection-{topology}.json")
    run_hpcbench(netcluster, work, args.nodes, args.protocol, "bisection", "-o", out)
    if args.keep:
        shutil.copy(out, args.keep)
    rec = record(out, "bisection")
    flows = [x for row in rec.pair_samples for x in row if x is not None and math.isfinite(x)]
    link = args.rate * 1e6 / 8 * PAYLOAD
    if topology == "star":
        random_flows = same_flows = [link]
    else:
        random_flows = expected_ring(args.nodes, link, RANDOM_BISECTIONS)
        same_flows = expected_ring(args.nodes, link, [[tuple(p) for p in pairs] for pairs in rec.raw.pairs])
    row = {"topology": topology, "measured_mean": statistics.mean(flows), "measured_median": rec.pair_bandwidth,
           "expected_mean": statistics.mean(random_flows), "expected_median": statistics.median(random_flows),
           "same_mean": statistics.mean(same_flows), "same_median": statistics.median(same_flows)}
    ratio = row["measured_mean"] / row["expected_mean"]
    print(f"  bisection on the {topology}: per flow, mean {row['measured_mean'] / 1e6:.2f} MB/s, expected "
          f"{row['expected_mean'] / 1e6:.2f} over {RANDOM_BISECTIONS} random bisections: {ratio:.3f} (target 0.8 to "
          f"1.2: {'met' if abs(ratio - 1) <= 0.2 else 'NOT met'}); median {row['measured_median'] / 1e6:.2f} against "
          f"{row['expected_median'] / 1e6:.2f}; for the bisections measured, expected mean "
          f"{row['same_mean'] / 1e6:.2f}, median {row['same_median'] / 1e6:.2f}", flush=True)
    return row


def summary(figures: dict) -> list:
    lines = []
    for got in figures.get("maps", []):
        lines.append(f"{got['label']}: exactly that in {got['exact']} of {got['runs']} runs (target {got['runs']} of "
                     f"{got['runs']}); setting aside findings from latency alone, in {got['exact_but_latency']}")
    for row in figures.get("bisection", []):
        ratio = row["measured_mean"] / row["expected_mean"]
        lines.append(f"bisection on the {row['topology']}: measured / expected per-flow mean {ratio:.3f} (target "
                     "within 20 %)")
    walls = [w for got in figures.get("maps", []) for w in got["walls"]]
    elapsed = [w for got in figures.get("maps", []) for w in got["elapsed"]]
    if walls:
        lines.append(f"network-map of {figures['nodes']} nodes: the benchmark's elapsed time median "
                     f"{statistics.median(elapsed):.1f} s, longest {max(elapsed):.1f} s (target at most {MAP_TARGET_S} "
                     f"s); the whole mpiexec command median {statistics.median(walls):.1f} s, longest "
                     f"{max(walls):.1f} s, over {len(walls)} runs")
    return lines


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=8, help="emulated nodes, one rank each (default 8)")
    ap.add_argument("--rate", type=float, default=100, help="link rate per direction, Mbit/s (default 100)")
    ap.add_argument("--burst", type=int, default=16384, help="links' token bucket, bytes (default 16384)")
    ap.add_argument("--runs", type=int, default=5, help="network-map runs of each case (default 5)")
    ap.add_argument("--factor", type=float, default=0.5, help="a slowed link's share of the rate (default 0.5)")
    ap.add_argument("--link", default="2-5", help="the link slowed, A-B (default 2-5)")
    ap.add_argument("--node", type=int, default=3, help="the node slowed (default 3)")
    ap.add_argument("--cpu-cap", type=float, default=0.02,
                    help="the capped node's share of one CPU, 0 to skip the case (default 0.02)")
    ap.add_argument("--only", default=",".join(PARTS), help=f"parts to run, of {','.join(PARTS)} (default all)")
    ap.add_argument("--default-protocol", action="store_true",
                    help="keep Open MPI's TCP eager limit (see above)")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--keep", metavar="DIR", help="copy every results file into this existing directory")
    return ap


def check_args(netcluster, args) -> None:
    """Every value checked before anything is made: one line and exit 2."""
    parts = [p for p in args.only.split(",") if p]
    bad = [p for p in parts if p not in PARTS]
    if bad or not parts:
        fail(SCRIPT, f"--only takes parts of {','.join(PARTS)}, got {args.only!r}")
    args.parts = parts
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    if not 4 <= args.nodes <= netcluster.MAX_MESH_NODES:
        fail(SCRIPT, f"--nodes must be 4 to {netcluster.MAX_MESH_NODES} (a map needs peers to judge by), "
                     f"got {args.nodes}")
    try:
        a, b, _ = netcluster.parse_slow_link(f"{args.link}:1")
        args.link = (a, b)
        caps = [(args.node, args.cpu_cap)] if args.cpu_cap else []
        for topology in ("ring", "star"):
            netcluster.plan(args.nodes, args.rate, args.burst, topology)
        netcluster.plan(args.nodes, args.rate, args.burst, "mesh", [(a, b, args.factor)],
                        [(args.node, args.factor)], caps)
    except ValueError as e:
        fail(SCRIPT, str(e))
    if args.keep and not os.path.isdir(args.keep):
        fail(SCRIPT, f"--keep {args.keep}: not a directory")
    args.protocol = [] if args.default_protocol else EAGER


def measure(netcluster, work: str, args) -> dict:
    figures: dict = {"nodes": args.nodes, "rate_mbit": args.rate, "burst": args.burst, "runs": args.runs,
                     "eager_limit_raised": not args.default_protocol, "maps": [], "bisection": []}
    if "link" in args.parts:
        figures["maps"].append(part_link(netcluster, work, args))
    if "node" in args.parts:
        figures["maps"] += part_node(netcluster, work, args)
    if "clean" in args.parts or ("time" in args.parts and not figures["maps"]):
        figures["maps"].append(part_clean(netcluster, work, args))
    if "bisection" in args.parts:
        figures["bisection"] = [bisection(netcluster, work, args, t) for t in ("ring", "star")]
    return figures


def main() -> int:
    args = _parser().parse_args()
    netcluster = from_clone("tools/netcluster.py", "netcluster", SCRIPT)
    check_args(netcluster, args)
    tool("mpiexec", SCRIPT, "install Open MPI (Debian: openmpi-bin)")
    reason = "needs root" if os.geteuid() != 0 else netcluster.available()
    if reason:
        fail(SCRIPT, f"the emulated cluster is unavailable: {reason}")
    if netcluster.leftovers():
        fail(SCRIPT, f"an emulated cluster is already up ({', '.join(netcluster.leftovers())}), perhaps in use: "
                     "run tools/netcluster.py down first")
    work = tempfile.mkdtemp(prefix="hpcb-netmap-")
    os.chmod(work, 0o755)
    try:
        figures = measure(netcluster, work, args)
    except (netcluster.NetclusterError, RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"{SCRIPT}: {e}", file=sys.stderr)
        return 1
    finally:
        netcluster.down()
        shutil.rmtree(work, ignore_errors=True)
    print()
    for line in summary(figures):
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
