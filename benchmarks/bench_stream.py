"""Figures for the stream benchmark (issue 29): STREAM's four kernels
against a plain C STREAM loop and likwid-bench, and what a copy moves.

    python benchmarks/bench_stream.py [--runs 5] [--size 128MiB] [--reps 20] [--isa auto]
                                      [--stream-ref PATH] [--likwid-bench PATH | --no-likwid]
                                      [--copy-variants] [--json out.json]

Prints, measured in this run, over `runs` alternating runs (the order of
the tools turns each run), on one core and on all cores, at the same array
size per core and thread count:
  * each kernel's best rate (STREAM's "Best Rate", STREAM's byte count)
    of hpcbench's `stream` kernel (hpcbench.stream.stream_run) and of the
    peer benchmarks/peers/stream_ref.c (plain C loops, pthreads pinned like
    hpcbench's members, compiled with hpcbench's flags), and their ratio;
  * hpcbench's overall rate (all repetitions' bytes over their summed
    spans) against likwid-bench, which counts so (all iterations' bytes
    over their time): Copy against copy_<isa>, Triad
    against stream_<isa> (A = B*c + C), Scale against update_<isa> (A = A*s:
    also one load and one store per element, but to the line it read, so
    with no write-allocate read; ordinary-store Scale pays one);
  * with --copy-variants, one core only: Copy's rate (STREAM's count) when
    written as the plain loop (which GCC turns into memcpy), per line as
    hpcbench's memory benchmark writes it, memcpy, rep movsb and
    non-temporal stores (stream_ref's COPY), hpcbench's memory copy
    (copy_run), hpcbench's stream Copy with ordinary and with non-temporal
    stores, and likwid-bench copy_<isa> and copy_mem_<isa> (non-temporal):
    the figures docs/stream.md cites.
Targets: every ratio's median >= 0.95. Nothing is asserted.

Peers: stream_ref is compiled here from benchmarks/peers/ with $CC unless
--stream-ref gives a built binary (benchmarks/build_peers.py builds it);
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
from hpcbench.memory import copy_run, default_array_bytes
from hpcbench.stream import choose_isa, stream_run, team_rates
from hpcbench.stream._analysis import spans_ns
from hpcbench.stream._measure import supported_isas
from hpcbench.topology import Topology

SCRIPT = "bench_stream.py"
KERNELS = ("copy", "scale", "add", "triad")
TARGET = 0.95
#: likwid-bench's kernel suffix per instruction set, and its kernel beside each of ours.
LIKWID_SUFFIX = {"scalar": "", "sse2": "_sse", "avx2": "_avx", "avx512": "_avx512"}
LIKWID_PEER = {"copy": ("copy", 2), "triad": ("stream", 3), "scale": ("update", 1)}
COPY_VARIANTS = ("loop", "lines", "memcpy", "movsb", "nt")


def likwid_rate(likwid, test, streams, array_bytes, threads):
    """likwid-bench's MByte/s as bytes/s: -W N:<whole data set>:<threads>,
    each thread first-touching its chunk of every stream."""
    total = streams * array_bytes * threads
    spec = f"{total}B" if total < 1 << 31 else f"{round(total / 1000)}kB"
    out = subprocess.run([likwid, "-t", test, "-W", f"N:{spec}:{threads}"], capture_output=True, text=True,
                         check=True).stdout
    return float(re.search(r"^MByte/s:\s+([0-9.]+)", out, re.M).group(1)) * 1e6


def ref_rates(ref, array_bytes, reps, pus, copy="loop"):
    """stream_ref's best and median bytes/s per kernel."""
    out = subprocess.run([ref, str(array_bytes), str(reps), ",".join(map(str, pus)), copy], capture_output=True,
                         text=True, check=True).stdout
    return {f[0]: (float(f[1]), float(f[2])) for f in (line.split() for line in out.splitlines())}


def ours(array_bytes, reps, pus, isa, stores="ordinary"):
    """hpcbench's best, median and overall bytes/s per kernel; overall is all
    repetitions' bytes over their summed spans, as likwid-bench counts."""
    run = stream_run(pus, array_bytes, reps, isa, stores)
    team = team_rates("t", list(pus), array_bytes, stores, run.start_ns, run.end_ns)
    spans = spans_ns(run.start_ns, run.end_ns).sum(axis=0) * 1e-9
    return {k.kernel: (k.best, k.median, reps * len(pus) * k.bytes / spans[i]) for i, k in enumerate(team.kernels)}


def one_run(args, tools, pus, r):
    """One run of every tool on `pus`, in an order that turns with r."""
    steps = [("hpcbench", lambda: ours(args.size, args.reps, pus, args.isa)),
             ("hpcbench nt", lambda: ours(args.size, args.reps, pus, args.isa, "nontemporal")),
             ("ref", lambda: ref_rates(tools["ref"], args.size, args.reps, pus))]
    if tools.get("likwid"):
        for kernel, (test, streams) in LIKWID_PEER.items():
            name = test + LIKWID_SUFFIX[args.isa]
            steps.append((f"likwid {kernel}", lambda n=name, s=streams: likwid_rate(tools["likwid"], n, s, args.size,
                                                                                    len(pus))))
    k = r % len(steps)
    return {name: f() for name, f in steps[k:] + steps[:k]}


def likwid_line(args, rows, kernel, mine):
    """hpcbench's median (`mine`: ordinary or non-temporal stores) against likwid's kernel beside `kernel`."""
    lk = [x[mine][kernel][2] / x[f"likwid {kernel}"] for x in rows]
    test = LIKWID_PEER[kernel][0] + LIKWID_SUFFIX[args.isa]
    ours_median = np.median([x[mine][kernel][2] for x in rows]) / 1e9
    label = "hpcbench overall" if mine == "hpcbench" else "... nontemporal"
    return (f"\n           {label:>16} {ours_median:6.1f}  likwid {test} "
            f"{np.median([x[f'likwid {kernel}'] for x in rows]) / 1e9:6.1f}  ratios {' '.join(f'{v:.2f}' for v in lk)}"
            f" median {np.median(lk):.2f} {'met' if np.median(lk) >= TARGET else 'NOT met'}")


def compare(args, tools, pus, figures):
    print(f"STREAM kernels, {format_size(args.size)} per array per core, {args.isa} loads, {args.runs} "
          f"alternating runs; GB/s; load average {os.getloadavg()[0]:.2f}")
    for cores in ([pus[0]], pus):
        rows = [one_run(args, tools, cores, r) for r in range(args.runs)]
        figures[f"{len(cores)}_cores"] = rows
        print(f"  {len(cores)} core(s):")
        for kernel in KERNELS:
            best = [x["hpcbench"][kernel][0] / x["ref"][kernel][0] for x in rows]
            line = (f"    {kernel:<6} hpcbench best {np.median([x['hpcbench'][kernel][0] for x in rows]) / 1e9:6.1f}"
                    f"  stream_ref best {np.median([x['ref'][kernel][0] for x in rows]) / 1e9:6.1f}"
                    f"  ratios {' '.join(f'{v:.2f}' for v in best)} median {np.median(best):.2f}"
                    f" {'met' if np.median(best) >= TARGET else 'NOT met'}")
            if f"likwid {kernel}" in rows[0]:
                # Scale against update also with non-temporal stores: then both move 16 B per element.
                for mine in ("hpcbench", "hpcbench nt") if kernel == "scale" else ("hpcbench",):
                    line += likwid_line(args, rows, kernel, mine)
            print(line, flush=True)


def memory_copy(array_bytes, reps, pu):
    """The memory benchmark's copy (csrc/kernels/copy.c) on one PU, bytes/s: its best repetition, the median
    (what the memory benchmark reports) and all repetitions' bytes over their summed times (as likwid-bench
    counts)."""
    run = copy_run([pu], array_bytes, reps)
    overall = reps * 2 * array_bytes / float((run.end_ns - run.start_ns).sum() * 1e-9)
    return float(run.bandwidth.max()), float(np.median(run.bandwidth)), overall


def copy_variants(args, tools, pu, figures):
    """One core's Copy written every way, alternating; medians of the runs' best (GB/s, STREAM's count)."""
    steps = {f"stream_ref {v}": (lambda v=v: ref_rates(tools["ref"], args.size, args.reps, [pu], v)["copy"][0])
             for v in COPY_VARIANTS}
    steps["hpcbench memory copy (copy_run)"] = lambda: memory_copy(args.size, args.reps, pu)
    for stores in ("ordinary", "nontemporal"):
        steps[f"hpcbench stream copy {stores}"] = (
            lambda s=stores: ours(args.size, args.reps, [pu], args.isa, s)["copy"][0])
    if tools.get("likwid"):
        suffix = LIKWID_SUFFIX[args.isa]
        for name in dict.fromkeys(("copy_avx", "copy" + suffix, "copy_mem" + suffix)):   # copy_avx: issue 29's peer
            steps[f"likwid {name} (all iterations)"] = lambda n=name: likwid_rate(tools["likwid"], n, 2, args.size, 1)
    names = list(steps)
    got: dict = {n: [] for n in names}
    for r in range(args.runs):
        k = r % len(names)
        for n in names[k:] + names[:k]:
            got[n].append(steps[n]())
    # The memory copy's three statistics: its best, its median, and all repetitions as likwid counts.
    memory = got.pop("hpcbench memory copy (copy_run)")
    names.remove("hpcbench memory copy (copy_run)")
    for i, what in enumerate(("best", "median", "all repetitions")):
        got[f"hpcbench memory copy ({what})"] = [v[i] for v in memory]
        names.append(f"hpcbench memory copy ({what})")
    figures["copy_variants"] = got
    base = np.median(got["hpcbench memory copy (best)"])
    print(f"Copy on one core (PU {pu}), {format_size(args.size)} arrays, {args.runs} alternating runs, best of "
          f"{args.reps} each unless said (likwid: all iterations); GB/s, STREAM's count (16 B per element); the "
          "median over runs, the highest run (the least disturbed), and hpcbench memory copy's best / this:")
    for n in names:
        print(f"  {n:<40} {np.median(got[n]) / 1e9:6.1f} {max(got[n]) / 1e9:6.1f}  "
              f"(runs {' '.join(f'{v / 1e9:.1f}' for v in got[n])}); {base / np.median(got[n]):.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="alternating runs (default 5)")
    ap.add_argument("--size", type=parse_size, default=None, help="bytes per array per core (default: hpcbench's)")
    ap.add_argument("--reps", type=int, default=20, help="repetitions per run of each STREAM program (default 20)")
    ap.add_argument("--isa", default="auto", help="hpcbench's loads and likwid's kernels: auto, scalar, sse2, avx2, "
                    "avx512 (default auto: the widest this CPU has)")
    ap.add_argument("--stream-ref", metavar="PATH", help="a built benchmarks/peers/stream_ref.c (default: built here)")
    ap.add_argument("--likwid-bench", metavar="PATH", default=os.environ.get("LIKWID_BENCH", "likwid-bench"),
                    help="likwid-bench to compare with (default: $LIKWID_BENCH, else on PATH)")
    ap.add_argument("--no-likwid", action="store_true", help="skip the comparisons with likwid-bench")
    ap.add_argument("--copy-variants", action="store_true", help="also time Copy written every way (one core)")
    ap.add_argument("--no-kernels", action="store_true", help="skip the four kernels' comparison (for "
                    "--copy-variants alone)")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    if args.runs < 1 or not 1 <= args.reps <= 10000:
        fail(SCRIPT, f"--runs must be at least 1 and --reps 1..10000, got {args.runs} and {args.reps}")
    if args.isa not in ("auto", *LIKWID_SUFFIX):
        fail(SCRIPT, f"--isa must be auto, scalar, sse2, avx2 or avx512, got {args.isa!r}")
    try:
        args.isa = choose_isa(args.isa, supported_isas())
    except ValueError as e:
        fail(SCRIPT, f"--isa: {e}")
    topo = Topology.load()
    args.size = args.size or default_array_bytes(topo)
    if args.size % 64:
        fail(SCRIPT, f"--size must be a multiple of 64 bytes, got {args.size}")
    with tempfile.TemporaryDirectory() as tmp:
        why = "install the Debian package likwid, give --likwid-bench PATH, or run with --no-likwid"
        tools = {"ref": peer_binary("stream_ref", args.stream_ref, tmp, SCRIPT),
                 "likwid": None if args.no_likwid else tool(args.likwid_bench, SCRIPT, why)}
        figures: dict = {"array_bytes": args.size, "isa": args.isa, "runs": args.runs, "reps": args.reps}
        if not args.no_kernels:
            compare(args, tools, topo.pu_indexes, figures)
        if args.copy_variants:
            copy_variants(args, tools, topo.pu_indexes[0], figures)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
