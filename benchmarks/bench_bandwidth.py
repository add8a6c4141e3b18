"""Figures for the bandwidth benchmark (issue 29): likwid-bench's kernels per cache level and memory.

    python benchmarks/bench_bandwidth.py [--runs 5] [--isa auto] [--kernels load,store,copy,update,triad,store_nt]
                                         [--sizes 24KiB,512KiB,16MiB,128MiB] [--volume 512MiB]
                                         [--nt-volume 4GiB] [--pu 0] [--json out.json] [--likwid-bench PATH]

Prints, measured in this run: for each working set (by default the
benchmark's own, one inside each cache level hwloc reports and one in
memory) and each kernel, hpcbench's bandwidth (hpcbench.bandwidth.run_kernel
on one PU, the median of --samples samples, 3 by default; --samples 1 times
one region, as likwid-bench does) against likwid-bench's test of the same
loop and ISA (load_<isa>, store_<isa>, copy_<isa>, update_<isa>,
triad_<isa>, stream_<isa>; store_mem_<isa> and the other *_mem tests for
the _nt kernels) at the same working set in bytes, 1 thread pinned to the
same PU (`-w N:<bytes>B:1`, whose thread runs on the domain's first PU;
--threads K: K threads on PUs pu.., each its own working set, `-w N:<K x
bytes>B:K`;
pass --pu accordingly), in `runs` alternating pairs (which tool goes first
alternates). Both count bytes alike (loads + stores; likwid-bench's "Data
volume"), both run about `volume` bytes per timed region (`nt-volume` for
the _nt kernels: their stores go to memory whatever the working set, and a
region of a few ms is partly absorbed by buffers on the way, so
likwid-bench's short regions overstate the sustained rate: triad_mem_avx512
at 24 KiB gave 148 GB/s over 3 ms and 39 GB/s over 125 ms here, and
hpcbench's first sample of 512 MiB 155 GB/s, its others 12-60 GB/s; over
4 GiB both are sustained). Prints each ratio
hpcbench / likwid and the median per kernel and level against the target
(>= 0.95). Nothing is asserted: the script reports what it measured.

Peer: likwid-bench (Debian package likwid), found on PATH or given with
--likwid-bench PATH; a missing peer is one line and exit status 2, as is
bad input. Runs the installed hpcbench.
"""
import argparse
import json
import math
import os
import re
import subprocess

import numpy as np
from build_peers import fail, tool

from hpcbench._format import format_size
from hpcbench._validate import parse_size
from hpcbench.bandwidth import KERNELS, level_sizes, run_kernel
from hpcbench.bandwidth._kernels import LIKWID_SUFFIX, choose_isas
from hpcbench.bandwidth._measure import aggregate_bandwidth
from hpcbench.topology import Topology

SCRIPT = "bench_bandwidth.py"
DEFAULT_KERNELS = "load,store,copy,update,triad,store_nt"
#: hpcbench times one sample per pair, as likwid-bench times one region: like with like.
#: hpcbench / likwid at or above this meets the target.
TARGET = 0.95


def likwid_rate(likwid, test, working_set, iterations, pu, threads):
    """likwid-bench's MByte/s (its data volume over its time) as bytes/s,
    `threads` threads from the domain N's first PU, each on `working_set`
    bytes (-w gives the total); checks the size and the first PU."""
    total = working_set * threads
    out = subprocess.run([likwid, "-t", test, "-w", f"N:{total}B:{threads}", "-i", str(iterations)],
                         capture_output=True, text=True, check=True).stdout
    size = int(re.search(r"^Size \(Byte\):\s+(\d+)", out, re.M).group(1))
    on = int(re.search(r"running on hwthread (\d+)", out).group(1))
    if on != pu or abs(size - total) > 0.02 * total:
        raise RuntimeError(f"likwid-bench {test} ran {size} bytes from PU {on}, not {total} from {pu}")
    return float(re.search(r"^MByte/s:\s+([0-9.]+)", out, re.M).group(1)) * 1e6


def hpcbench_rate(kernel, working_set, isa, volume, pus, samples):
    """hpcbench's bandwidth, the median of `samples` samples of about `volume`
    bytes each, after one untimed pass (bytes/s). One sample alone reads
    memory low: the first sample after the pass read 128 MiB at 40-46 GB/s
    where the next ones read 43-48 (the lead, 2026-11-27). Several PUs: each
    member its own working set, all bytes over the first start to the last end."""
    run = run_kernel(kernel, pus, [working_set], isa, volume, samples)
    rates = aggregate_bandwidth(run.bytes_per_sample[0], run.start_ns[0], run.end_ns[0])
    return float(np.median(rates))


def compare(likwid, kernel, label, size, isa, args, figures):
    """`runs` alternating pairs at one working set; prints one line."""
    test = kernel.likwid + LIKWID_SUFFIX[isa]
    # The working set hpcbench uses (whole 256-byte blocks per array), given to likwid-bench in bytes.
    ws = kernel.streams * (size // kernel.streams // 256 * 256)
    volume = args.nt_volume if kernel.nontemporal else args.volume
    iterations = max(10, math.ceil(volume / ws))
    ratios, ours_all, theirs_all = [], [], []
    for r in range(args.runs):
        pair = [lambda: hpcbench_rate(kernel, ws, isa, volume, list(range(args.pu, args.pu + args.threads)),
                                      args.samples),
                lambda: likwid_rate(likwid, test, ws, iterations, args.pu, args.threads)]
        got = [f() for f in (pair if r % 2 == 0 else pair[::-1])]   # who goes first alternates
        ours, theirs = (got[0], got[1]) if r % 2 == 0 else (got[1], got[0])
        ratios.append(ours / theirs)
        ours_all.append(ours)
        theirs_all.append(theirs)
    med = float(np.median(ratios))
    figures["rows"].append({"kernel": kernel.name, "likwid": test, "level": label, "working_set": ws,
                            "hpcbench": ours_all, "likwid_rates": theirs_all, "ratios": ratios, "median": med})
    print(f"  {kernel.name:<16}{test:<20}{label:<8}{format_size(ws):>11}{np.median(ours_all) / 1e9:>10.1f}"
          f"{np.median(theirs_all) / 1e9:>9.1f}{med:>8.2f}  {'met' if med >= TARGET else 'NOT met':<8}"
          f"{' '.join(f'{x:.2f}' for x in ratios)}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="alternating pairs per kernel and size (default 5)")
    ap.add_argument("--isa", default="auto", help="instruction set: scalar, sse2, avx2, avx512 or auto (default)")
    ap.add_argument("--kernels", default=DEFAULT_KERNELS, help=f"kernels (default {DEFAULT_KERNELS})")
    ap.add_argument("--sizes", help="working sets, e.g. 24KiB,16MiB (default: the benchmark's levels)")
    ap.add_argument("--volume", type=parse_size, default=512 << 20, help="bytes per timed region (default 512MiB)")
    ap.add_argument("--nt-volume", type=parse_size, default=4 << 30,
                    help="bytes per timed region of the _nt kernels (default 4GiB; see the docstring)")
    ap.add_argument("--threads", type=int, default=1, help="threads of both, on PUs pu, pu+1, ... (default 1); "
                    "the working sets are per thread")
    ap.add_argument("--samples", type=int, default=3, help="hpcbench samples per pair, their median (default 3)")
    ap.add_argument("--pu", type=int, default=0, help="the PU both run on (likwid's domain N starts there)")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--likwid-bench", metavar="PATH", default=os.environ.get("LIKWID_BENCH", "likwid-bench"),
                    help="likwid-bench to compare with (default: $LIKWID_BENCH, else on PATH)")
    args = ap.parse_args()
    if args.runs < 1 or not 1 <= args.samples <= 1000 or not 1 <= args.threads <= (os.cpu_count() or 1):
        fail(SCRIPT, f"--runs must be at least 1, --samples 1..1000 and --threads 1..{os.cpu_count()}, got "
                     f"{args.runs}, {args.samples} and {args.threads}")
    kernels = [k.strip() for k in args.kernels.split(",")]
    unknown = [k for k in kernels if k not in KERNELS]
    if unknown:
        fail(SCRIPT, f"--kernels must name kernels of {', '.join(KERNELS)}, got {', '.join(unknown)}")
    try:
        isa = choose_isas([args.isa], everything=False)[0]
        sizes = [parse_size(s) for s in args.sizes.split(",")] if args.sizes else None
    except ValueError as e:
        fail(SCRIPT, str(e))
    if isa == "scalar" and any(KERNELS[k].nontemporal for k in kernels):
        fail(SCRIPT, "the _nt kernels need sse2 or wider")
    likwid = tool(args.likwid_bench, SCRIPT, "install the Debian package likwid or give --likwid-bench PATH")
    topo = Topology.load()
    if args.pu not in topo.pu_indexes:
        fail(SCRIPT, f"--pu must be one of {topo.pu_indexes}, got {args.pu}")
    levels = [(format_size(s), s) for s in sizes] if sizes else [(lv.label, lv.size)
                                                                 for lv in level_sizes(topo, args.pu)]
    figures = {"isa": isa, "pu": args.pu, "volume": args.volume, "runs": args.runs, "rows": []}
    print(f"hpcbench bandwidth / likwid-bench, {args.threads} thread(s) from PU {args.pu}, {isa}, "
          f"{args.runs} alternating pairs, "
          f"~{format_size(args.volume)} per timed region (GB/s, loads + stores; target >= {TARGET}); "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"  {'kernel':<16}{'likwid test':<20}{'level':<8}{'working set':>11}{'hpcbench':>10}{'likwid':>9}"
          f"{'ratio':>8}  {'target':<8}ratios")
    for name in kernels:
        for label, size in levels:
            compare(likwid, KERNELS[name], label, size, isa, args, figures)
    meds = [row["median"] for row in figures["rows"]]
    print(f"medians met the target in {sum(m >= TARGET for m in meds)} of {len(meds)} kernel x level cells; "
          f"lowest {min(meds):.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
