"""Where every rank runs, as much as the model needs: its node, its package
and its cache group (the cores that share its last-level cache), and
whether it is bound to one PU. The placement decides the class of every
pair of ranks (_classes), hence which region of the profile a message pays.

A placement comes from the running job (`from_job`: host names and hwloc,
gathered over the communicator), from an allocation strategy on a machine
description (hpcbench.predict.allocate), from an `hpcbench map` mapping, or
is written by hand (`Placement.uniform` for "everything of one class").
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._classes import CLASSES, OTHER_NODE, OTHER_PACKAGE, SAME_CACHE, SAME_NODE, SAME_PACKAGE
from ._errors import PredictError


@dataclass(frozen=True, eq=False)
class Placement:
    """One entry per rank. node, package and cache are ids unique across
    the machine (two ranks share a package iff their package ids are
    equal); bound is False for a rank not bound to one PU, whose package and
    cache are then unknown. `hosts` names the nodes (optional)."""

    node: np.ndarray
    package: np.ndarray
    cache: np.ndarray
    bound: np.ndarray
    hosts: tuple[str, ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        n = np.asarray(self.node).size
        for name in ("package", "cache", "bound"):
            if np.asarray(getattr(self, name)).size != n:
                raise PredictError(f"a placement needs one {name} per rank ({n} ranks)")
        if n < 1:
            raise PredictError("a placement needs at least one rank")

    @property
    def nranks(self) -> int:
        return int(np.asarray(self.node).size)

    def pair_class(self, a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Class index (position in _classes.CLASSES) of every pair (a[k],
        b[k]); a and b are rank arrays (or single ranks)."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= self.nranks):
            raise PredictError(f"a rank outside this placement of {self.nranks} ranks")
        node, package, cache, bound = (np.asarray(v) for v in (self.node, self.package, self.cache, self.bound))
        out = np.full(np.broadcast(a, b).shape, CLASSES.index(OTHER_PACKAGE), dtype=np.int8)
        out[package[a] == package[b]] = CLASSES.index(SAME_PACKAGE)
        out[cache[a] == cache[b]] = CLASSES.index(SAME_CACHE)
        out[~(bound[a] & bound[b])] = CLASSES.index(SAME_NODE)
        out[node[a] != node[b]] = CLASSES.index(OTHER_NODE)
        return out

    def class_name(self, a: int, b: int) -> str:
        return CLASSES[int(self.pair_class(a, b))]

    def classes_of(self, pairs: np.ndarray) -> set[str]:
        """The class names of an (k, 2) array of pairs."""
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        return {CLASSES[int(k)] for k in np.unique(self.pair_class(pairs[:, 0], pairs[:, 1]))}

    def ranks_per_node(self) -> np.ndarray:
        """How many ranks share each rank's node (one value per rank)."""
        _, inverse, counts = np.unique(np.asarray(self.node), return_inverse=True, return_counts=True)
        return counts[inverse]

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "hosts": list(self.hosts),
                "node": np.asarray(self.node).tolist(), "package": np.asarray(self.package).tolist(),
                "cache": np.asarray(self.cache).tolist(), "bound": np.asarray(self.bound).astype(bool).tolist()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Placement:
        try:
            return cls(node=np.asarray(data["node"], dtype=np.int64),
                       package=np.asarray(data["package"], dtype=np.int64),
                       cache=np.asarray(data["cache"], dtype=np.int64),
                       bound=np.asarray(data["bound"], dtype=bool),
                       hosts=tuple(data.get("hosts", ())), source=str(data.get("source", "")))
        except (KeyError, TypeError, ValueError) as e:
            raise PredictError(f"a placement needs node, package, cache and bound lists: {e}") from None

    @classmethod
    def uniform(cls, nranks: int, klass: str) -> Placement:
        """Every pair of ranks in class `klass` (what Figure 3a's
        "homogeneous network" assumes, with "other node")."""
        if nranks < 1:
            raise PredictError(f"a placement needs at least one rank, got {nranks}")
        r = np.arange(nranks, dtype=np.int64)
        zero = np.zeros(nranks, dtype=np.int64)
        if klass == OTHER_NODE:
            return cls(r, r, r, np.ones(nranks, bool), source="every pair on other nodes")
        if klass == OTHER_PACKAGE:
            return cls(zero, r, r, np.ones(nranks, bool), source="every pair on other packages")
        if klass == SAME_PACKAGE:
            return cls(zero, zero, r, np.ones(nranks, bool), source="every pair in one package")
        if klass == SAME_CACHE:
            return cls(zero, zero, zero, np.ones(nranks, bool), source="every pair sharing a cache")
        if klass == SAME_NODE:
            return cls(zero, zero, zero, np.zeros(nranks, bool), source="one node, ranks not bound")
        raise PredictError(f"unknown placement class {klass!r}: one of {', '.join(CLASSES)}")

    @classmethod
    def from_ranks(cls, hosts: Sequence[str], pus: Sequence[Sequence[int]], topology: Any,
                   source: str = "") -> Placement:
        """From every rank's host name and bound PUs, with the node's hwloc
        topology (nodes assumed alike, as the comm layers assume)."""
        package_of, cache_of = _groups_of_pus(topology)
        names = sorted(set(hosts), key=list(hosts).index)
        node = np.array([names.index(h) for h in hosts], dtype=np.int64)
        bound = np.array([len(p) == 1 for p in pus], dtype=bool)
        width = max(len(package_of), 1) + 1
        package = np.array([node[k] * width + (package_of.get(p[0], -1) + 1 if len(p) == 1 else 0)
                            for k, p in enumerate(pus)], dtype=np.int64)
        width = max(len(cache_of), 1) + 1
        cache = np.array([node[k] * width + (cache_of.get(p[0], -1) + 1 if len(p) == 1 else 0)
                          for k, p in enumerate(pus)], dtype=np.int64)
        return cls(node, package, cache, bound, tuple(names), source)

    @classmethod
    def from_job(cls, comm: Any) -> Placement:
        """The placement of the ranks of `comm` (collective): host names and
        PU bindings gathered, classes from this node's hwloc topology."""
        import socket

        from .. import _core
        from ..topology import Topology
        mine = (socket.gethostname(), list(_core.thread_binding()))
        everyone = comm.allgather(mine)
        return cls.from_ranks([h for h, _ in everyone], [p for _, p in everyone], Topology.load(),
                              source="the running job (host names, PU bindings, hwloc)")


def _groups_of_pus(topology: Any) -> tuple[dict[int, int], dict[int, int]]:
    """PU -> package index and PU -> last-level data cache index."""
    package_of = {pu: i for i, p in enumerate(topology.packages) for pu in p.pus}
    caches = [c for c in topology.caches if c.kind != "instruction"]
    top = max((c.level for c in caches), default=0)
    cache_of = {pu: i for i, c in enumerate(c for c in caches if c.level == top) for pu in c.pus}
    return package_of, cache_of
