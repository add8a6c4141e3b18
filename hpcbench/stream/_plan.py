"""Which teams of cores the stream benchmark measures: one core, then one
of each domain hwloc says cores share (a cache shared by several cores, a
NUMA node, a package), then every core of the node.

These are the domains behind the memory benchmark's overhead groups
(docs/node.md, "Memory-access overhead"): cores of one shared cache or
NUMA node contend for the same path to memory, so the bandwidth of one such
group, next to one core and the whole node, says where it saturates. Each
team is the cores of the domain that holds the first core; a domain whose
team has as many cores as an earlier one adds nothing and is left out.

A team has one PU per core (the first listed PU of each core), as STREAM is
run with one thread per core.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._errors import OptionError
from ..topology import Topology
from ..topology._pairs import spread_order


@dataclass(frozen=True)
class Team:
    """One core count of the plan: its name ("one core", "one L3", "one NUMA
    node", "one package", "node") and its PUs."""
    group: str
    pus: tuple


def check_cores(topology: Topology, pus: Sequence[int] | None) -> list:
    """The PUs to use: every PU this process may use if None; else PU OS
    indexes hwloc knows, none twice, at least one (OptionError "cores")."""
    allowed = set(topology.pu_indexes)
    chosen = sorted(allowed) if pus is None else list(pus)
    for p in chosen:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise OptionError("cores", f"must be PU OS indexes (integers), got {p!r}")
        if p not in allowed:
            raise OptionError("cores", f"must be PUs this process may use ({len(allowed)} of them); {p} is not one")
    if len(set(chosen)) != len(chosen):
        raise OptionError("cores", "must not list a PU twice")
    if not chosen:
        raise OptionError("cores", "must hold at least one PU")
    return [int(p) for p in chosen]


def one_per_core(topology: Topology, pus: Sequence[int]) -> list:
    """The first of `pus` (in their order) on each hwloc core; PUs hwloc
    places on no core count as cores of their own."""
    seen: set = set()
    out = []
    for p in pus:
        core = next((i for i, c in enumerate(topology.cores) if p in c.pus), ("pu", p))
        if core not in seen:
            seen.add(core)
            out.append(p)
    return out


def _domains(topology: Topology) -> list:
    """(name, PUs) of every domain several cores may share, smallest kind first."""
    caches = sorted((c for c in topology.caches if c.kind != "instruction"), key=lambda c: c.level)
    out = [(f"one L{c.level}", set(c.pus)) for c in caches]
    out += [("one NUMA node", set(n.pus)) for n in topology.numa_nodes]
    out += [("one package", set(p.pus)) for p in topology.packages]
    return out


def plan_teams(topology: Topology, pus: Sequence[int] | None = None) -> list[Team]:
    """The teams to measure, by growing size: one core, the cores of each
    domain holding the first core (when it is more cores than the team
    before and fewer than all), and all cores, spread over packages first."""
    cores = one_per_core(topology, check_cores(topology, pus))
    first = cores[0]
    teams = [Team("one core", (first,))]
    for name, domain in _domains(topology):
        if first not in domain:
            continue
        members = tuple(p for p in cores if p in domain)
        if len(teams[-1].pus) < len(members) < len(cores):
            teams.append(Team(name, members))
    if len(cores) > 1:
        teams.append(Team("node", tuple(spread_order(topology, cores))))
    return teams
