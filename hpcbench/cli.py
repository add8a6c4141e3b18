"""Command line: python -m hpcbench {run,list,show}.

A thin layer over the API. Usage errors print one line and exit 2, on one
rank only; set HPCBENCH_DEBUG=1 to see tracebacks of unexpected errors.
"""
from __future__ import annotations

import argparse
import os
import sys

from . import __version__
from ._validate import parse_size
from .suite import REGISTRY, default_suite


class UsageError(Exception):
    """Bad input: one line for the user, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message} (see --help)")


def _size(text):
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hpcbench", description="Characterise HPC nodes and clusters by benchmarking them.")
    parser.add_argument("--version", action="version", version=f"hpcbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    run = sub.add_parser("run", help="run benchmarks (default: the default suite) and write a results file",
                         description="Run benchmarks; node-local ones run once per node under mpiexec.")
    run.add_argument("benchmarks", nargs="*", metavar="BENCHMARK", help="names from `hpcbench list`")
    run.add_argument("-o", "--output", default="hpcbench-results.json", help="results file (default: %(default)s)")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    cache = run.add_argument_group("cache benchmark")
    cache.add_argument("--cache-min", type=_size, default=1024, metavar="SIZE", help="smallest array (default 1KiB)")
    cache.add_argument("--cache-max", type=_size, default=None, metavar="SIZE",
                       help="largest array (default: about twice the largest cache hwloc reports)")
    cache.add_argument("--cache-stride", type=_size, default=1024, metavar="SIZE", help="distance between loads (default 1KiB)")
    cache.add_argument("--cache-order", choices=["auto", "sequential", "random", "windowed"], default="auto",
                       help="visiting order (default auto: windowed where a prefetcher follows the stride)")
    cache.add_argument("--cache-pages", choices=["normal", "huge", "system"], default="normal",
                       help="page kind of the arrays (default normal)")
    cache.add_argument("--cache-passes", type=int, default=5, metavar="N", help="sweeps over all sizes (default 5)")
    cache.add_argument("--cache-samples", type=int, default=3, metavar="N", help="timings per size per pass (default 3)")
    cache.add_argument("--cache-pu", type=int, default=None, metavar="PU", help="PU OS index to bind to")
    cache.add_argument("--no-cache-refine", action="store_true", help="do not add sizes inside detected rises")

    node = run.add_argument_group("shared-caches and memory benchmarks (pairs of cores)")
    node.add_argument("--pairs", choices=["auto", "all"], default="auto",
                      help="auto (default): one pair per hwloc relation plus a random sample; all: every pair")
    node.add_argument("--cores", type=_pu_list, default=None, metavar="LIST",
                      help="PUs to test, e.g. 0-3,8 (default: every PU this process may use)")
    node.add_argument("--pair-sample", type=int, default=8, metavar="N",
                      help="extra random pairs in auto mode (default 8)")
    node.add_argument("--share-threshold", type=float, default=None, metavar="X",
                      help="co-run ratio above which two cores share a cache (default: 2, or less where the "
                           "single-core curve shows a shared cache cannot double the time; see docs/node.md)")
    node.add_argument("--memory-size", type=_size, default=None, metavar="SIZE",
                      help="bytes of each copy array (default: 4 x the largest cache, at least 64MiB)")
    node.add_argument("--memory-tolerance", type=float, default=0.10, metavar="F",
                      help="relative bandwidth difference that counts as an overhead or a new level (default 0.10)")
    node.add_argument("--memory-reps", type=int, default=10, metavar="N", help="copies per measurement (default 10)")
    node.add_argument("--rounds", type=int, default=3, metavar="N",
                      help="times every pair is measured, in a new order each time (default 3)")

    mbsp = run.add_argument_group("multibsp benchmark")
    mbsp.add_argument("--mbsp-hmax", type=int, default=256, metavar="H",
                      help="largest h of the h-communications (default 256, as the paper)")
    mbsp.add_argument("--mbsp-niters", type=int, default=1000, metavar="N",
                      help="supersteps per timed block (default 1000; 10 blocks per h)")
    mbsp.add_argument("--mbsp-max-vector", type=int, default=24, metavar="E",
                      help="largest inner-product vector: 2^E doubles (default 24)")

    comm = run.add_argument_group("comm benchmark (every rank takes part; needs mpiexec -n 2 or more)")
    comm.add_argument("--comm-max", type=_size, default=4 << 20, metavar="SIZE",
                      help="largest message (default 4MiB); sizes are 0 and powers of two up to it")
    comm.add_argument("--comm-cap", type=float, default=0.2, metavar="S",
                      help="time cap per message size in seconds (default 0.2)")
    comm.add_argument("--comm-rse", type=float, default=0.01, metavar="F",
                      help="stop repeating once the median's relative standard error is below F (default 0.01)")
    comm.add_argument("--comm-probe", type=_size, default=None, metavar="SIZE",
                      help="message size for the all-pairs latency of Servet's layers (default: the L1 size)")
    comm.add_argument("--comm-layer-tolerance", type=float, default=0.2, metavar="F",
                      help="relative latency gap that separates two layers (default 0.2)")

    net = run.add_argument_group("distance and network-access benchmarks (jobs on several nodes)")
    net.add_argument("--net-size", type=_size, default=32 << 20, metavar="SIZE",
                     help="message size (default 32MiB, as Servet 3.0)")
    net.add_argument("--net-nodes", type=int, default=None, metavar="N",
                     help="nodes the distance benchmark uses (default: all nodes of the job)")
    net.add_argument("--net-cap", type=float, default=2.0, metavar="S",
                     help="time cap per distance or processes-per-node step, seconds (default 2)")

    sub.add_parser("list", help="list the benchmarks", description="List the benchmarks and the default suite.")
    show = sub.add_parser("show", help="print a summary of a results file", description="Summarise a results file.")
    show.add_argument("results", metavar="RESULTS.json")

    degr = sub.add_parser("degr", help="write the network degradation file (ratDist, ratNC) of a results file",
                          description="Write the text file the C API (hpcb_load_degr_info) reads.")
    degr.add_argument("results", metavar="RESULTS.json")
    degr.add_argument("-o", "--output", default=None, help="degradation file (default: RESULTS.degr)")

    config = sub.add_parser("config", help="compiler flags for the C degradation API (libhpcbdegr)",
                            description="Print the flags to compile and link a C program against libhpcbdegr.")
    config.add_argument("--cflags", action="store_true", help="print the include flags")
    config.add_argument("--libs", action="store_true", help="print the link flags")

    advise = sub.add_parser("advise", help="turn measured figures into decisions",
                            description="Advice built on measured figures.")
    topics = advise.add_subparsers(dest="topic", metavar="TOPIC", parser_class=_Parser)
    grid = topics.add_parser("grid", help="row- or column-ordered process grid (Servet 3.0, 6.1)",
                             description="Predict the cost of a row- and a column-ordered P x Q grid from ratDist "
                                         "and say which is cheaper.")
    grid.add_argument("--rows", type=int, required=True, metavar="P")
    grid.add_argument("--cols", type=int, required=True, metavar="Q")
    grid.add_argument("--row-volume", type=_size, required=True, metavar="BYTES",
                      help="bytes exchanged between processes of the same row (in total)")
    grid.add_argument("--col-volume", type=_size, required=True, metavar="BYTES",
                      help="bytes exchanged between processes of the same column (in total)")
    source = grid.add_mutually_exclusive_group(required=True)
    source.add_argument("--results", metavar="RESULTS.json", help="take ratDist from a results file")
    source.add_argument("--ratdist", metavar="R1,R2,...", help="ratDist for distances 1, 2, ... given by hand")
    grid.add_argument("--procs-per-node", type=int, default=1, metavar="N", help="ranks per node (default 1)")
    return parser


def _pu_list(text):
    from .pairs import parse_pu_list
    try:
        return parse_pu_list(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _node_options(args) -> dict:
    common = {"pairs": args.pairs, "cores": args.cores, "sample": args.pair_sample, "rounds": args.rounds}
    return {
        "shared-caches": dict(common, threshold=args.share_threshold, cache=_cache_options(args)),
        "memory": dict(common, size=args.memory_size, tolerance=args.memory_tolerance,
                       repetitions=args.memory_reps),
    }


def _mbsp_options(args) -> dict:
    return {"hmax": args.mbsp_hmax, "iterations": args.mbsp_niters, "max_exponent": args.mbsp_max_vector}


def _net_options(args) -> dict:
    return {"size": args.net_size, "nodes": args.net_nodes, "cap_s": args.net_cap}


def _comm_options(args) -> dict:
    return {"max_size": args.comm_max, "cap_s": args.comm_cap, "rse": args.comm_rse,
            "probe_size": args.comm_probe, "layer_tolerance": args.comm_layer_tolerance}


def _cache_options(args) -> dict:
    opts = {"min_size": args.cache_min, "stride": args.cache_stride, "order": args.cache_order,
            "pages": args.cache_pages, "passes": args.cache_passes, "samples": args.cache_samples,
            "pu": args.cache_pu, "refine": not args.no_cache_refine}
    if args.cache_max is not None:
        opts["max_size"] = args.cache_max
    return opts


def _validate_run(args, topology, ranks=1, nodes=1):
    unknown = [n for n in args.benchmarks if n not in REGISTRY]
    if unknown:
        raise UsageError(f"hpcbench run: unknown benchmark {unknown[0]!r}; choose from {', '.join(REGISTRY)}")
    from .cache.measure import check_parameters, default_max_size
    o = _cache_options(args)
    try:
        check_parameters(o["min_size"], o.get("max_size") or default_max_size(topology), o["stride"],
                         o["passes"], o["samples"], o["order"], o["pages"], 1)
    except ValueError as e:
        raise UsageError(f"hpcbench run: {e}") from None
    if o["pu"] is not None and o["pu"] not in topology.pu_indexes:
        raise UsageError(f"hpcbench run: --cache-pu must be one of {topology.pu_indexes}, got {o['pu']}")
    names = args.benchmarks or default_suite(ranks, nodes)
    if "shared-caches" in names or "memory" in names:
        _validate_node(args, topology, names)
    if "multibsp" in names:
        from .multibsp.benchmark import check_options as mbsp_options
        try:
            mbsp_options(_mbsp_options(args))
        except ValueError as e:
            raise UsageError(f"hpcbench run: {e}") from None
    if "distance" in names or "network-access" in names:
        from .network.benchmark import check_options as net_options
        try:
            o = net_options(_net_options(args))
            if o["nodes"] is not None and o["nodes"] > nodes:
                raise ValueError(f"--net-nodes {o['nodes']} is more than the {nodes} node(s) of this job")
        except ValueError as e:
            raise UsageError(f"hpcbench run: {e}") from None
    if "comm" in names:
        if ranks < 2:
            raise UsageError("hpcbench run: comm needs at least 2 MPI ranks; run it under mpiexec -n 2 or more")
        from .comm.benchmark import check_options
        try:
            check_options(_comm_options(args))
        except ValueError as e:
            raise UsageError(f"hpcbench run: {e}") from None


def _validate_node(args, topology, names):
    from .memory.benchmark import check_options as memory_options
    from .memory.measure import check_array_bytes
    from .pairs import check_pus
    try:
        if args.pair_sample < 0:
            raise ValueError(f"--pair-sample must be a non-negative integer, got {args.pair_sample}")
        if args.rounds <= 0:
            raise ValueError(f"--rounds must be a positive integer, got {args.rounds}")
        if args.share_threshold is not None and not args.share_threshold > 1:
            raise ValueError(f"--share-threshold must be above 1, got {args.share_threshold}")
        if not 0 < args.memory_tolerance < 1:
            raise ValueError(f"--memory-tolerance must be between 0 and 1, got {args.memory_tolerance}")
        if args.memory_reps <= 0:
            raise ValueError(f"--memory-reps must be a positive integer, got {args.memory_reps}")
        if args.cores is None and len(topology.pu_indexes) < 2:
            return   # each pair benchmark says "skipped" in the results
        pus = check_pus(topology, args.cores)
        if "memory" in names:
            o = memory_options(_node_options(args)["memory"], topology)
            check_array_bytes(o["size"], len(pus))
    except ValueError as e:
        raise UsageError(f"hpcbench run: {e}") from None


def _count_nodes(comm) -> int:
    """Nodes of the job: groups of ranks that share memory."""
    from mpi4py import MPI
    shared = comm.Split_type(MPI.COMM_TYPE_SHARED, key=comm.Get_rank())
    leader = 1 if shared.Get_rank() == 0 else 0
    shared.Free()
    return comm.allreduce(leader)


THREAD_LEVELS = ("single", "funneled", "serialized", "multiple")


def _thread_level() -> str:
    """MPI thread level for `run`: HPCBENCH_MPI_THREAD_LEVEL, default single.

    Only the main thread ever calls MPI; team threads (node benchmarks) run
    while the main thread waits for them, outside any MPI call. mpi4py's own
    default, MULTIPLE, and even FUNNELED make Open MPI 4.1 take its
    thread-safe paths: 0-byte ping-pong latency measured 20% above a plain C
    program initialised with MPI_Init (docs/comm.md). SINGLE measures what
    such programs see."""
    level = os.environ.get("HPCBENCH_MPI_THREAD_LEVEL", "single").strip().lower()
    if level not in THREAD_LEVELS:
        raise UsageError(f"hpcbench: HPCBENCH_MPI_THREAD_LEVEL must be one of {', '.join(THREAD_LEVELS)}, "
                         f"got {level!r}")
    return level


def _cmd_run(args) -> int:
    import mpi4py
    if "mpi4py.MPI" not in sys.modules:
        mpi4py.rc.thread_level = _thread_level()
    from mpi4py import MPI

    from .runner import run_suite
    from .show import summary
    from .topology import Topology

    comm = MPI.COMM_WORLD
    topology = Topology.load()
    nodes = _count_nodes(comm)
    _validate_run(args, topology, comm.Get_size(), nodes)
    names = args.benchmarks or default_suite(comm.Get_size(), nodes)
    try:
        options = {"cache": _cache_options(args), "comm": _comm_options(args), "distance": _net_options(args),
                   "multibsp": _mbsp_options(args),
                   "network-access": _net_options(args), **_node_options(args)}
        results = run_suite(names, options, args.output, comm, topology, quiet=args.quiet)
    except ValueError as e:
        raise UsageError(f"hpcbench run: {e}") from None
    if comm.Get_rank() == 0:
        sys.stdout.write(summary(results))
        print(f"results written to {args.output}")
        _write_degradation(results, args.output)
        return 1 if any(r.get("status") not in ("ok", "skipped") for r in results.benchmarks) else 0
    return 0


def _write_degradation(results, output):
    """Beside the results, the file the C API reads, when a network benchmark finished."""
    from .network.degr import degradation_path, export_from_results
    if results.network_dist_ratios or results.network_access_ratios:
        path = degradation_path(output)
        try:
            export_from_results(results, path)
            print(f"network degradation (ratDist, ratNC) written to {path}")
        except (ValueError, OSError) as e:
            print(f"hpcbench: could not write {path}: {e}", file=sys.stderr)


def _cmd_degr(args) -> int:
    from .network.degr import degradation_path, export_from_results
    from .results import ResultsError, load
    try:
        results = load(args.results)
        path = args.output or degradation_path(args.results)
        rat_dist, rat_nc = export_from_results(results, path)
    except (ResultsError, ValueError, OSError) as e:
        raise UsageError(f"hpcbench degr: {e}") from None
    print(f"ratDist for distances 1..{len(rat_dist)}, ratNC for 1..{len(rat_nc)} processes per node written to {path}")
    return 0


def _cmd_config(args) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    include, lib = os.path.join(here, "include"), os.path.join(here, "lib")
    if not os.path.isfile(os.path.join(lib, "libhpcbdegr.so")):
        raise UsageError("hpcbench config: libhpcbdegr.so is not built; reinstall hpcbench (pip install .)")
    if not (args.cflags or args.libs):
        raise UsageError("hpcbench config: ask for --cflags, --libs or both")
    flags = []
    if args.cflags:
        flags.append(f"-I{include}")
    if args.libs:
        flags += [f"-L{lib}", "-lhpcbdegr", f"-Wl,-rpath,{lib}"]
    print(" ".join(flags))
    return 0


def _cmd_advise(args) -> int:
    from .network.analysis import advise_grid
    if args.topic != "grid":
        raise UsageError("hpcbench advise: choose a topic: grid (see --help)")
    try:
        if args.results:
            from .results import ResultsError, load
            try:
                results = load(args.results)
            except ResultsError as e:
                raise ValueError(str(e)) from None
            rat_dist = results.network_dist_ratios
            if not rat_dist:
                raise ValueError(f"{args.results} has no distance benchmark that finished")
            bw = results.get("distance")["derived"]["bandwidth"].get("1")
        else:
            try:
                values = [float(v) for v in args.ratdist.split(",")]
            except ValueError:
                raise ValueError(f"--ratdist is a comma-separated list of numbers, got {args.ratdist!r}") from None
            if not values or any(not v > 0 for v in values):
                raise ValueError("--ratdist needs positive ratios for distances 1, 2, ...")
            rat_dist, bw = {d + 1: v for d, v in enumerate(values)}, None
        advice = advise_grid(args.rows, args.cols, args.row_volume, args.col_volume, rat_dist,
                             args.procs_per_node, reference_bandwidth=bw)
    except ValueError as e:
        raise UsageError(f"hpcbench advise grid: {e}") from None
    unit = "s" if bw else "(bytes x ratio; give --results for seconds)"
    print(f"{args.rows} x {args.cols} grid, {args.row_volume} bytes along rows, {args.col_volume} along columns, "
          f"{args.procs_per_node} rank(s) per node")
    for name, cost in advice.costs.items():
        print(f"  {name:<15} predicted cost {cost:.6g} {unit}")
    other = [c for n, c in advice.costs.items() if n != advice.best][0]
    saving = 100 * (1 - advice.costs[advice.best] / other) if other > 0 else 0.0
    print(f"use the {advice.best} grid ({saving:.0f}% cheaper)")
    if advice.extrapolated:
        print("  note: some distances exceed the measured ratDist; the largest measured ratio was used for them")
    return 0


def _cmd_list(args) -> int:
    default = set(default_suite(ranks=2, nodes=2))
    for b in REGISTRY.values():
        mark = "*" if b.name in default else " "
        print(f"{mark} {b.name:<16} {b.summary} [{b.scope}]")
    print("* = in the default suite" + "".join(
        f"; {b.name} only with {b.min_ranks} ranks or more" + (f" on {b.min_nodes} nodes or more" if b.min_nodes > 1
                                                                else "")
        for b in REGISTRY.values() if b.min_ranks > 1))
    return 0


def _cmd_show(args) -> int:
    from .results import ResultsError, load
    from .show import summary

    try:
        sys.stdout.write(summary(load(args.results)))
    except ResultsError as e:
        raise UsageError(f"hpcbench show: {e}") from None
    return 0


def _is_rank_zero() -> bool:
    mpi = sys.modules.get("mpi4py.MPI")
    return mpi is None or not mpi.Is_initialized() or mpi.COMM_WORLD.Get_rank() == 0


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        return {"run": _cmd_run, "list": _cmd_list, "show": _cmd_show, "degr": _cmd_degr, "config": _cmd_config,
                "advise": _cmd_advise}[args.command](args)
    except UsageError as e:
        if _is_rank_zero():
            print(f"{e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("hpcbench: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # one line for users; the traceback on request
        if os.environ.get("HPCBENCH_DEBUG"):
            raise
        print(f"hpcbench: internal error: {type(e).__name__}: {e} (set HPCBENCH_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return 1
