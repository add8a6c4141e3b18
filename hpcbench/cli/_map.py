"""`map`: Servet's process mapping from a results file, written for a
launcher (hpcbench.mapping)."""
from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from .._argtypes import pu_list_arg
from .._errors import ResultsError
from .._terminal import shown
from ..mapping._launch import FORMATS
from ..mapping._weights import KINDS
from ._common import SUMMARIES, Parser, UsageError

if TYPE_CHECKING:          # for the annotation only
    from ..mapping import ProcessMapping


def add_map_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    p = sub.add_parser("map", help=SUMMARIES["map"],
                       description="Choose the cores of N processes with Servet's weighted core selection over the "
                                   "shared caches, memory overhead, communication layers and ratNC of the results, "
                                   "and write the file and command line of a launcher (docs/mapping.md).")
    p.add_argument("results", nargs="+", metavar="RESULTS.json",
                   help="results file(s): node and network benchmarks may come from different runs")
    p.add_argument("-n", "--nprocs", type=int, required=True, metavar="N", help="processes to map")
    p.add_argument("--kind", required=True, choices=list(KINDS),
                   help="memory-bound or communication-intensive code (switches the rules' weights)")
    p.add_argument("--format", required=True, choices=FORMATS, dest="fmt",
                   help="rankfile (Open MPI), srun (Slurm), hydra (MPICH) or list (rank, host, PU, why)")
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="write the launcher file here and print the command line (default: the file to stdout, "
                        "the command line to stderr)")
    p.add_argument("--hosts", default=None, metavar="H1,H2,...",
                   help="nodes to map onto, in order (default: the hosts of the results; nodes without records "
                        "of their own are taken to be like the measured ones)")
    p.add_argument("--pus", type=pu_list_arg, default=None, metavar="LIST",
                   help="OS indexes of the PUs the job may use on every node, e.g. 0-5,8-13 (default all)")
    p.add_argument("--topology", default=None, metavar="XML",
                   help="the nodes' hwloc topology (lstopo file.xml; default: the one in the results)")
    p.add_argument("--force", action="store_true",
                   help="let -o replace an existing file that hpcbench map did not write (never a results file, a "
                        "link, a device or a FIFO)")
    p.add_argument("--srun-mpi", default=None, choices=("pmix", "pmi2", "none"), metavar="PLUGIN",
                   help="with --format srun: the srun MPI plugin, pmix, pmi2 or none (default: the one this "
                        "hpcbench's MPI library needs: pmix for Open MPI, pmi2 for MPICH)")
    p.add_argument("--program", default=None, metavar="CMD",
                   help="the program and its arguments, for the printed command line")


def _check_output(path: str, inputs: list[str], force: bool) -> None:
    """-o may name a new file or one `map` wrote (anything else only with
    --force, and never a results file, a link, a device or a FIFO)."""
    from .._files import check_target
    from .._output import is_results_file
    from ..mapping._launch import is_map_file
    if path.strip() and (is_results_file(path) or any(_same_file(path, r) for r in inputs)):
        raise ValueError(f"-o {path} is a results file; it is not overwritten")
    check_target(path, "-o", is_map_file, force=force, what="a launcher file hpcbench map wrote")


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _check_hosts(mapping: ProcessMapping, paths: list[str]) -> None:
    """Every host of the mapping is a host name a launcher file can carry;
    ValueError naming where in the results a bad one is otherwise."""
    from ..mapping import check_host_name
    for host in mapping.counts():
        try:
            check_host_name(host)
        except ValueError as e:
            raise ValueError(f"{e} (in {_where(host, paths)})") from None


def _where(host: str, paths: list[str]) -> str:
    """Where the results files name `host`: a context's hosts or a record's node."""
    from .. import load
    for path in paths:
        results = load(path)
        hosts = results.context.get("hosts") or []
        if host in hosts:
            return f"{path}: context.hosts[{hosts.index(host)}]"
        for i, record in enumerate(results.benchmarks):
            if record.node == host:
                return f"{path}: benchmarks[{i}] ({shown(record.name)} record).node"
    return "the results"


def _check_allocation(mapping: ProcessMapping) -> None:
    """Inside a Slurm allocation the srun line is for it: ValueError (one
    line) when the mapping needs a node or CPUs the allocation lacks."""
    from ..mapping import check_fits_allocation, slurm_allocation
    allocation = slurm_allocation(os.environ)
    if allocation is not None:
        check_fits_allocation(mapping, allocation)


def _hosts(text: str) -> list[str]:
    from ..mapping import check_host_name
    return [check_host_name(h.strip(), "--hosts") for h in text.split(",")]


def cmd_map(args: argparse.Namespace) -> int:
    from .._files import write_file
    from ..mapping import launch, map_processes
    from ..topology import Topology

    try:
        if args.output is not None:
            _check_output(args.output, args.results, args.force)
        hosts = _hosts(args.hosts) if args.hosts is not None else None
        topology = Topology.from_xml(args.topology) if args.topology is not None else None
        mapping = map_processes(args.results, args.nprocs, args.kind, hosts=hosts, pus=args.pus, topology=topology)
        kwargs = {"program": args.program} if args.program else {}
        if args.fmt != "list" and args.hosts is None:
            _check_hosts(mapping, args.results)
        if args.fmt == "srun":
            _check_allocation(mapping)
        plan = launch(mapping, args.fmt, args.output, **kwargs, srun_mpi=args.srun_mpi)
        if args.output is not None:
            _check_output(args.output, args.results, args.force)     # again: it may have changed meanwhile
            write_file(args.output, plan.text, "launcher file", None)
    except (ResultsError, ValueError) as e:
        raise UsageError(f"hpcbench map: {e}") from None
    if args.output is None:
        sys.stdout.write(plan.text)
        if plan.command:
            print(f"hpcbench map: save the above as {plan.path} and run: {plan.command}", file=sys.stderr)
    else:
        counts = mapping.counts()
        print(f"# {args.output}: {mapping.nprocs} processes on {len(counts)} node(s) "
              f"({', '.join(f'{h}: {k}' for h, k in counts.items())})")
        if plan.command:
            print(plan.command)
    if mapping.per_node is not None and mapping.per_node.fewer_is_faster:
        k = mapping.per_node.per_node
        said = f"{k} processes per node are" if k > 1 else "1 process per node is"
        print(f"hpcbench map: note: ratNC says {said} fastest for a network-bound code: {mapping.per_node.reason}",
              file=sys.stderr)
    return 0
