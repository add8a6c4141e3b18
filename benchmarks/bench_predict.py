"""Figures for the run-time prediction (Hammond et al. 2009): the model and
the simulation against the real wavefront kernel, configuration by
configuration.

    python benchmarks/bench_predict.py [--local-only] [--rate 100] [--burst 1600] [--runs 3] [--json out.json]

1. This machine: `mpiexec -n 2 python -m hpcbench run comm` gives the
   network profile (one rank per core, bound); then for every local
   configuration `hpcbench predict wavefront --results comm.json --measure
   --simulate` runs the real kernel under mpiexec with M*N ranks (bound to
   cores, at most one per core) and prints measured, model and simulation.
2. The emulated cluster (root: tools/netcluster.py, a ring of --rate Mbit/s
   links, so the network matters): comm measured across 2 nodes, one rank
   each, then the configurations with one rank per node (1x2, 2x1). The
   nodes are network namespaces of this machine, so one rank per node is
   one rank per core: more ranks would share cores (docs/predict.md). The
   links' token buckets hold --burst bytes (default 1600: one packet), so
   that every face is serialised at the link's rate as on a real link; the
   netcluster default of 256 KiB would let a sweep's faces through at the
   veth's own speed.

Prints one row per configuration and the mean absolute error and the worst
error of the model and of the simulation (targets: mean at most 10 %, none
beyond 20 %). Nothing is asserted: this is a measurement, on a shared
machine; run it quiet.

Peer: the real wavefront kernel, run by `hpcbench predict wavefront
--measure` of the installed hpcbench under mpiexec (Open MPI's, on PATH):
nothing is built. The cluster part uses the repository's
tools/netcluster.py, found beside this benchmarks/ folder (clone the whole
repository), and needs root; --local-only skips it. A missing mpiexec is
one line and exit status 2.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from build_peers import child_env, fail, from_clone, tool

SCRIPT = "bench_predict.py"
#: netcluster's MIN_BURST (one 1500-byte packet and its headers), here so that
#: --help and --local-only do not load tools/netcluster.py.
ONE_PACKET = 1600

#: (grid, procs, H_tile, work): on this machine, at most one rank per core.
#: Faces stay at or below Open MPI's shared-memory eager limit (4 KiB): a
#: larger face is sent by rendezvous, the sender waiting for its receiver,
#: which Table 2 does not model (docs/predict.md).
LOCAL = [("64x64x64", "1x1", 1, 1), ("48x48x96", "1x1", 2, 4),
         ("64x64x64", "1x2", 1, 1), ("64x64x64", "2x1", 1, 1),
         ("128x64x32", "1x2", 1, 4), ("64x128x32", "2x1", 1, 4),
         ("32x32x128", "1x2", 2, 2), ("80x80x64", "2x1", 1, 2)]
#: On the emulated cluster (TCP: eager up to 64 KiB), one rank per node and
#: per core (the nodes are namespaces of this 2-core machine): (grid, procs,
#: H_tile, work, nodes).
CLUSTER = [("64x64x64", "1x2", 1, 4, 2), ("64x64x64", "2x1", 2, 4, 2), ("96x96x32", "1x2", 1, 8, 2),
           ("48x96x48", "2x1", 1, 2, 2), ("128x128x16", "1x2", 4, 1, 2), ("80x80x32", "1x2", 2, 2, 2),
           ("64x128x32", "2x1", 1, 4, 2), ("32x32x256", "1x2", 4, 4, 2)]


def _run(cmd: list, work_dir: str, timeout: int = 900) -> str:
    # Started in the work directory: a clone's hpcbench/ in the current one would shadow the installed package.
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(OMPI_MCA_rmaps_base_oversubscribe="1"),
                          timeout=timeout, cwd=work_dir)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:12])}...: {proc.stderr.strip()[-1200:]}")
    return proc.stdout


def _local_mpiexec(n: int) -> list:
    return ["mpiexec", "-n", str(n), "--bind-to", "core", "--map-by", "core"]


def _predict_args(results: str, grid: str, procs: str, h_tile: int, work: int, out: str) -> list:
    return [sys.executable, "-m", "hpcbench", "predict", "wavefront", "--results", results, "--grid", grid,
            "--procs", procs, "--h-tile", str(h_tile), "--work", str(work), "--measure", "--simulate",
            "--iterations", "5", "-o", out]


def _row(where: str, grid: str, procs: str, h_tile: int, work: int, out: str) -> dict:
    with open(out) as f:
        data = json.load(f)
    measured = data["measured"]["median_s"]
    return {"where": where, "grid": grid, "procs": procs, "h_tile": h_tile, "work": work,
            "wg_ns": data["params"]["wg_s"] * 1e9, "measured_s": measured, "model_s": data["model"]["time_s"],
            "simulation_s": data["simulation"]["total_s"], "model_error": data["measured"]["model_error"],
            "simulation_error": data["measured"]["simulation_error"]}


def local(work_dir: str, runs: int) -> list:
    comm = os.path.join(work_dir, "comm-local.json")
    _run(_local_mpiexec(2) + [sys.executable, "-m", "hpcbench", "run", "comm", "-q", "-o", comm], work_dir)
    rows = []
    for _ in range(runs):
        for grid, procs, h_tile, work in LOCAL:
            m, n = (int(v) for v in procs.split("x"))
            out = os.path.join(work_dir, f"local-{grid}-{procs}-{h_tile}-{work}.json")
            _run(_local_mpiexec(m * n) + _predict_args(comm, grid, procs, h_tile, work, out), work_dir)
            rows.append(_row("this machine", grid, procs, h_tile, work, out))
            print(_format(rows[-1]), flush=True)
    return rows


def cluster(netcluster, work_dir: str, rate: float, burst: int, runs: int) -> list:
    rows = []
    for nodes in sorted({c[4] for c in CLUSTER}):
        netcluster.up(nodes, rate, burst)
        try:
            # Every emulated node sees the whole machine: bound by node, each
            # rank would take its node's first core, the same core for all.
            # Unbound, the two ranks get a core each from the kernel.
            launch = ["mpiexec", *netcluster.mpiexec_args(1, work_dir), "--map-by", "node", "--bind-to", "none"]
            comm = os.path.join(work_dir, f"comm-cluster{nodes}.json")
            # The faces are at most tens of KiB: the profile need not go further.
            _run(launch + ["-n", "2", sys.executable, "-m", "hpcbench", "run", "comm", "-q", "--comm-max", "256KiB",
                           "-o", comm], work_dir)
            for _ in range(runs):
                for grid, procs, h_tile, work, want in CLUSTER:
                    if want != nodes:
                        continue
                    m, n = (int(v) for v in procs.split("x"))
                    out = os.path.join(work_dir, f"cluster-{grid}-{procs}-{h_tile}-{work}.json")
                    _run(launch + ["-n", str(m * n)] + _predict_args(comm, grid, procs, h_tile, work, out), work_dir)
                    rows.append(_row(f"cluster, {nodes} nodes", grid, procs, h_tile, work, out))
                    print(_format(rows[-1]), flush=True)
        finally:
            netcluster.down()
    return rows


def _format(r: dict) -> str:
    return (f"{r['where']:<20} {r['grid']:>10} {r['procs']:>5} H{r['h_tile']} w{r['work']:<3} "
            f"W_g {r['wg_ns']:7.1f} ns  measured {r['measured_s'] * 1e3:9.2f} ms  model {r['model_s'] * 1e3:9.2f} ms "
            f"({r['model_error'] * 100:+6.1f} %)  simulation {r['simulation_s'] * 1e3:9.2f} ms "
            f"({r['simulation_error'] * 100:+6.1f} %)")


def pooled(rows: list) -> list:
    """One row per configuration: the medians of its runs (measured, model,
    simulation), the errors recomputed from them."""
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["where"], r["grid"], r["procs"], r["h_tile"], r["work"]), []).append(r)
    out = []
    for same in groups.values():
        row = dict(same[0], runs=len(same))
        for key in ("wg_ns", "measured_s", "model_s", "simulation_s"):
            row[key] = statistics.median(r[key] for r in same)
        row["model_error"] = (row["model_s"] - row["measured_s"]) / row["measured_s"]
        row["simulation_error"] = (row["simulation_s"] - row["measured_s"]) / row["measured_s"]
        out.append(row)
    return out


def summary(rows: list) -> list:
    lines = []
    for key in ("model_error", "simulation_error"):
        errors = [abs(r[key]) for r in rows]
        lines.append(f"{key.split('_')[0]:<10}: mean absolute error {statistics.mean(errors) * 100:.1f} % "
                     f"(target <= 10 %), worst {max(errors) * 100:.1f} % (target <= 20 %) over {len(rows)} "
                     "configurations")
    agree = [abs(r["simulation_s"] / r["model_s"] - 1) for r in rows]
    lines.append(f"simulation vs model: mean {statistics.mean(agree) * 100:.1f} %, worst {max(agree) * 100:.1f} % "
                 "(target within 5 %)")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--local-only", action="store_true", help="skip the emulated cluster")
    parser.add_argument("--rate", type=float, default=100, help="emulated links, Mbit/s (default 100)")
    parser.add_argument("--burst", type=int, default=ONE_PACKET,
                        help=f"emulated links' token bucket, bytes (default {ONE_PACKET}: one packet)")
    parser.add_argument("--runs", type=int, default=3,
                        help="runs of every configuration; the table gives their medians (default 3)")
    parser.add_argument("--json", default=None, help="write every row here")
    args = parser.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    tool("mpiexec", SCRIPT, "install Open MPI (Debian: openmpi-bin)")
    rows = []
    with tempfile.TemporaryDirectory(prefix="hpcb-predict-") as work_dir:
        os.chmod(work_dir, 0o755)
        rows += local(work_dir, args.runs)
        if not args.local_only:
            netcluster = from_clone("tools/netcluster.py", "netcluster", SCRIPT)
            why = "needs root" if os.geteuid() != 0 else netcluster.available()
            if why:
                print(f"emulated cluster skipped: {why}")
            else:
                rows += cluster(netcluster, work_dir, args.rate, args.burst, args.runs)
    table = pooled(rows)
    if args.runs > 1:
        print(f"medians of {args.runs} runs:")
        for r in table:
            print(_format(r))
    for where in dict.fromkeys(r["where"] for r in table):
        print(f"{where}:")
        for line in summary([r for r in table if r["where"] == where]):
            print("  " + line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
