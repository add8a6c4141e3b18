"""The commands that read results or give advice: list, show, degr,
params, config, advise grid."""
from __future__ import annotations

import argparse
import math
import os
import sys
import warnings

from .. import _registry
from .._argtypes import size_arg
from .._errors import ResultsError
from ._common import SUMMARIES, Parser, UsageError


def add_tool_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    sub.add_parser("list", help=SUMMARIES["list"], description="List the benchmarks and the default suite.")
    show = sub.add_parser("show", help=SUMMARIES["show"], description="Summarise a results file.")
    show.add_argument("results", metavar="RESULTS.json")
    # hpcbench._tidy imports only the standard library: naming its formats keeps `show --help` light.
    from .._tidy import FORMATS
    show.add_argument("--format", choices=FORMATS, default="text",
                      help="text: the summary (default); csv or json: the tidy export, one row per measured figure "
                           "(benchmark, node, quantity, parameter, parameter_value, value, unit, statistic; "
                           "docs/results-format.md)")

    degr = sub.add_parser("degr", help=SUMMARIES["degr"],
                          description="Write the text file the C API (hpcb_load_degr_info) reads.")
    degr.add_argument("results", metavar="RESULTS.json")
    degr.add_argument("-o", "--output", default=None, help="degradation file (default: RESULTS.degr)")
    degr.add_argument("--force", action="store_true",
                      help="replace an existing file that is not a degradation file (never a link, a device or a "
                           "FIFO)")

    params = sub.add_parser("params", help=SUMMARIES["params"],
                            description="Write the text file the C and Fortran parameters API (hpcb_load_params) "
                                        "reads: cache sizes, shared caches, memory-access overhead, communication "
                                        "layers, "
                                        "ratDist and ratNC, from whichever of their benchmarks finished "
                                        "(docs/params.md).")
    params.add_argument("results", metavar="RESULTS.json")
    params.add_argument("-o", "--output", default=None, help="parameters file (default: RESULTS.params)")
    params.add_argument("--force", action="store_true",
                        help="replace an existing file that is not a parameters file (never a link, a device or a "
                             "FIFO)")

    config = sub.add_parser("config", help=SUMMARIES["config"],
                            description="Print the flags to compile and link a C program against libhpcbdegr (the "
                                        "degradation and parameters APIs: hpcb_degr.h, hpcb_params.h).")
    config.add_argument("--cflags", action="store_true", help="print the include flags")
    config.add_argument("--libs", action="store_true", help="print the link flags")

    advise = sub.add_parser("advise", help=SUMMARIES["advise"],
                            description="Advice built on measured figures.")
    topics = advise.add_subparsers(dest="topic", metavar="TOPIC", parser_class=Parser)
    grid = topics.add_parser("grid", help="row- or column-ordered process grid (Servet 3.0, 6.1)",
                             description="Predict the cost of a row- and a column-ordered P x Q grid from ratDist "
                                         "and say which is cheaper.")
    grid.add_argument("--rows", type=int, required=True, metavar="P")
    grid.add_argument("--cols", type=int, required=True, metavar="Q")
    grid.add_argument("--row-volume", type=size_arg, required=True, metavar="BYTES",
                      help="bytes exchanged between processes of the same row (in total)")
    grid.add_argument("--col-volume", type=size_arg, required=True, metavar="BYTES",
                      help="bytes exchanged between processes of the same column (in total)")
    source = grid.add_mutually_exclusive_group(required=True)
    source.add_argument("--results", metavar="RESULTS.json", help="take ratDist from a results file")
    source.add_argument("--ratdist", metavar="R1,R2,...", help="ratDist for distances 1, 2, ... given by hand")
    grid.add_argument("--procs-per-node", type=int, default=1, metavar="N", help="ranks per node (default 1)")


def cmd_degr(args: argparse.Namespace) -> int:
    from .._results import load
    from ..network import export_from_results
    from ..network._degr import degradation_path
    try:
        results = load(args.results)
        path = args.output if args.output is not None else degradation_path(args.results)
        rat_dist, rat_nc = export_from_results(results, path, force=args.force)
    except (ResultsError, ValueError, OSError) as e:
        raise UsageError(f"hpcbench degr: {e}") from None
    print(f"ratDist for distances 1..{len(rat_dist)}, ratNC for 1..{len(rat_nc)} processes per node written to {path}")
    return 0


def cmd_params(args: argparse.Namespace) -> int:
    from .._results import load
    from ..network._params_export import export_parameters, params_path
    try:
        results = load(args.results)
        path = args.output if args.output is not None else params_path(args.results)
        p = export_parameters(results, path, force=args.force)
    except (ResultsError, ValueError, OSError) as e:
        raise UsageError(f"hpcbench params: {e}") from None
    print(f"{len(p.caches)} cache level(s), {len(p.shared_caches)} shared-cache level(s), {len(p.memory)} memory "
          f"level(s), {len(p.layers)} layer(s) over {len(p.ranks)} rank(s), ratDist for 1..{len(p.rat_dist)}, "
          f"ratNC for 1..{len(p.rat_nc)} written to {path}")
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # the hpcbench package
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


def cmd_advise(args: argparse.Namespace) -> int:
    from ..network import advise_grid
    if args.topic != "grid":
        raise UsageError("hpcbench advise: choose a topic: grid (see --help)")
    try:
        if args.results:
            from .._results import load
            try:
                results = load(args.results)
            except ResultsError as e:
                raise ValueError(str(e)) from None
            distance = results.finished("distance")
            if distance is None:
                raise ValueError(f"{args.results} has no distance benchmark that finished")
            rat_dist = distance.derived.ratios()
            bw = distance.derived.bandwidth.get("1")
        else:
            try:
                values = [float(v) for v in args.ratdist.split(",")]
            except ValueError:
                raise ValueError(f"--ratdist is a comma-separated list of numbers, got {args.ratdist!r}") from None
            if not values or any(not (math.isfinite(v) and v > 0) for v in values):
                raise ValueError("--ratdist needs positive finite ratios for distances 1, 2, ...")
            rat_dist, bw = {d + 1: v for d, v in enumerate(values)}, None
        with warnings.catch_warnings():      # an overflow is said below, in one line
            warnings.simplefilter("ignore", RuntimeWarning)
            advice = advise_grid(args.rows, args.cols, args.row_volume, args.col_volume, rat_dist,
                                 args.procs_per_node, reference_bandwidth=bw)
        if not all(math.isfinite(c) for c in advice.costs.values()):
            raise ValueError("the predicted costs overflow (the ratios or volumes are too large to compare); "
                             "give ratios and volumes whose products are finite")
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


def cmd_list(args: argparse.Namespace) -> int:
    default = set(_registry.default_suite(ranks=2, nodes=2))
    for b in _registry.BENCHMARKS:
        mark = "*" if b.name in default else " "
        print(f"{mark} {b.name:<16} {b.title} [{b.scope}]")
    print("* = in the default suite" + "".join(
        f"; {b.name} only with {b.min_ranks} ranks or more" + (f" on {b.min_nodes} nodes or more" if b.min_nodes > 1
                                                                else "")
        for b in _registry.BENCHMARKS if b.min_ranks > 1 and b.default)
        + "; the others run when named (nbc and rma also with --comm-suite all)")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from .._results import load
    from .._show import summary

    try:
        results = load(args.results)
    except ResultsError as e:
        raise UsageError(f"hpcbench show: {e}") from None
    if args.format == "text":
        sys.stdout.write(summary(results))
        return 0
    from .._tidy import rows, write_csv, write_json
    table = rows(results, _registry.BENCHMARKS)
    (write_csv if args.format == "csv" else write_json)(table, sys.stdout)
    return 0
