"""Figures for the numa benchmark (issue 29): one cell of the NUMA matrix
(the cores of a node on the memory of a node) against a plain C peer and
likwid-bench.

    python benchmarks/bench_numa.py [--runs 5] [--size 128MiB] [--reps 10] [--accesses 200000]
                                    [--cores-node N] [--memory-node M] [--threads K] [--numa-ref PATH]
                                    [--likwid-bench PATH | --no-likwid] [--json out.json]

Prints, measured in this run, over `runs` alternating runs (the order of
the tools turns each run), for the cell (cores of --cores-node, memory of
--memory-node; default the first node with cores, on its own memory; the
first --threads cores of the node, default all of them, as hpcbench runs):
  * read bandwidth of the node's cores together, best repetition (all
    bytes over the first start to the last end), of hpcbench's numa kernel
    (hpcbench.numa.measure_cell) and of the peer benchmarks/peers/numa_ref.c
    (plain C read loop, pthreads pinned to the same cores, buffer bound with
    mbind MPOL_BIND|MPOL_MF_STRICT, compiled with hpcbench's flags), and
    their ratio (target >= 0.95);
  * load latency of the node's first core, lowest sample, of both (the
    same windowed random cycle through every line of the buffer), and
    their ratio hpcbench/peer (target <= 1.05);
  * likwid-bench load_<isa> on the node's cores with its stream placed on
    the memory node (-w M<i>:SIZE:THREADS-0:M<j>), as many iterations as
    hpcbench's repetitions (-i REPS; likwid reports all iterations' bytes
    over their time), beside hpcbench's own all-repetitions figure (all
    bytes over the sum of the repetitions' times).
On a machine with one NUMA node only the local cell exists: remote memory
cannot be measured there, and the script says so. Nothing is asserted.

Peers: numa_ref is compiled here from benchmarks/peers/ with $CC unless
--numa-ref gives a built binary (benchmarks/build_peers.py builds it);
likwid-bench is found on PATH (Debian package likwid) or given with
--likwid-bench PATH; --no-likwid skips it. A missing peer is one line and
exit status 2. Runs the installed hpcbench.
"""
import argparse
import json
import os
import re
import subprocess
import tempfile

import numpy as np
from build_peers import fail, peer_binary, tool

from hpcbench._format import format_size
from hpcbench._validate import parse_size
from hpcbench.numa import measure_cell, plan_numa
from hpcbench.numa._measure import WINDOW_BYTES, default_buffer_bytes, round_buffer
from hpcbench.numa._options import NumaOptions
from hpcbench.topology import Topology

SCRIPT = "bench_numa.py"
BANDWIDTH_TARGET, LATENCY_TARGET = 0.95, 1.05
LIKWID_SUFFIX = {"scalar": "", "sse2": "_sse", "avx2": "_avx", "avx512": "_avx512"}
ISA_NAMES = {1: "scalar", 2: "sse2", 3: "avx2", 4: "avx512"}


def ours(pus, node, size, reps, accesses):
    """hpcbench's best and median read bandwidth (bytes/s), lowest and median ns per load, ISA name."""
    s = measure_cell(pus, node, size, reps, accesses)
    return {"read": (float(s.bandwidth.max()), float(np.median(s.bandwidth))),
            "read_all": float(len(s.bandwidth) / np.sum(1.0 / s.bandwidth)),
            "latency": (float(s.latency_ns.min()), float(np.median(s.latency_ns))),
            "isa": ISA_NAMES.get(s.isa, "scalar")}


def peer(ref, pus, node, size, reps, accesses):
    """numa_ref's best and median read bandwidth, lowest and median ns per load."""
    out = subprocess.run([ref, str(size), str(reps), str(node), ",".join(map(str, pus)), str(accesses),
                          str(WINDOW_BYTES)], capture_output=True, text=True, check=True).stdout
    fields = {f[0]: (float(f[1]), float(f[2])) for f in (line.split() for line in out.splitlines())}
    return {"read": fields["read"], "latency": fields["latency"]}


def likwid_read(likwid, test, cores_node, memory_node, size, threads, iterations):
    """likwid-bench's MByte/s as bytes/s: threads on NUMA domain cores_node, the stream on memory_node."""
    spec = f"{round(size / 1000)}kB"
    out = subprocess.run([likwid, "-t", test, "-i", str(iterations), "-w",
                          f"M{cores_node}:{spec}:{threads}-0:M{memory_node}"], capture_output=True, text=True,
                         check=True).stdout
    return float(re.search(r"^MByte/s:\s+([0-9.]+)", out, re.M).group(1)) * 1e6


def one_run(args, tools, pus, r, isa):
    """One run of every tool on the cell, in an order that turns with r."""
    steps = [("hpcbench", lambda: ours(pus, args.memory_node, args.size, args.reps, args.accesses)),
             ("ref", lambda: peer(tools["ref"], pus, args.memory_node, args.size, args.reps, args.accesses))]
    if tools.get("likwid"):
        steps.append(("likwid", lambda: likwid_read(tools["likwid"], "load" + LIKWID_SUFFIX[isa], args.cores_node,
                                                    args.memory_node, args.size, len(pus), args.reps)))
    k = r % len(steps)
    return {name: f() for name, f in steps[k:] + steps[:k]}


def line(label, ours_values, peer_values, target, higher):
    ratios = [a / b for a, b in zip(ours_values, peer_values)]
    met = np.median(ratios) >= target if higher else np.median(ratios) <= target
    return (f"  {label:<34} hpcbench {np.median(ours_values):8.2f}  peer {np.median(peer_values):8.2f}  ratios "
            f"{' '.join(f'{v:.3f}' for v in ratios)} median {np.median(ratios):.3f} "
            f"({'>=' if higher else '<='} {target}: {'met' if met else 'NOT met'})")


def compare(args, tools, pus, figures):
    first = ours(pus, args.memory_node, 1 << 20, 1, 1000)       # the ISA hpcbench picks, for likwid's kernel
    rows = [one_run(args, tools, pus, r, first["isa"]) for r in range(args.runs)]
    figures["runs"] = rows
    print(f"NUMA cell: cores of node {args.cores_node} (PUs {','.join(map(str, pus))}) on memory of node "
          f"{args.memory_node}, {format_size(args.size)} buffer, {args.reps} repetitions, {args.accesses} loads per "
          f"chase sample, {args.runs} alternating runs; load average {os.getloadavg()[0]:.2f}")
    print(line("read bandwidth, best (GB/s)", [x["hpcbench"]["read"][0] / 1e9 for x in rows],
               [x["ref"]["read"][0] / 1e9 for x in rows], BANDWIDTH_TARGET, True))
    print(line("load latency, lowest (ns)", [x["hpcbench"]["latency"][0] for x in rows],
               [x["ref"]["latency"][0] for x in rows], LATENCY_TARGET, False))
    print(line("load latency, median (ns)", [x["hpcbench"]["latency"][1] for x in rows],
               [x["ref"]["latency"][1] for x in rows], LATENCY_TARGET, False))
    if tools.get("likwid"):
        print(line(f"read, all reps vs likwid load{LIKWID_SUFFIX[first['isa']]}",
                   [x["hpcbench"]["read_all"] / 1e9 for x in rows], [x["likwid"] / 1e9 for x in rows],
                   BANDWIDTH_TARGET, True))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="alternating runs (default 5)")
    ap.add_argument("--size", type=parse_size, default=None, help="bytes of the buffer (default: hpcbench's)")
    ap.add_argument("--reps", type=int, default=NumaOptions().repetitions,
                    help="repetitions and chase samples per run (default: hpcbench's)")
    ap.add_argument("--accesses", type=int, default=NumaOptions().accesses,
                    help="loads per chase sample (default: hpcbench's)")
    ap.add_argument("--cores-node", type=int, help="NUMA node whose cores run (default: the first with cores)")
    ap.add_argument("--memory-node", type=int, help="NUMA node the buffer is bound to (default: --cores-node)")
    ap.add_argument("--threads", type=int, help="read with the node's first K cores (default: all, as hpcbench)")
    ap.add_argument("--numa-ref", metavar="PATH", help="a built benchmarks/peers/numa_ref.c (default: built here)")
    ap.add_argument("--likwid-bench", metavar="PATH", default=os.environ.get("LIKWID_BENCH", "likwid-bench"),
                    help="likwid-bench to compare with (default: $LIKWID_BENCH, else on PATH)")
    ap.add_argument("--no-likwid", action="store_true", help="skip the comparison with likwid-bench")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    if args.runs < 1 or not 1 <= args.reps <= 1000 or not 1000 <= args.accesses <= 1 << 30:
        fail(SCRIPT, f"--runs must be at least 1, --reps 1..1000 and --accesses 1000..2^30, got {args.runs}, "
                     f"{args.reps} and {args.accesses}")
    topo = Topology.load()
    try:
        plan = plan_numa(topo)
    except ValueError as e:
        fail(SCRIPT, str(e))
    args.cores_node = plan.cpu_nodes[0] if args.cores_node is None else args.cores_node
    args.memory_node = args.cores_node if args.memory_node is None else args.memory_node
    if args.cores_node not in plan.cpu_nodes or args.memory_node not in plan.nodes:
        fail(SCRIPT, f"--cores-node must be one of {plan.cpu_nodes} and --memory-node one of {plan.nodes}, got "
                     f"{args.cores_node} and {args.memory_node}")
    pus = plan.readers[args.cores_node]
    if args.threads is not None and not 1 <= args.threads <= len(pus):
        fail(SCRIPT, f"--threads must be 1..{len(pus)} (the cores of node {args.cores_node}), got {args.threads}")
    pus = pus[:args.threads] if args.threads else pus
    args.size = round_buffer(args.size or default_buffer_bytes(topo), len(pus))
    with tempfile.TemporaryDirectory() as tmp:
        missing = "install the Debian package likwid, give --likwid-bench PATH, or run with --no-likwid"
        tools = {"ref": peer_binary("numa_ref", args.numa_ref, tmp, SCRIPT),
                 "likwid": None if args.no_likwid else tool(args.likwid_bench, SCRIPT, missing)}
        if len(plan.nodes) == 1:
            print(f"this machine has one NUMA node ({plan.nodes[0]}): only the local cell exists; remote memory cannot "
                  "be measured here (the analysis of several nodes is tested on synthetic topologies)")
        figures: dict = {"buffer_bytes": args.size, "cores_node": args.cores_node, "memory_node": args.memory_node,
                         "pus": pus, "reps": args.reps, "accesses": args.accesses}
        compare(args, tools, pus, figures)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
