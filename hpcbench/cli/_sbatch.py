"""`python -m hpcbench sbatch [run options]`: a Slurm batch script for a run.

Nodes and tasks from -N/-n/--ntasks-per-node, --time from the run's
estimate on this kind of node (hpcbench._estimate, with a margin), the job's
output file, then `srun --mpi=PLUGIN python -m hpcbench run ...` with the
run options passed on. Nothing is measured and MPI is not started: the
options are checked as `run` checks them, against this node's topology."""
from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys

from .._protocol import Job
from ._common import SUMMARIES, Parser, UsageError
from ._options import add_benchmark_flags

#: The first line after the shebang: how `-o` recognises a script it may overwrite.
HEADER = "# hpcbench sbatch script"


def add_sbatch_parser(sub: argparse._SubParsersAction[Parser]) -> Parser:
    p = sub.add_parser("sbatch", help=SUMMARIES["sbatch"],
                       description="Write a Slurm batch script that runs `hpcbench run` with these options "
                                   "(to stdout, or -o FILE); --time comes from the run's estimate.")
    p.add_argument("benchmarks", nargs="*", metavar="BENCHMARK", help="names from `hpcbench list`")
    p.add_argument("-o", "--script", metavar="FILE", help="write the script here (default: stdout)")
    p.add_argument("--force", action="store_true", help="overwrite FILE even if it is not an hpcbench script")
    p.add_argument("-N", "--nodes", type=_positive, default=1, metavar="N", help="nodes (default: %(default)s)")
    p.add_argument("-n", "--ntasks", type=_positive, metavar="N",
                   help="MPI ranks in all (default: nodes x tasks per node)")
    p.add_argument("--ntasks-per-node", type=_positive, metavar="N", help="MPI ranks per node (default: 1)")
    p.add_argument("--srun-mpi", metavar="PLUGIN",
                   help="srun's --mpi= plugin (default: the one this MPI library needs, e.g. pmix)")
    p.add_argument("--results", default="hpcbench-results-%j.json", metavar="PATH",
                   help="the run's results file, %%j the job ID (default: %(default)s)")
    p.add_argument("--job-output", default="hpcbench-%j.out", metavar="PATH",
                   help="#SBATCH -o: the job's stdout and stderr (default: %(default)s)")
    p.add_argument("-t", "--time", type=_positive, metavar="MINUTES",
                   help="the job's time limit in minutes (default: the run's estimate with a margin; the estimate "
                        "assumes a quiet node and a network at least as fast as a common cluster's: docs/slurm.md)")
    p.add_argument("-q", "--quiet", action="store_true", help="the run prints no progress")
    p.add_argument("--report", action="store_true", help="the run also writes the HTML report")
    add_benchmark_flags(p)
    return p


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}")
    return int(text)


def job_shape(args: argparse.Namespace) -> tuple[int, int | None, int]:
    """(nodes, tasks per node or None, tasks in all) from -N, --ntasks-per-node, -n."""
    nodes, per_node = args.nodes, args.ntasks_per_node
    tasks = args.ntasks if args.ntasks is not None else nodes * (per_node or 1)
    if per_node is not None and args.ntasks is not None and args.ntasks != nodes * per_node:
        raise UsageError(f"hpcbench sbatch: -n {args.ntasks} is not -N {nodes} x --ntasks-per-node {per_node}")
    if tasks < nodes:
        raise UsageError(f"hpcbench sbatch: -n {tasks} gives some of the {nodes} nodes no task")
    return nodes, per_node, tasks


def cluster_nodes() -> int | None:
    """Nodes the cluster has (`sinfo -h -o %D`, summed over partitions'
    lines); None where sinfo is not there or does not answer."""
    if shutil.which("sinfo") is None:
        return None
    try:
        out = subprocess.run(["sinfo", "-h", "-o", "%D"], capture_output=True, text=True, timeout=20, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    counts = [int(word) for word in out.stdout.split() if word.isdigit()]
    return sum(counts) if counts else None


def run_arguments(args: argparse.Namespace) -> list[str]:
    """The run options of the command line, as `run` takes them: each
    benchmark's given flags (shared flags once), then the names."""
    from .. import _registry
    words: list[str] = []
    seen: set[str] = set()
    for bench in _registry.BENCHMARKS:
        for name, (_, value) in bench.given_flags(args).items():
            spec = bench.flags()[name]
            if spec.flag in seen:
                continue
            seen.add(spec.flag)
            if isinstance(value, bool):
                words.append(spec.flag if value else "--no-" + spec.flag[2:])
            elif isinstance(value, (list, tuple)):
                words += [spec.flag, ",".join(str(v) for v in value)]
            else:
                words += [spec.flag, str(value)]
    return words + list(args.benchmarks)


def script_text(args: argparse.Namespace, minutes: int, plugin: str, nodes: int, per_node: int | None,
                tasks: int, total_s: float) -> str:
    """The batch script."""
    run = [shlex.quote(w) for w in ["python3", "-m", "hpcbench", "run", *run_arguments(args)]]
    run += ["-o", _with_job_id(args.results)] + (["-q"] if args.quiet else []) + (["--report"] if args.report else [])
    said = "--time given" if args.time else "--time has a margin"
    lines = ["#!/bin/bash", HEADER, f"# estimated run: {total_s:.0f} s here; {said} (docs/slurm.md)",
             f"#SBATCH --nodes={nodes}", f"#SBATCH --ntasks={tasks}"]
    lines += [f"#SBATCH --ntasks-per-node={per_node}"] if per_node else []
    lines += [f"#SBATCH --time={minutes}", f"#SBATCH -o {shlex.quote(args.job_output)}", "",
              f"srun --mpi={shlex.quote(plugin)} " + " ".join(run)]
    return "\n".join(lines) + "\n"


def _with_job_id(path: str) -> str:
    """`path` as one shell word, its %j the job's ID: Slurm expands %j in
    #SBATCH -o but not in a command's arguments, the shell expands $SLURM_JOB_ID."""
    return '"${SLURM_JOB_ID}"'.join(shlex.quote(part) if part else "" for part in path.split("%j"))


def is_sbatch_script(head: bytes) -> bool:
    """Whether a file's first bytes are a script this command wrote."""
    return head.startswith(b"#!/bin/bash\n" + HEADER.encode() + b"\n")


def cmd_sbatch(args: argparse.Namespace) -> int:
    from .. import _core  # noqa: F401  (loads the MPI library, which srun_mpi_plugin reads)
    from .._estimate import slurm_minutes
    from .._files import write_file
    from .._launch import srun_mpi_plugin
    from ..topology import Topology
    from ._options import checked_options, selected
    from ._run import estimates

    nodes, per_node, tasks = job_shape(args)
    plugin = args.srun_mpi or srun_mpi_plugin()
    if not plugin.replace("_", "").replace("-", "").isalnum():
        raise UsageError(f"hpcbench sbatch: --srun-mpi must be a plugin name such as pmix, got {plugin!r}")
    topology, job = Topology.load(), Job(tasks, nodes)
    try:
        names = selected(args, job)
        options = checked_options(args, names, topology, job)
    except UsageError as e:          # run's own words, said by this command
        raise UsageError(str(e).replace("hpcbench run:", "hpcbench sbatch:", 1)) from None
    have = cluster_nodes()
    if have is not None and nodes > have:
        raise UsageError(f"hpcbench sbatch: -N {nodes} asks for more nodes than the cluster has ({have}, sinfo)")
    total = sum(seconds for _, seconds in estimates(names, options, topology, job))
    minutes = args.time or slurm_minutes(total)
    text = script_text(args, minutes, plugin, nodes, per_node, tasks, total)
    if args.script:
        try:
            write_file(args.script, text, "batch script", is_sbatch_script, args.force)
        except ValueError as e:
            raise UsageError(f"hpcbench sbatch: {e}") from None
        print(f"batch script written to {args.script} (--time={minutes} min); submit it with sbatch")
    else:
        sys.stdout.write(text)
    if have is None:        # after the script: bad input stays one line
        print("hpcbench sbatch: no node count from sinfo (no Slurm here, or its controller does not answer): "
              "-N was not checked against the cluster", file=sys.stderr)
    return 0

