"""`run`'s command line, made from the registry: each benchmark's flags (its
options dataclass), the deprecated aliases, and the check of every option
before anything is measured (one line, exit 2)."""
from __future__ import annotations

import argparse
from typing import Any

from .. import _registry
from .._errors import OptionError
from .._protocol import AnyBenchmark, CliFlag, Job, check_ranges, flag_dest
from ..topology import Topology
from ._common import SUMMARIES, Parser, UsageError


def add_run_parser(sub: argparse._SubParsersAction[Parser]) -> Parser:
    run = sub.add_parser("run", help=SUMMARIES["run"],
                         description="Run benchmarks; node-local ones run once per node under mpiexec.")
    run.add_argument("benchmarks", nargs="*", metavar="BENCHMARK", help="names from `hpcbench list`")
    run.add_argument("-o", "--output", default="hpcbench-results.json", help="results file (default: %(default)s)")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    run.add_argument("--report", action="store_true",
                     help="at the end, write the HTML report beside the results file (RESULTS.html; see `report`)")
    run.add_argument("--estimate", action="store_true",
                     help="print how long each benchmark would take here, and the total, without measuring "
                          "(docs/slurm.md)")
    run.add_argument("--history", metavar="DIR",
                     help="at the end, add a copy of the results file to the history folder DIR (default: "
                          "$HPCBENCH_HISTORY, if set; see `history`, docs/history.md)")
    add_benchmark_flags(run)
    return run


def add_benchmark_flags(run: argparse.ArgumentParser) -> None:
    """Every benchmark's flags and the deprecated spellings: `run`'s, and
    `sbatch`'s, which passes them on to the run it writes."""
    seen: set[type] = set()
    for bench in _registry.BENCHMARKS:
        if bench.options_type not in seen:       # benchmarks that share options share their flags
            seen.add(bench.options_type)
            bench.add_arguments(run.add_argument_group(bench.group))
    deprecated = run.add_argument_group("deprecated spellings (still accepted)")
    for alias, targets in aliases().items():
        spec = next(iter(targets.values()))
        typed: dict[str, Any] = {"type": spec.type} if spec.type else {}     # argparse's own default otherwise
        deprecated.add_argument(alias, dest=flag_dest(alias), default=None, metavar=spec.metavar,
                                choices=spec.choices, help=f"use {', '.join(targets)}", **typed)


def aliases() -> dict[str, dict[str, CliFlag]]:
    """Deprecated flag -> {new flag: CliFlag} over every benchmark that declares it."""
    out: dict[str, dict[str, CliFlag]] = {}
    for bench in _registry.BENCHMARKS:
        for spec in bench.flags().values():
            for alias in spec.aliases:
                out.setdefault(alias, {})[spec.flag] = spec
    return out


def deprecation_notes(args: argparse.Namespace) -> list[str]:
    """One line per deprecated flag the command line used."""
    return [f"hpcbench run: {alias} is deprecated; use {', '.join(targets)}"
            for alias, targets in aliases().items() if getattr(args, flag_dest(alias), None) is not None]


def selected(args: argparse.Namespace, job: Job) -> list[str]:
    """The benchmark names to run; a usage error for unknown names and for
    benchmarks asked for by name that need more ranks."""
    for name in args.benchmarks:
        if name not in _registry.names():
            raise UsageError(f"hpcbench run: unknown benchmark {name!r}; choose from {', '.join(_registry.names())}")
    names = list(args.benchmarks) or [b.name for b in _registry.BENCHMARKS
                                      if b.in_unnamed_run(b.options_from_args(args), job)]
    for name in names:
        bench = _registry.get(name)
        if job.ranks < bench.needs_ranks:
            raise UsageError(f"hpcbench run: {name} needs at least {bench.needs_ranks} MPI ranks; run it under "
                             f"mpiexec -n {bench.needs_ranks} or more")
    return names


def checked_options(args: argparse.Namespace, names: list[str], topology: Topology, job: Job) -> dict[str, Any]:
    """name -> options for every benchmark, checked (machine defaults
    resolved) for those that run and those whose options they use. An
    OptionError becomes one usage line naming the flag."""
    needed = set(names) | {used for name in names for used in _registry.get(name).uses}
    options: dict[str, Any] = {}        # each benchmark's own options type, by name
    for bench in _registry.BENCHMARKS:
        opts = bench.options_from_args(args)
        if not args.benchmarks:
            opts = bench.unnamed_options(opts)
        options[bench.name] = _check(bench, opts, topology, job, args, resolve=bench.name in needed)
    return options


def _check(bench: AnyBenchmark, options: Any, topology: Topology, job: Job, args: argparse.Namespace,
           resolve: bool) -> Any:
    """Every option's documented range, for every benchmark (a value out of
    range is a mistake even for a benchmark this run skips); the rules that
    depend on the machine and the job only for those that run."""
    try:
        if resolve:
            return bench.check(options, topology, job)
        check_ranges(bench.options_type, **{name: getattr(options, name) for name in bench.flags()})
        return options
    except OptionError as e:
        given = bench.given_flags(args).get(e.parameter)
        flag = given[0] if given else bench.flag_of(e.parameter)   # the spelling the user typed
        raise UsageError(f"hpcbench run: {flag} {e.rule}") from None
