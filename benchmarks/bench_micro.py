"""Figures for the OSU/IMB families (issue 28: p2p, collectives, nbc, rma)
against a plain C MPI loop of the same pattern.

    python benchmarks/bench_micro.py [--pairs 10] [--no-ranks-4] [--tests latency,bw,...] [--ref PATH]
                                     [--peer-steps K]
    python benchmarks/bench_micro.py --buffers [--pairs 10] [--ref PATH]

Prints, measured in this run on this machine, for each family's
representative tests (p2p latency, bw, bibw; collectives allreduce, bcast,
alltoall; nbc iallreduce; rma put_latency with lock, get_latency with
fence, put_bw with lock) at 8 B, 4 KiB, 64 KiB and 4 MiB on 2 ranks and at
8 B and 64 KiB on 4 ranks (oversubscribed where the machine has fewer
cores): hpcbench's OSU statistic (the record's `osu`; nbc: IMB-NBC's
`t_pure`, the median of the slowest rank) beside hpcbench's own median from
the same samples, the plain C loop's figure of the same definition, and the
ratio hpcbench / plain C (the median over the pairs of the per-pair ratio,
and its range); for the collectives also the ratio of the medians of the
slowest rank per call (med.ratio), which a preempted call does not move.
Targets (the issue): latency-type at most 1.02x, bandwidth-type at least
0.98x. Nothing is asserted. The load average is printed before and after:
on a machine shared with other work, preempted ranks spread the ratios.

Pairs alternate: each pair runs `python -m hpcbench run FAMILY` (every
test of the family at once, sampled by --budget or --iterations) and the
plain C program, hpcbench first in even pairs and the C program first in
odd ones. The C program runs the same numbers of operations and warm-up
operations per size as hpcbench's last run of that test (the record's
samples x inner), so both time the same work.

--buffers: the plain C MPI_Allreduce of 4 MiB at 2 ranks, page-aligned
with huge pages (hpcbench's buffers) against page-aligned small pages and
plain malloc (every buffer written before the loop), with Open MPI's
own choice of algorithm and with each algorithm pinned (--mca
coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm N, N in
1..6), in alternating rounds: the median and range over the rounds of each
run's OSU average and of its median call, to tell Open MPI's choice of
algorithm from the buffers' part in the 4 MiB global sum's spread.

--peer-steps K: the C program starts with K one-byte messages from rank 1
to rank 0 (micro_ref --steps), the kind of one-directional traffic a
program has had before its loop; with K odd its 8 B allreduce and alltoall
of 2 ranks run slower (Open MPI's per-pair shared-memory rings out of
step), as hpcbench's do after the messages a run sends before them
(docs/comm.md, "Small collectives and what the ranks exchanged before").

Peer: the plain C program is benchmarks/peers/micro_ref.c, built here with
$MPICC (default mpicc), or given built with --ref PATH. Needs Open MPI's
mpiexec on PATH. A missing peer or bad input is one line and exit status 2.
A run that fails or takes over 5 minutes leaves its family out of the
remaining pairs at that number of ranks: the table shows the rest, one line
per failure follows on stderr, and the exit status is 1. Runs the installed
hpcbench.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

import numpy as np
from build_peers import child_env, fail, peer_binary, tool

SCRIPT = "bench_micro.py"
SIZES = {2: (8, 4096, 65536, 4 << 20), 4: (8, 65536)}
WINDOW = 64
BUFFER_BYTES = 4 << 20
ALGORITHMS = {1: "basic linear", 2: "nonoverlapping", 3: "recursive doubling", 4: "ring", 5: "segmented ring",
              6: "rabenseifner"}
LATENCY_TARGET, BANDWIDTH_TARGET = 1.02, 0.98


@dataclass(frozen=True)
class Case:
    """One representative test: its family, its name (hpcbench's and the C
    program's), its one-sided synchronisation, and its kind."""

    family: str
    test: str
    sync: str | None = None
    bandwidth: bool = False

    @property
    def label(self) -> str:
        return f"{self.test} ({self.sync})" if self.sync else self.test


CASES = (Case("p2p", "latency"), Case("p2p", "bw", bandwidth=True), Case("p2p", "bibw", bandwidth=True),
         Case("collectives", "allreduce"), Case("collectives", "bcast"), Case("collectives", "alltoall"),
         Case("nbc", "iallreduce"), Case("rma", "put_latency", "lock"), Case("rma", "get_latency", "fence"),
         Case("rma", "put_bw", "lock", bandwidth=True))
TESTS_FLAG = {"p2p": "--p2p-tests", "collectives": "--coll-tests", "nbc": "--nbc-tests", "rma": "--rma-tests"}


class RunFailed(Exception):
    """A run that failed or hung: its one line."""


def mpiexec(n: int, args: list[str], cwd: str, mca: tuple = (), timeout: float = 300, check: bool = True) -> str:
    """stdout of `mpiexec -n n args` (oversubscribed), started in `cwd`.
    RunFailed if it does not finish in `timeout` s or (check) fails."""
    env = child_env(OMPI_MCA_rmaps_base_oversubscribe="1")
    what = " ".join(os.path.basename(a) for a in args[:6])
    try:
        proc = subprocess.run(["mpiexec", "-n", str(n), *mca, *args], capture_output=True, text=True, env=env,
                              timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise RunFailed(f"{what} ... at {n} ranks did not finish in {timeout:.0f} s") from None
    if proc.returncode != 0 and check:
        lines = [line.strip() for line in proc.stderr.splitlines() if line.strip().strip("-")]
        first = lines[0] if lines else "no message"   # the program's own line, else mpiexec's
        raise RunFailed(f"{what} ... at {n} ranks failed (status {proc.returncode}): {first}")
    return proc.stdout


# ---- one side of a pair each ----

def run_hpcbench(family: str, cases: list[Case], ranks: int, args, work: str) -> dict:
    """One `hpcbench run FAMILY` of the cases' tests: {(test, sync): {size: point}}."""
    out = os.path.join(work, f"{family}-{ranks}.json")
    command = [sys.executable, "-m", "hpcbench", "run", family, TESTS_FLAG[family],
               ",".join(dict.fromkeys(c.test for c in cases)), "--comm-sizes", ",".join(map(str, SIZES[ranks])),
               "--comm-suite", "default", "--p2p-window", str(WINDOW), "-q", "-o", out]
    command += ["--comm-iterations", str(args.iterations)] if args.iterations else ["--comm-budget", str(args.budget)]
    if family == "rma":
        command += ["--rma-sync", ",".join(sorted({c.sync for c in cases if c.sync}))]
    mpiexec(ranks, command, work, check=False)   # a failed benchmark still writes its error
    entries = []
    if os.path.isfile(out):
        with open(out) as f:
            entries = [b for b in json.load(f)["benchmarks"] if b["name"] == family]
    if not entries or entries[-1].get("status") != "ok":
        error = entries[-1].get("error", "no record") if entries else "no record"
        raise RunFailed(f"hpcbench run {family} at {ranks} ranks failed: {error}")
    os.remove(out)
    # derived.series hold every test at all the ranks (p2p and rma: procs 2, the pair that took part)
    return {(s["test"], s.get("sync")): {p["size"]: p for p in s["points"]} for s in entries[-1]["derived"]["series"]}


def hpcbench_figures(case: Case, points: dict) -> dict:
    """{size: (statistic, median, operations, warm-up operations)}: latency
    in us, bandwidth in MB/s; nbc's statistic is t_pure (no median of it)."""
    scale = 1e-6 if case.bandwidth else 1e6
    figures = {}
    for size, p in points.items():
        statistic = p["t_pure"] if case.family == "nbc" else p["osu"]
        median = None if case.family == "nbc" else p["median"] * scale
        figures[size] = (statistic * scale, median, p["samples"] * p["inner"], p["warmup"] * p["inner"])
    return figures


def run_plain(case: Case, ranks: int, counts: dict, ref: str, work: str, steps: int = 0) -> dict:
    """The C program on the same operation counts: {size: (figure, median)}
    (us or MB/s). figure: OSU's average for the collectives, the median of
    the slowest rank for nbc (hpcbench's t_pure), the loop's figure
    otherwise; median: the collectives' median of the slowest rank per
    call (hpcbench's median), None for the others."""
    sizes = sorted(counts)
    if not sizes:
        raise RunFailed(f"hpcbench's record at {ranks} ranks has no {case.label} series")
    command = [ref, case.test, ",".join(map(str, sizes)), "--iterations",
               ",".join(str(counts[s][0]) for s in sizes), "--warmup", ",".join(str(counts[s][1]) for s in sizes)]
    if case.bandwidth:
        command += ["--window", str(WINDOW)]
    if case.sync:
        command += ["--sync", case.sync]
    if steps:
        command += ["--steps", str(steps)]
    column = 3 if case.family == "nbc" else 1
    lines = [line.split() for line in mpiexec(ranks, command, work).splitlines() if line.strip()]
    return {int(w[0]): (float(w[column]), float(w[3]) if case.family == "collectives" else None) for w in lines}


# ---- the pairs ----

def one_family(index: int, ranks: int, mine: list[Case], state: dict, args, ref: str, work: str) -> None:
    """One family's part of pair `index`: hpcbench then C (even pairs) or C
    then hpcbench (odd ones, with the previous pair's counts)."""
    order = ("h", "c") if index % 2 == 0 or not state["counts"] else ("c", "h")
    for side in order:
        if side == "h":
            got = run_hpcbench(mine[0].family, mine, ranks, args, work)
            for c in mine:
                figures = hpcbench_figures(c, got.get((c.test, c.sync), {}))
                state["h"].setdefault((c, ranks), []).append(figures)
                state["counts"][(c, ranks)] = {s: f[2:] for s, f in figures.items()}
        else:
            for c in mine:
                state["c"].setdefault((c, ranks), []).append(
                    run_plain(c, ranks, state["counts"][(c, ranks)], ref, work, args.peer_steps))


def one_pair(index: int, ranks: int, cases: list[Case], state: dict, args, ref: str, work: str) -> None:
    """Pair `index` at `ranks`, family by family; a family whose run fails
    is left out of the remaining pairs at these ranks (state["failed"])."""
    for family in dict.fromkeys(c.family for c in cases):
        if (family, ranks) in state["failed"]:
            continue
        mine = [c for c in cases if c.family == family]
        try:
            one_family(index, ranks, mine, state, args, ref, work)
        except RunFailed as e:
            state["failed"][(family, ranks)] = f"pair {index + 1}: {e}"
            for c in mine:   # an unfinished pair would misalign the two sides' lists
                for side in ("h", "c"):
                    del state[side].get((c, ranks), [])[index:]


def ratios(hpc_runs: list[dict], c_runs: list[dict], size: int, which: int = 0) -> np.ndarray:
    """Per pair, hpcbench's figure over the C program's: `which` 0 the
    statistics of the table, 1 the medians (collectives)."""
    return np.array([h[size][which] / c[size][which] for h, c in zip(hpc_runs, c_runs)
                     if size in h and size in c and c[size][which] and h[size][which] is not None])


def table_row(case: Case, ranks: int, size: int, hpc: list[dict], plain: list[dict]) -> dict | None:
    """One row: medians over the pairs, the ratio's median and range, the
    verdict; the collectives' median ratio (hpcbench's median over the C
    program's median of the slowest rank per call)."""
    r, median_r = ratios(hpc, plain, size), ratios(hpc, plain, size, which=1)
    if not len(r):
        return None
    medians = [h[size][1] for h in hpc if size in h and h[size][1] is not None]
    ratio = float(np.median(r))
    return {"test": case.label, "ranks": ranks, "size": size,
            "statistic": "t_pure" if case.family == "nbc" else "osu",
            "hpcbench": float(np.median([h[size][0] for h in hpc if size in h])),
            "hpcbench_median": float(np.median(medians)) if medians else None,
            "plain_c": float(np.median([c[size][0] for c in plain if size in c])),
            "median_ratio": float(np.median(median_r)) if len(median_r) else None,
            "unit": "MB/s" if case.bandwidth else "us",
            "ratio": ratio, "ratio_min": float(r.min()), "ratio_max": float(r.max()), "pairs": len(r),
            "target": f">= {BANDWIDTH_TARGET:.2f}" if case.bandwidth else f"<= {LATENCY_TARGET:.2f}",
            "met": ratio >= BANDWIDTH_TARGET if case.bandwidth else ratio <= LATENCY_TARGET}


def print_table(cases: list[Case], rank_counts: list[int], state: dict) -> list[dict]:
    """The table (medians over the pairs); its rows, for --json."""
    print(f"\n{'test':<20}{'ranks':>5}{'size':>9}{'stat':>8}{'hpcbench':>12}{'(median)':>11}{'plain C':>12}"
          f"{'ratio':>8}  {'min..max':<12}{'med.ratio':>9}  verdict")
    rows = []
    for ranks in rank_counts:
        for case in cases:
            for size in SIZES[ranks]:
                row = table_row(case, ranks, size, state["h"].get((case, ranks), []),
                                state["c"].get((case, ranks), []))
                if row is None:
                    continue
                rows.append(row)
                median = f"{row['hpcbench_median']:>11.3f}" if row["hpcbench_median"] is not None else f"{'-':>11}"
                span = f"{row['ratio_min']:.2f}..{row['ratio_max']:.2f}"
                median_ratio = f"{row['median_ratio']:>9.3f}" if row["median_ratio"] is not None else f"{'-':>9}"
                print(f"{row['test']:<20}{ranks:>5}{size:>9}{row['statistic']:>8}{row['hpcbench']:>12.3f}{median}"
                      f"{row['plain_c']:>12.3f}{row['ratio']:>8.3f}  {span:<12}{median_ratio}  "
                      f"{'met' if row['met'] else 'NOT met'} ({row['unit']}, target {row['target']})")
    return rows


def compare(args, ref: str, work: str) -> dict:
    chosen = set(args.tests.split(",")) if args.tests else {c.test for c in CASES}
    cases = [c for c in CASES if c.test in chosen]
    rank_counts = [2, 4] if args.ranks_4 else [2]
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (a busy machine spreads the "
          "ratios: other processes preempt the ranks)", flush=True)
    state: dict = {"h": {}, "c": {}, "counts": {}, "failed": {}}
    for ranks in rank_counts:
        state["counts"] = {}
        for index in range(args.pairs):
            one_pair(index, ranks, cases, state, args, ref, work)
            print(f"pair {index + 1} of {args.pairs} at {ranks} ranks done", flush=True)
    rows = print_table(cases, rank_counts, state)
    print(f"load average after: {os.getloadavg()[0]:.2f}; med.ratio: collectives, hpcbench's median over the plain "
          "C loop's median call of the slowest rank (robust to preempted calls)")
    for (family, ranks), message in state["failed"].items():
        print(f"{SCRIPT}: {family} at {ranks} ranks left out after {message}", file=sys.stderr)
    return {"rows": rows, "failed": [f"{f} at {r} ranks: {m}" for (f, r), m in state["failed"].items()]}


# ---- --buffers ----

#: The plain C program's buffer kinds: hpcbench's (page-aligned, huge pages
#: from 2 MiB on), page-aligned on small pages, plain malloc.
BUFFER_KINDS = {"page+THP": [], "page": ["--no-thp"], "malloc": ["--malloc"]}


def buffer_runs(args, ref: str, work: str) -> dict:
    """{(algorithm, kind): [(OSU average, median call) per round]} (us):
    every variant once per round, in reverse order in odd rounds."""
    variants = [(alg, kind) for alg in [0, *ALGORITHMS] for kind in BUFFER_KINDS]
    got: dict = {v: [] for v in variants}
    for index in range(args.pairs):
        for alg, kind in (variants if index % 2 == 0 else variants[::-1]):
            mca = ("--mca", "coll_tuned_use_dynamic_rules", "1", "--mca", "coll_tuned_allreduce_algorithm",
                   str(alg)) if alg else ()
            command = [ref, "allreduce", str(BUFFER_BYTES), "--iterations", str(args.buffer_iterations),
                       *BUFFER_KINDS[kind]]
            words = mpiexec(2, command, work, mca=mca).split()
            got[(alg, kind)].append((float(words[1]), float(words[3])))
        print(f"round {index + 1} of {args.pairs} done", flush=True)
    return got


def buffers(args, ref: str, work: str) -> dict:
    """The 4 MiB MPI_Allreduce at 2 ranks: the buffer kinds, Open MPI's
    choice against each algorithm pinned; medians and ranges over rounds,
    and each kind's time over hpcbench's buffers' in the same round."""
    got = buffer_runs(args, ref, work)
    print(f"\nMPI_Allreduce of 4 MiB (floats) at 2 ranks, {args.buffer_iterations} calls per run, {args.pairs} "
          "run(s) each; us: the median over runs [min..max]; x page+THP: the median over rounds of the "
          "run's figure over page+THP's of the same algorithm in the same round (OSU average, median call)")
    print(f"{'algorithm':<24}{'buffers':<10}{'OSU average':>28}{'median call':>28}{'x page+THP':>16}")
    rows = []
    for (alg, kind), runs in got.items():
        osu, median = np.array([r[0] for r in runs]), np.array([r[1] for r in runs])
        base = np.array(got[(alg, "page+THP")])
        name = f"{alg} {ALGORITHMS[alg]}" if alg else "Open MPI's choice"
        print(f"{name:<24}{kind:<10}{np.median(osu):>10.1f} [{osu.min():>7.1f}..{osu.max():>7.1f}]"
              f"{np.median(median):>10.1f} [{median.min():>7.1f}..{median.max():>7.1f}]"
              f"{np.median(osu / base[:, 0]):>10.2f}{np.median(median / base[:, 1]):>6.2f}")
        rows.append({"algorithm": alg, "buffers": kind, "osu_us": osu.tolist(), "median_us": median.tolist()})
    return {"buffers": rows}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=10, help="alternating pairs of runs (default 10)")
    ap.add_argument("--quick", action="store_true", help="2 pairs (a smoke test, not a figure)")
    ap.add_argument("--ranks-4", action=argparse.BooleanOptionalAction, default=True,
                    help="also compare at 4 ranks, 8 B and 64 KiB (default: yes)")
    ap.add_argument("--tests", help="only these tests, comma-separated, from: "
                                    + ", ".join(dict.fromkeys(c.test for c in CASES)))
    ap.add_argument("--budget", type=float, default=0.03, help="hpcbench's --comm-budget, seconds per test and "
                                                               "size (default 0.03)")
    ap.add_argument("--iterations", type=int, help="hpcbench's --comm-iterations instead of --budget")
    ap.add_argument("--buffers", action="store_true", help="the 4 MiB allreduce's buffers and algorithms instead")
    ap.add_argument("--buffer-iterations", type=int, default=50, help="calls per run of --buffers (default 50)")
    ap.add_argument("--ref", metavar="PATH", help="a built benchmarks/peers/micro_ref.c (default: build it with "
                                                  "$MPICC)")
    ap.add_argument("--peer-steps", type=int, default=0, metavar="K",
                    help="the C program's rank 1 first sends rank 0 K one-byte messages (micro_ref --steps; "
                         "default 0): the one-directional traffic a run has before its loops")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    if args.quick:
        args.pairs = 2
    known = {c.test for c in CASES}
    wrong = [t for t in (args.tests or "").split(",") if args.tests is not None and t not in known]
    for bad, message in ((args.pairs < 1, f"--pairs must be at least 1, got {args.pairs}"),
                         (bool(wrong), f"--tests: {wrong[0] if wrong else ''!r} is not one of "
                                       f"{', '.join(dict.fromkeys(c.test for c in CASES))}"),
                         (not 0 < args.budget <= 60, f"--budget must be in (0, 60] seconds, got {args.budget}"),
                         (args.iterations is not None and args.iterations < 1,
                          f"--iterations must be at least 1, got {args.iterations}"),
                         (not 0 <= args.peer_steps <= 64, f"--peer-steps must be in 0..64, got {args.peer_steps}"),
                         (args.buffer_iterations < 1,
                          f"--buffer-iterations must be at least 1, got {args.buffer_iterations}")):
        if bad:
            fail(SCRIPT, message)
    return args


def main() -> int:
    args = parse_args()
    tool("mpiexec", SCRIPT, "install Open MPI (Debian: openmpi-bin)")
    work = tempfile.mkdtemp()
    try:
        ref = peer_binary("micro_ref", args.ref, work, SCRIPT)
        figures = buffers(args, ref, work) if args.buffers else compare(args, ref, work)
    except RunFailed as e:   # --buffers: any failed run
        print(f"{SCRIPT}: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 1 if figures.get("failed") else 0


if __name__ == "__main__":
    sys.exit(main())
