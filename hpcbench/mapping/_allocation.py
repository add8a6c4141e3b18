"""Whether a mapping fits the Slurm allocation it is written in.

`map --format srun` run inside an allocation (salloc, sbatch: SLURM_JOB_ID
is set) writes a line meant for that allocation. A mapping that needs more
tasks on a node than the node has CPUs in the allocation, or a node the
allocation does not hold, would make srun fail later with "More processors
requested than permitted" or "Requested node configuration is not
available"; map says so at once, in one line, and writes nothing.

Slurm describes the allocation in the environment: SLURM_JOB_NODELIST in
its compressed host-list form ("node[01-04,07],login1") and
SLURM_JOB_CPUS_PER_NODE as counts with repeats ("36(x2),18"), both in the
order of the nodes.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ._result import ProcessMapping

__all__ = ["SlurmAllocation", "check_fits_allocation", "expand_hostlist", "slurm_allocation"]

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")
_COUNT = re.compile(r"^(\d+)(?:\(x(\d+)\))?$")
#: More names than any cluster has: a host list that expands beyond this is refused, not built.
MAX_HOSTS = 1 << 20


@dataclass(frozen=True)
class SlurmAllocation:
    """A job's nodes and the CPUs it holds on each, in Slurm's node order."""
    job: str
    cpus: dict[str, int]


def _split_top(text: str) -> list[str]:
    """`text` split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced ']' in the host list {text!r}")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"unbalanced '[' in the host list {text!r}")
    parts.append(text[start:])
    return parts


def _numbers(spec: str, text: str) -> list[str]:
    """The numbers of one bracket ("01-03,7" -> 01, 02, 03, 7), zero-padded
    to the width of each range's first bound, as Slurm writes them."""
    out: list[str] = []
    for item in spec.split(","):
        m = _RANGE.match(item)
        if not m:
            raise ValueError(f"bad range {item!r} in the host list {text!r}")
        first, last = int(m.group(1)), int(m.group(2) or m.group(1))
        if last < first or len(out) + last - first >= MAX_HOSTS:
            raise ValueError(f"bad range {item!r} in the host list {text!r}")
        width = len(m.group(1))
        out.extend(str(n).zfill(width) for n in range(first, last + 1))
    return out


def _expand_one(item: str, text: str) -> list[str]:
    """One entry of a host list, its brackets expanded left to right."""
    open_at = item.find("[")
    if open_at < 0:
        return [item]
    close_at = item.find("]", open_at)
    head, spec, tail = item[:open_at], item[open_at + 1:close_at], item[close_at + 1:]
    rests, numbers = _expand_one(tail, text), _numbers(spec, text)
    if len(numbers) * len(rests) > MAX_HOSTS:        # checked before the names are built
        raise ValueError(f"the host list {text!r} names more than {MAX_HOSTS} hosts")
    return [f"{head}{n}{rest}" for n in numbers for rest in rests]


def expand_hostlist(text: str) -> list[str]:
    """Slurm's compressed host list as names: "n[1-3],gpu[01-02]-ib" ->
    n1, n2, n3, gpu01-ib, gpu02-ib. ValueError (one line) when malformed."""
    names: list[str] = []
    for item in _split_top(text.strip()):
        if not item:
            raise ValueError(f"empty entry in the host list {text!r}")
        names.extend(_expand_one(item, text))
    return names


def _cpu_counts(text: str, nodes: int) -> list[int]:
    """SLURM_JOB_CPUS_PER_NODE ("36(x2),18") as one count per node."""
    counts: list[int] = []
    for item in text.strip().split(","):
        m = _COUNT.match(item.strip())
        if not m:
            raise ValueError(f"bad SLURM_JOB_CPUS_PER_NODE entry {item!r} in {text!r}")
        counts.extend([int(m.group(1))] * int(m.group(2) or 1))
    if len(counts) != nodes:
        raise ValueError(f"SLURM_JOB_CPUS_PER_NODE={text!r} gives {len(counts)} node(s), "
                         f"SLURM_JOB_NODELIST {nodes}")
    return counts


def slurm_allocation(environ: Mapping[str, str]) -> SlurmAllocation | None:
    """The allocation this process runs in, from Slurm's variables; None
    outside one (no SLURM_JOB_ID, or Slurm left out the node or CPU lists)."""
    job = environ.get("SLURM_JOB_ID")
    nodelist, cpus = environ.get("SLURM_JOB_NODELIST"), environ.get("SLURM_JOB_CPUS_PER_NODE")
    if not job or not nodelist or not cpus:
        return None
    nodes = expand_hostlist(nodelist)
    return SlurmAllocation(job, dict(zip(nodes, _cpu_counts(cpus, len(nodes)), strict=True)))


def check_fits_allocation(mapping: ProcessMapping, allocation: SlurmAllocation) -> None:
    """ValueError (one line) when `mapping` puts a rank on a node outside
    `allocation`, or more ranks on a node than it holds CPUs there."""
    where = f"Slurm job {allocation.job}"
    for host, ranks in mapping.counts().items():
        have = allocation.cpus.get(host)
        if have is None:
            held = ", ".join(allocation.cpus)
            raise ValueError(f"the mapping places {ranks} rank(s) on {host}, which {where} does not hold "
                             f"(it holds {held}): map with --hosts naming the allocation's nodes")
        if ranks > have:
            raise ValueError(f"the mapping places {ranks} ranks on {host} but {where} holds {have} CPU(s) there "
                             f"({mapping.nprocs} ranks in all, {sum(allocation.cpus.values())} CPUs): "
                             f"map fewer processes (-n) or ask Slurm for more CPUs (salloc/sbatch -n)")
