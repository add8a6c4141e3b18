"""The topology of a machine, from hwloc: this one, an XML file, or a
synthetic description. hwloc is the single source; nothing here reads /proc
or /sys."""
from __future__ import annotations

import os
from dataclasses import dataclass

from .. import _core

#: The largest hwloc XML file read (a large node's lstopo XML is a few MiB).
MAX_XML_BYTES = 256 << 20



@dataclass(frozen=True)
class Cache:
    level: int
    kind: str                 #: "unified", "data" or "instruction"
    size: int                 #: bytes
    line_size: int            #: bytes (0 if unknown)
    associativity: int        #: ways; -1 fully associative, 0 unknown
    pus: tuple                #: OS indexes of the PUs that share it


@dataclass(frozen=True)
class NumaNode:
    os_index: int
    memory: int               #: bytes local to this node
    pus: tuple


@dataclass(frozen=True)
class Obj:
    type: str
    os_index: object
    logical_index: int
    pus: tuple


class Topology:
    """PUs, cores, packages, NUMA nodes and caches of one machine."""

    def __init__(self, description: dict, source: str):
        self.source = source
        self.hwloc_version = description["hwloc_version"]
        self.is_this_system = description["is_this_system"]
        self.infos = description["infos"]
        self._objects = description["objects"]
        by_type: dict = {}
        for o in self._objects:
            by_type.setdefault(o["type"], []).append(o)
        self._by_type = by_type
        self.pus = [Obj("PU", o["os_index"], o["logical_index"], tuple(o["cpuset"])) for o in by_type.get("PU", [])]
        self.cores = [self._obj(o) for o in by_type.get("Core", [])]
        self.packages = [self._obj(o) for o in by_type.get("Package", [])]
        self.numa_nodes = [NumaNode(o["os_index"], o.get("local_memory", 0), tuple(o["cpuset"]))
                           for o in by_type.get("NUMANode", [])]
        self.caches = sorted(
            (Cache(o["cache_level"], o["cache_type"], o["cache_size"], o["cache_linesize"],
                   o["cache_associativity"], tuple(o["cpuset"]))
             for o in self._objects if "cache_level" in o),
            key=lambda c: (c.level, c.kind, c.pus))

    @staticmethod
    def _obj(o):
        return Obj(o["type"], o["os_index"], o["logical_index"], tuple(o["cpuset"]))

    @classmethod
    def load(cls) -> Topology:
        """This machine's topology."""
        return cls(_core.topology_describe(_core.TOPO_THIS_MACHINE), "this machine")

    @classmethod
    def from_xml(cls, path: str) -> Topology:
        """A topology saved by `lstopo file.xml` (hwloc XML); ValueError (one
        line) unless `path` is a regular file of at most MAX_XML_BYTES (a FIFO
        or a device would make hwloc wait or read without end)."""
        from .._files import read_file
        read_file(os.fspath(path), "topology XML file", MAX_XML_BYTES)
        return cls(_core.topology_describe(_core.TOPO_XML_FILE, os.fspath(path)), f"xml:{path}")

    @classmethod
    def from_synthetic(cls, description: str) -> Topology:
        """An hwloc synthetic topology, e.g. 'pack:2 l3:1(size=12MiB) core:6 pu:1'."""
        if not isinstance(description, str) or not description.strip():
            raise ValueError("a synthetic topology description must be a non-empty string")
        return cls(_core.topology_describe(_core.TOPO_SYNTHETIC, description), f"synthetic:{description}")

    @property
    def pu_indexes(self) -> list:
        return [p.os_index for p in self.pus]

    @property
    def cpu_model(self) -> str:
        for o in self._by_type.get("Package", []):
            if "CPUModel" in o["infos"]:
                return o["infos"]["CPUModel"]
        return self.infos.get("CPUModel", "unknown")

    def data_caches_of(self, pu: int) -> list:
        """Data and unified caches that serve `pu`, by level (one per level)."""
        out: dict = {}
        for c in self.caches:
            if c.kind != "instruction" and pu in c.pus:
                out.setdefault(c.level, c)
        return [out[k] for k in sorted(out)]

    def summary(self) -> dict:
        """Plain data for results files."""
        return {
            "source": self.source,
            "hwloc_version": self.hwloc_version,
            "cpu_model": self.cpu_model,
            "packages": len(self.packages),
            "cores": len(self.cores),
            "pus": len(self.pus),
            "numa_nodes": [{"os_index": n.os_index, "memory": n.memory, "pus": list(n.pus)} for n in self.numa_nodes],
            "caches": [{"level": c.level, "kind": c.kind, "size": c.size, "line_size": c.line_size,
                        "associativity": c.associativity, "pus": list(c.pus)} for c in self.caches],
            # Which PUs each package and core holds, PUs in hwloc's logical
            # order: what a reader of the file (hpcbench.mapping) needs to
            # rebuild the tree without hwloc.
            "pu_order": [p.os_index for p in self.pus],
            "package_pus": [list(o.pus) for o in self.packages],
            "core_pus": [list(o.pus) for o in self.cores],
        }

    def __repr__(self):
        return (f"Topology({self.source!r}: {len(self.packages)} packages, {len(self.cores)} cores, "
                f"{len(self.pus)} PUs, {len(self.caches)} caches)")
