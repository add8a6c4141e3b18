"""Launcher files for a mapping, and the command line that uses each.

rankfile  Open MPI: `rank R=HOST slot=PU` lines; the PU numbers are OS
          (physical) indexes, hence `--mca rmaps_rank_file_physical 1`, and
          `--use-hwthread-cpus` binds to that PU (without it Open MPI 4
          binds to the whole core holding it: both threads on SMT nodes).
srun      Slurm: SLURM_HOSTFILE lists the host of every rank in rank order
          (`--distribution=arbitrary`); `--cpu-bind=map_cpu:` gives the PU
          of each node-local task: one list for every node.
hydra     MPICH: a hostfile of `HOST:COUNT` lines (ranks fill them in
          order) and `-bind-to user:` with the PU of each process of a
          host: one list for every node.
list      rank, host, PU, the order of choice, the weight and why.

Every launcher file but the list starts with a "# hpcbench map" comment
line (Open MPI rankfiles, Slurm hostfiles and hydra hostfiles all skip
'#' lines): `map -o` recognises its own files by it and replaces nothing
else without --force.

Host names come from results files, which travel: each one is checked as a
host name (RFC 1123 labels, see check_host_name) before it is written into
a launcher file or a command line, so that a name cannot add lines to a
file or options to a launcher.

Slurm and hydra bind by the index of a process among those of its node,
with one list for all nodes: a mapping whose nodes use different PUs in
different orders cannot be written for them (the rankfile can).
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from .._terminal import shown
from ._result import ProcessMapping

FORMATS = ("rankfile", "srun", "hydra", "list")
PROGRAM = "./your_program"
#: The first line of every launcher file `map` writes (and how it knows them).
MARK = "# hpcbench map"
#: RFC 1123 labels (letters, digits, hyphens inside; 1-63 characters), and
#: underscores inside a label, which some sites' node names have and which
#: no launcher reads as syntax.
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?")


def check_host_name(name: object, where: str = "") -> str:
    """`name` if it is a host name a launcher file can carry: dot-separated
    RFC 1123 labels, at most 253 characters, so no space, newline, leading
    hyphen (an option to ssh or a launcher) or shell character. ValueError
    (one line, naming `where` it came from, the name escaped) otherwise."""
    if isinstance(name, str) and 0 < len(name) <= 253 and all(_LABEL.fullmatch(p) for p in name.split(".")):
        return name
    origin = f" ({where})" if where else ""
    raise ValueError(f"{shown(repr(name))}{origin} is not a host name (letters, digits and inner hyphens in "
                     "dot-separated labels, RFC 1123): it is never written into a launcher file")


def is_map_file(head: bytes) -> bool:
    """True if a file's first bytes are those of a file `map` wrote."""
    return head.startswith(MARK.encode())


@dataclass(frozen=True)
class Launch:
    """A launcher file's text and the command line that uses it (`path`
    names the file; `program` stands for the program and its arguments)."""
    format: str
    text: str
    command: str
    path: str


def check_format(fmt: object) -> str:
    """The format as given; ValueError (one line) unless one of FORMATS."""
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise ValueError(f"the format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return fmt


def _per_node_pus(mapping: ProcessMapping) -> dict[str, list[int]]:
    """host -> its PUs in the order of its ranks."""
    out: dict[str, list[int]] = {}
    for c in mapping.by_rank():
        out.setdefault(c.host, []).append(c.pu)
    return out


def common_pu_list(mapping: ProcessMapping, launcher: str) -> list[int]:
    """One list of PUs whose first k entries are the PUs of the ranks of
    every node with k ranks; ValueError (one line) if there is none."""
    per_node = _per_node_pus(mapping)
    longest = max(per_node.values(), key=len)
    for host, pus in per_node.items():
        if longest[:len(pus)] != pus:
            other = next(h for h, p in per_node.items() if p is longest)
            raise ValueError(f"{launcher} binds every node from one PU list, but this mapping puts the ranks of "
                             f"{host} on PUs {','.join(map(str, pus))} and those of {other} on "
                             f"{','.join(map(str, longest))}: use --format rankfile")
    return longest


def _srun_plugin(given: str | None) -> str:
    from .._launch import SRUN_MPI_PLUGINS, srun_mpi_plugin
    if given is None:
        return srun_mpi_plugin()
    if given not in SRUN_MPI_PLUGINS:
        raise ValueError(f"the srun MPI plugin must be one of {', '.join(SRUN_MPI_PLUGINS)}, got {given!r}")
    return given


def _header(mapping: ProcessMapping, fmt: str) -> str:
    from .._version import __version__
    return f"{MARK} {__version__}: {fmt} for {mapping.nprocs} processes, {mapping.kind} code\n"


def _rankfile(mapping: ProcessMapping) -> str:
    return "".join(f"rank {c.rank}={c.host} slot={c.pu}\n" for c in mapping.by_rank())


def _listing(mapping: ProcessMapping) -> str:
    lines = [f"{MARK}: {mapping.nprocs} processes, {mapping.kind} code; {mapping.rank_rule}",
             f"{'rank':>5} {'host':<16} {'PU':>5} {'order':>6} {'weight':>9}  why"]
    lines += [f"{c.rank:>5} {shown(c.host):<16} {c.pu:>5} {c.order:>6} {c.weight:>9.3g}  {c.why()}"
              for c in mapping.by_rank()]
    return "\n".join(lines) + "\n"


def launch(mapping: ProcessMapping, fmt: str, path: str | None = None, program: str = PROGRAM,
           srun_mpi: str | None = None) -> Launch:
    """The file of launcher `fmt` (one of FORMATS) for `mapping` and the
    command line to run `program` with it, the file saved at `path`
    (default: a name for the format). `srun_mpi` is the srun MPI plugin
    (`--mpi=`; default: the one this process's MPI library needs,
    hpcbench._launch.srun_mpi_plugin). ValueError (one line) for an unknown
    format or plugin, or a mapping the launcher cannot express."""
    fmt = check_format(fmt)
    if fmt != "list":
        for c in mapping.by_rank():
            check_host_name(c.host, f"the host of rank {c.rank}")
    path = path or {"rankfile": "rankfile", "srun": "slurm.hosts", "hydra": "hydra.hosts",
                    "list": "mapping.txt"}[fmt]
    n, quoted = mapping.nprocs, shlex.quote(path)
    if fmt == "rankfile":
        return Launch(fmt, _header(mapping, fmt) + _rankfile(mapping),
                      f"mpirun -np {n} --rankfile {quoted} --mca rmaps_rank_file_physical 1 "
                      f"--use-hwthread-cpus {program}", path)
    if fmt == "srun":
        pus = ",".join(map(str, common_pu_list(mapping, "Slurm's --cpu-bind=map_cpu")))
        hosts = _header(mapping, fmt) + "".join(f"{c.host}\n" for c in mapping.by_rank())
        plugin = _srun_plugin(srun_mpi)
        return Launch(fmt, hosts, f"SLURM_HOSTFILE={quoted} srun --mpi={plugin} --ntasks={n} --distribution=arbitrary "
                                  f"--cpu-bind=map_cpu:{pus} {program}", path)
    if fmt == "hydra":
        pus = ",".join(map(str, common_pu_list(mapping, "hydra's -bind-to user:")))
        hosts = _header(mapping, fmt) + "".join(f"{h}:{k}\n" for h, k in mapping.counts().items())
        return Launch(fmt, hosts, f"mpiexec -f {quoted} -n {n} -bind-to user:{pus} {program}", path)
    return Launch(fmt, _listing(mapping), "", path)
