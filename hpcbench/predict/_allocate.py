"""Where MPI ranks go on a machine of alike nodes (Hammond et al. 2009,
section 7), as a Placement the simulator costs messages with:

* round robin: loop over all the machine's nodes giving each the next rank,
  so rank r is on node r mod nodes; each pass round the nodes takes the
  next free core of every node (cores in order: package 0's, then
  package 1's, ...);
* node fill: fill each node completely in turn: ranks 0..c-1 on node 0,
  c = cores per node (a dual-core dual-processor node: ranks 0-3);
* processor fill: each pass round the nodes gives every node the cores of
  one processor: on dual-core dual-processor nodes ranks 0 and 1 on node
  0's first processor, 2 and 3 on node 1's, ..., then every node's second
  processor on the next pass.

Cores of a processor (package) share its cache (the paper's on-chip class,
the Xeon 5160's shared L2), so a placement's cache group is its package.
Also: `placement_from_mapping`, the ranks of an `hpcbench map` mapping.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._errors import PredictError
from ._placement import Placement

__all__ = ["STRATEGIES", "Machine", "allocate", "placement_from_mapping"]

#: The allocation strategies of section 7.
STRATEGIES = ("round-robin", "node-fill", "processor-fill")


@dataclass(frozen=True)
class Machine:
    """Alike nodes of packages (processors) of cores."""

    nodes: int
    packages_per_node: int = 1
    cores_per_package: int = 1

    def __post_init__(self) -> None:
        for name in ("nodes", "packages_per_node", "cores_per_package"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not 1 <= value <= 2 ** 31:
                raise PredictError(f"{name} must be a positive whole number up to 2**31, got {value!r}")

    @property
    def cores_per_node(self) -> int:
        return self.packages_per_node * self.cores_per_package

    @property
    def cores(self) -> int:
        return self.nodes * self.cores_per_node

    def __str__(self) -> str:
        return f"{self.nodes}x{self.packages_per_node}x{self.cores_per_package}"

    @classmethod
    def parse(cls, text: str) -> Machine:
        """'NODESxPACKAGESxCORES' (cores per package), e.g. '240x2x2' for
        Francesca; 'NODESxCORES' for one package per node."""
        parts = str(text).strip().lower().split("x")
        try:
            values = [int(p) for p in parts]
        except ValueError:
            values = []
        if len(values) not in (2, 3) or min(values) < 1 or max(values) > 2 ** 31:
            raise PredictError("a machine is NODESxPACKAGESxCORES (cores per package) or NODESxCORES, "
                               f"positive whole numbers up to 2**31, got {str(text)[:40]!r}")
        if len(values) == 2:
            values = [values[0], 1, values[1]]
        return cls(values[0], values[1], values[2])

    @classmethod
    def from_results(cls, results: Any) -> Machine:
        """The machine a results file (path or hpcbench.Results) ran on: its
        hosts, and packages and cores from the recorded hwloc topology
        (nodes taken to be alike)."""
        from .._results import Results, load
        data = results if isinstance(results, Results) else load(str(results))
        where = data.path or "these results"
        hosts = list(getattr(data.context, "hosts", None) or [])
        topo = getattr(data.context, "topology", None) or {}
        packages = int(topo.get("packages") or 0) if isinstance(topo, dict) else 0
        cores = int(topo.get("cores") or 0) if isinstance(topo, dict) else 0
        if not hosts or packages < 1 or cores < packages:
            raise PredictError(f"{where} records no hosts or no topology (packages, cores) to describe the "
                               "machine: give it as NODESxPACKAGESxCORES")
        if cores % packages:
            raise PredictError(f"{where}: {cores} cores do not split evenly over {packages} packages; give the "
                               "machine as NODESxPACKAGESxCORES")
        return cls(len(hosts), packages, cores // packages)


def allocate(nranks: int, machine: Machine, strategy: str) -> Placement:
    """The placement of ranks 0..nranks-1 on `machine` by `strategy`, one of
    STRATEGIES (see the module docstring)."""
    if strategy not in STRATEGIES:
        raise PredictError(f"unknown allocation strategy {strategy!r}: one of {', '.join(STRATEGIES)}")
    if int(nranks) != nranks or nranks < 1:
        raise PredictError(f"nranks must be a positive whole number, got {nranks!r}")
    if nranks > machine.cores:
        raise PredictError(f"{nranks} ranks do not fit the {machine.cores} cores of the {machine} machine "
                           "(nodes x packages x cores)")
    r = np.arange(int(nranks), dtype=np.int64)
    c, cpp, nodes = machine.cores_per_node, machine.cores_per_package, machine.nodes
    if strategy == "round-robin":
        node, core = r % nodes, r // nodes           # core: the node's k-th core, k = the pass
    elif strategy == "node-fill":
        node, core = r // c, r % c
    else:                                            # processor fill: blocks of one processor's cores
        block = r // cpp
        node = block % nodes
        core = (block // nodes) * cpp + r % cpp      # the pass picks the package
    package = node * machine.packages_per_node + core // cpp
    return Placement(node=node, package=package, cache=package.copy(), bound=np.ones(r.size, dtype=bool),
                     source=f"{strategy} allocation on {machine} (nodes x packages x cores)")


def placement_from_mapping(mapping: Any) -> Placement:
    """The placement of an hpcbench.mapping.map_processes result: every
    rank's host and PU, with package and last-level cache from the node's
    levels when the mapping has them. A node whose levels name no package
    (or no cache) gets its ranks' packages (caches) as unknown: they are
    then not bound in the placement's sense (class "same node"), and the
    placement's source says so."""
    choices = sorted(mapping.choices, key=lambda ch: ch.rank)
    if not choices:
        raise PredictError("the mapping has no choices (no ranks)")
    ranks = [int(ch.rank) for ch in choices]
    if ranks != list(range(len(ranks))):
        raise PredictError("the mapping's ranks are not 0..n-1, each once")
    hosts = sorted({ch.host for ch in choices}, key=[ch.host for ch in choices].index)
    by_host = {n.host: n for n in mapping.nodes}
    node = np.array([hosts.index(ch.host) for ch in choices], dtype=np.int64)
    package = np.zeros(len(choices), dtype=np.int64)
    cache = np.zeros(len(choices), dtype=np.int64)
    bound = np.ones(len(choices), dtype=bool)
    unknown: set[str] = set()
    for k, ch in enumerate(choices):
        levels = by_host[ch.host].levels if ch.host in by_host else []
        pkg = _group_of(levels, ch.pu, lambda name: "package" in name.split("/"))
        llc = _group_of(levels, ch.pu, _is_last_cache(levels))
        if pkg is None or llc is None:
            unknown.add(ch.host)
            bound[k] = False
            continue
        package[k], cache[k] = pkg, llc
    # Ids unique across nodes: node-major, the group's index within its node.
    package += node * (int(package.max()) + 1)
    cache += node * (int(cache.max()) + 1)
    note = f" (packages or caches unknown on {', '.join(sorted(unknown))}: their ranks count as unbound)" \
        if unknown else ""
    return Placement(node=node, package=package, cache=cache, bound=bound, hosts=tuple(hosts),
                     source=f"hpcbench map ({getattr(mapping, 'kind', '?')} mapping of {len(choices)} ranks){note}")


def _is_last_cache(levels: Sequence[Any]) -> Callable[[str], bool]:
    """A test for the name of the node's last cache level (highest L<k>)."""
    found = [int(tok[1:]) for lv in levels for tok in lv.name.split("/")
             if tok.startswith("L") and tok[1:].isdigit()]
    top = f"L{max(found)}" if found else None
    return lambda name: top is not None and top in name.split("/")


def _group_of(levels: Sequence[Any], pu: int, wanted: Callable[[str], bool]) -> int | None:
    """The index of the group holding `pu` at the first level whose name
    `wanted` accepts, or None."""
    for lv in levels:
        if wanted(lv.name):
            for g, group in enumerate(lv.groups):
                if int(pu) in group:
                    return g
            return None
    return None
