"""`run`'s options: the argument groups of every benchmark, the option
dictionaries the benchmarks receive, and their validation (one line, exit 2,
before anything is measured)."""
from __future__ import annotations

from ..suite import REGISTRY, default_suite
from .common import UsageError, pu_list_arg, size_arg


def add_run_parser(sub):
    run = sub.add_parser("run", help="run benchmarks (default: the default suite) and write a results file",
                         description="Run benchmarks; node-local ones run once per node under mpiexec.")
    run.add_argument("benchmarks", nargs="*", metavar="BENCHMARK", help="names from `hpcbench list`")
    run.add_argument("-o", "--output", default="hpcbench-results.json", help="results file (default: %(default)s)")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    cache = run.add_argument_group("cache benchmark")
    cache.add_argument("--cache-min", type=size_arg, default=1024, metavar="SIZE", help="smallest array (default 1KiB)")
    cache.add_argument("--cache-max", type=size_arg, default=None, metavar="SIZE",
                       help="largest array (default: about twice the largest cache hwloc reports)")
    cache.add_argument("--cache-stride", type=size_arg, default=1024, metavar="SIZE", help="distance between loads (default 1KiB)")
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
    node.add_argument("--cores", type=pu_list_arg, default=None, metavar="LIST",
                      help="PUs to test, e.g. 0-3,8 (default: every PU this process may use)")
    node.add_argument("--pair-sample", type=int, default=8, metavar="N",
                      help="extra random pairs in auto mode (default 8)")
    node.add_argument("--share-threshold", type=float, default=None, metavar="X",
                      help="co-run ratio above which two cores share a cache (default: 2, or less where the "
                           "single-core curve shows a shared cache cannot double the time; see docs/node.md)")
    node.add_argument("--memory-size", type=size_arg, default=None, metavar="SIZE",
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
    comm.add_argument("--comm-max", type=size_arg, default=4 << 20, metavar="SIZE",
                      help="largest message (default 4MiB); sizes are 0 and powers of two up to it")
    comm.add_argument("--comm-cap", type=float, default=0.2, metavar="S",
                      help="time cap per message size in seconds (default 0.2)")
    comm.add_argument("--comm-rse", type=float, default=0.01, metavar="F",
                      help="stop repeating once the median's relative standard error is below F (default 0.01)")
    comm.add_argument("--comm-probe", type=size_arg, default=None, metavar="SIZE",
                      help="message size for the all-pairs latency of Servet's layers (default: the L1 size)")
    comm.add_argument("--comm-layer-tolerance", type=float, default=0.2, metavar="F",
                      help="relative latency gap that separates two layers (default 0.2)")

    net = run.add_argument_group("distance and network-access benchmarks (jobs on several nodes)")
    net.add_argument("--net-size", type=size_arg, default=32 << 20, metavar="SIZE",
                     help="message size (default 32MiB, as Servet 3.0)")
    net.add_argument("--net-nodes", type=int, default=None, metavar="N",
                     help="nodes the distance benchmark uses (default: all nodes of the job)")
    net.add_argument("--net-cap", type=float, default=2.0, metavar="S",
                     help="time cap per distance or processes-per-node step, seconds (default 2)")

    return run


def node_options(args) -> dict:
    common = {"pairs": args.pairs, "cores": args.cores, "sample": args.pair_sample, "rounds": args.rounds}
    return {
        "shared-caches": dict(common, threshold=args.share_threshold, cache=cache_options(args)),
        "memory": dict(common, size=args.memory_size, tolerance=args.memory_tolerance,
                       repetitions=args.memory_reps),
    }


def mbsp_options(args) -> dict:
    return {"hmax": args.mbsp_hmax, "iterations": args.mbsp_niters, "max_exponent": args.mbsp_max_vector}


def net_options(args) -> dict:
    return {"size": args.net_size, "nodes": args.net_nodes, "cap_s": args.net_cap}


def comm_options(args) -> dict:
    return {"max_size": args.comm_max, "cap_s": args.comm_cap, "rse": args.comm_rse,
            "probe_size": args.comm_probe, "layer_tolerance": args.comm_layer_tolerance}


def cache_options(args) -> dict:
    opts = {"min_size": args.cache_min, "stride": args.cache_stride, "order": args.cache_order,
            "pages": args.cache_pages, "passes": args.cache_passes, "samples": args.cache_samples,
            "pu": args.cache_pu, "refine": not args.no_cache_refine}
    if args.cache_max is not None:
        opts["max_size"] = args.cache_max
    return opts


def validate_run(args, topology, ranks=1, nodes=1):
    unknown = [n for n in args.benchmarks if n not in REGISTRY]
    if unknown:
        raise UsageError(f"hpcbench run: unknown benchmark {unknown[0]!r}; choose from {', '.join(REGISTRY)}")
    from ..cache.measure import check_parameters, default_max_size
    o = cache_options(args)
    try:
        check_parameters(o["min_size"], o.get("max_size") or default_max_size(topology), o["stride"],
                         o["passes"], o["samples"], o["order"], o["pages"], 1)
    except ValueError as e:
        raise UsageError(f"hpcbench run: {e}") from None
    if o["pu"] is not None and o["pu"] not in topology.pu_indexes:
        raise UsageError(f"hpcbench run: --cache-pu must be one of {topology.pu_indexes}, got {o['pu']}")
    names = args.benchmarks or default_suite(ranks, nodes)
    if "shared-caches" in names or "memory" in names:
        validate_node(args, topology, names)
    if "multibsp" in names:
        from ..multibsp.benchmark import check_options as check_mbsp
        try:
            check_mbsp(mbsp_options(args))
        except ValueError as e:
            raise UsageError(f"hpcbench run: {e}") from None
    if "distance" in names or "network-access" in names:
        from ..network.benchmark import check_options as check_net
        try:
            o = check_net(net_options(args))
            if o["nodes"] is not None and o["nodes"] > nodes:
                raise ValueError(f"--net-nodes {o['nodes']} is more than the {nodes} node(s) of this job")
        except ValueError as e:
            raise UsageError(f"hpcbench run: {e}") from None
    if "comm" in names:
        if ranks < 2:
            raise UsageError("hpcbench run: comm needs at least 2 MPI ranks; run it under mpiexec -n 2 or more")
        from ..comm.benchmark import check_options
        try:
            check_options(comm_options(args))
        except ValueError as e:
            raise UsageError(f"hpcbench run: {e}") from None


def validate_node(args, topology, names):
    from ..memory.benchmark import check_options as check_memory
    from ..memory.measure import check_array_bytes
    from ..pairs import check_pus
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
            o = check_memory(node_options(args)["memory"], topology)
            check_array_bytes(o["size"], len(pus))
    except ValueError as e:
        raise UsageError(f"hpcbench run: {e}") from None




def all_options(args) -> dict:
    """Benchmark name -> its options."""
    return {"cache": cache_options(args), "comm": comm_options(args), "distance": net_options(args),
            "network-access": net_options(args), "multibsp": mbsp_options(args), **node_options(args)}
