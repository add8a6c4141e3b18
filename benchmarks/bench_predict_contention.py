"""Measured contention for a node's network access (Servet 3.0's ratNC) in
the run-time prediction, checked on the emulated cluster at 2 ranks per
node (Hammond et al. 2009, section 6.3.2: Figure 8's measured degradation
priced into the model, docs/predict.md "Contention for the network access").

    sudo python benchmarks/bench_predict_contention.py [--rate 100] [--burst 1600] [--runs 3] [--json out.json]

On tools/netcluster.py's emulated cluster of 4 nodes (a ring of --rate
Mbit/s links whose token buckets hold --burst bytes, so every face is
serialised at the link's rate):

1. ratNC: `run network-access` with 8 ranks, 2 per node (the reference is
   one process on each of the 4 nodes, then 2 per node on 2 nodes, every
   process sending to the next node), --net-size messages (default 1 MiB),
   on links of the same rate whose token buckets hold --access-burst bytes
   (default netcluster's 256 KiB). Why not the runs' one-packet bucket:
   there two large TCP transfers lose far more than their share to the
   shaper (ratNC[2] 2.1 and 2.6 in two runs at 128 KiB, 2.3 at 1 MiB, 3.0
   at 4 MiB), an artefact of tc's shaping that the sweep's faces (a few
   KiB, one per tile, two ranks' faces serialised one after the other) do
   not meet; with the 256 KiB bucket 1 MiB gave 2.03 and 2.12, near the link's share of 2.
   `--access-burst 1600` measures it on the runs' own links instead;
2. the network profile: `run comm` with 4 ranks, 2 on each of 2 nodes (so
   it has both the off-node class and the class of two unbound ranks of
   one node);
3. the real wavefront (hpcbench's kernel, `predict wavefront --measure`)
   with 4 ranks, 2 on each of 2 nodes, each configuration --runs times;
   its model with the measured ratNC (`--access-results`), and the same
   model without it (`--what-if contention=none`, the same W_g, the same
   job's placement). Faces between the two nodes go from both ranks of a
   node at once, so they share the node's link: the model without ratNC
   prices each as if alone.

Prints every run, then per configuration the medians of the runs:
measured, predicted with ratNC and without, and predicted / measured
(target with ratNC: within 15 %). The cluster is brought down at the end,
whatever happens. Nothing is asserted: a measurement on a shared machine.

Peer: the real wavefront kernel, run by the installed hpcbench under Open
MPI's mpiexec (on PATH); nothing is built. Needs root and the repository's
tools/netcluster.py beside this benchmarks/ folder. Bad arguments, a
missing mpiexec or no root: one line and exit status 2.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from build_peers import child_env, fail, from_clone, tool

SCRIPT = "bench_predict_contention.py"
ONE_PACKET = 1600       # netcluster's MIN_BURST, here so that --help does not load it
NODES = 4               # ratNC[2] needs 2 x 2 nodes for its reference
#: (grid, procs, H_tile, work): 2 x 2 processes, a row per node (node fill):
#: the north-south faces cross between the nodes, two ranks of each at once.
CONFIGS = [("64x64x64", "2x2", 1, 1), ("64x64x32", "2x2", 2, 1), ("96x96x32", "2x2", 1, 2)]


def _run(cmd: list, work_dir: str, timeout: int = 900) -> str:
    # Started in the work directory: a clone's hpcbench/ there would shadow the installed package.
    proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env(OMPI_MCA_rmaps_base_oversubscribe="1"),
                          timeout=timeout, cwd=work_dir)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[-14:])}: {proc.stderr.strip()[-1200:]}")
    return proc.stdout


def _launch(netcluster, work_dir: str, n: int, by: str) -> list:
    """mpiexec of n ranks across the emulated nodes, unbound (every node
    sees the whole machine: bound, each rank would take CPU 0), placed `by`
    node (one rank a node in turn) or slot (2 on the first node, then 2 on
    the next)."""
    return ["mpiexec", *netcluster.mpiexec_args(2, work_dir), "--map-by", by, "--bind-to", "none", "-n", str(n)]


def _predict(grid: str, procs: str, h_tile: int, work: int, comm: str, access: str, out: str) -> list:
    return [sys.executable, "-m", "hpcbench", "predict", "wavefront", "--results", comm, "--access-results", access,
            "--grid", grid, "--procs", procs, "--h-tile", str(h_tile), "--work", str(work), "-o", out]


def _measure(netcluster, work_dir: str, comm: str, access: str, config: tuple, run: int) -> dict:
    """One run of a configuration: measured and predicted with ratNC, then
    the same prediction (W_g, placement) without it."""
    grid, procs, h_tile, work = config
    with_out = os.path.join(work_dir, f"with-{run}.json")
    without_out = os.path.join(work_dir, f"without-{run}.json")
    _run(_launch(netcluster, work_dir, 4, "slot") + _predict(grid, procs, h_tile, work, comm, access, with_out)
         + ["--measure", "--simulate", "--iterations", "5", "--force"], work_dir)
    with open(with_out) as f:
        shared = json.load(f)
    wg = shared["params"]["wg_s"]
    _run(_launch(netcluster, work_dir, 4, "slot") + _predict(grid, procs, h_tile, work, comm, access, without_out)
         + ["--wg", repr(wg), "--what-if", "contention=none", "--force"], work_dir)
    with open(without_out) as f:
        alone = json.load(f)
    return {"grid": grid, "procs": procs, "h_tile": h_tile, "work": work, "wg_ns": wg * 1e9,
            "measured_s": shared["measured"]["median_s"], "with_ratnc_s": shared["model"]["time_s"],
            "simulation_s": shared["simulation"]["total_s"], "without_ratnc_s": alone["model"]["time_s"]}


def _format(r: dict) -> str:
    m = r["measured_s"]
    return (f"{r['grid']:>9} {r['procs']} H{r['h_tile']} w{r['work']}  W_g {r['wg_ns']:6.1f} ns  "
            f"measured {m * 1e3:8.2f} ms  with ratNC {r['with_ratnc_s'] * 1e3:8.2f} ms "
            f"(x{r['with_ratnc_s'] / m:.3f})  simulation {r['simulation_s'] * 1e3:8.2f} ms "
            f"(x{r['simulation_s'] / m:.3f})  without {r['without_ratnc_s'] * 1e3:8.2f} ms "
            f"(x{r['without_ratnc_s'] / m:.3f})")


def pooled(rows: list) -> list:
    """One row per configuration: the medians of its runs."""
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["grid"], r["procs"], r["h_tile"], r["work"]), []).append(r)
    out = []
    for same in groups.values():
        row = dict(same[0], runs=len(same))
        for key in ("wg_ns", "measured_s", "with_ratnc_s", "simulation_s", "without_ratnc_s"):
            row[key] = statistics.median(r[key] for r in same)
        out.append(row)
    return out


def cluster(netcluster, work_dir: str, args: argparse.Namespace) -> tuple:
    """ratNC, the profile and the runs on the emulated cluster, which is
    down again when this returns or raises."""
    access = os.path.join(work_dir, "access.json")
    netcluster.up(NODES, args.rate, args.access_burst)
    try:
        _run(_launch(netcluster, work_dir, 2 * NODES, "node") + [
            sys.executable, "-m", "hpcbench", "run", "network-access", "-q", "--net-size", args.net_size,
            "-o", access], work_dir)
    finally:
        netcluster.down()
    import hpcbench
    ratnc = hpcbench.load(access).network_access_ratios
    print(f"ratNC ({args.net_size} messages, {args.access_burst}-byte buckets): "
          + ", ".join(f"[{k}] {v:.3f}" for k, v in sorted(ratnc.items())), flush=True)
    netcluster.up(NODES, args.rate, args.burst)
    try:
        comm = os.path.join(work_dir, "comm.json")
        # The faces are a few KiB: the profile need not go further than 64 KiB.
        _run(_launch(netcluster, work_dir, 4, "slot") + [
            sys.executable, "-m", "hpcbench", "run", "comm", "-q", "--comm-max", "64KiB", "-o", comm], work_dir)
        rows = []
        for run in range(args.runs):
            for config in CONFIGS:
                rows.append(_measure(netcluster, work_dir, comm, access, config, run))
                print(_format(rows[-1]), flush=True)
        return ratnc, rows
    finally:
        netcluster.down()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=100, help="emulated links, Mbit/s (default 100)")
    parser.add_argument("--burst", type=int, default=ONE_PACKET,
                        help=f"emulated links' token bucket, bytes (default {ONE_PACKET}: one packet)")
    parser.add_argument("--net-size", default="1MiB", help="network-access message size (default 1MiB)")
    parser.add_argument("--access-burst", type=int, default=None,
                        help="token bucket of the links ratNC is measured on, bytes (default netcluster's 256 KiB; "
                             "see the docstring)")
    parser.add_argument("--runs", type=int, default=3,
                        help="runs of every configuration; the table gives their medians (default 3)")
    parser.add_argument("--json", default=None, help="write the pooled rows here")
    args = parser.parse_args()
    if args.runs < 1:
        fail(SCRIPT, f"--runs must be at least 1, got {args.runs}")
    from hpcbench._argtypes import size_arg
    try:
        size_arg(args.net_size)
    except (ValueError, argparse.ArgumentTypeError) as e:
        fail(SCRIPT, f"--net-size: {e}")
    if os.geteuid() != 0:
        fail(SCRIPT, "the emulated cluster needs root (network namespaces and tc)")
    tool("mpiexec", SCRIPT, "install Open MPI (Debian: openmpi-bin)")
    netcluster = from_clone("tools/netcluster.py", "netcluster", SCRIPT)
    if args.access_burst is None:
        args.access_burst = netcluster.BURST
    try:
        rate = netcluster.check_rate(args.rate)
        netcluster.check_burst(args.burst, rate)
        netcluster.check_burst(args.access_burst, rate)
    except ValueError as e:
        fail(SCRIPT, str(e))
    why = netcluster.available()
    if why:
        fail(SCRIPT, f"the emulated cluster is not available: {why}")
    with tempfile.TemporaryDirectory(prefix="hpcb-contention-") as work_dir:
        os.chmod(work_dir, 0o755)
        try:
            ratnc, rows = cluster(netcluster, work_dir, args)
        except netcluster.NetclusterError as e:     # up refused (pieces of another cluster) or failed
            fail(SCRIPT, f"emulated cluster: {e}")
    table = pooled(rows)
    print(f"medians of {args.runs} run(s), 2 ranks per node, ratNC[2] {ratnc.get(2, float('nan')):.3f}, "
          f"links {args.rate:g} Mbit/s, buckets of {args.burst} bytes:")
    for r in table:
        print(_format(r))
    worst = max(abs(r["with_ratnc_s"] / r["measured_s"] - 1) for r in table)
    print(f"predicted / measured with ratNC: worst {worst * 100:.1f} % off (target within 15 %); without: "
          + ", ".join(f"x{r['without_ratnc_s'] / r['measured_s']:.3f}" for r in table))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"ratnc": ratnc, "rows": table}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
