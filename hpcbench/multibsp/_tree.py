"""The MultiBSP tree of a node, from its hwloc topology (MBSPDiscover, done
on hwloc 2).

Memories are what define components: every data or unified cache and every
NUMA node's memory, plus the whole machine. Memories that serve exactly the
same PUs form one component (a die's L3 and its NUMA node, say). Each
component's parent is the smallest component that strictly contains its
PUs, and its children are the components and PUs directly below it. A
component with a single child (a core's private L1 and L2) collapses into
that child. NUMA nodes are memories in hwloc 2 (memory children, with the
cpuset of their locality), never processors; memory-only NUMA nodes (a KNL's
MCDRAM) are simply more memory at their level. Leaves are PUs (processors);
two hardware threads of one core are two processors sharing the core's
caches, a level of their own.

A component's memory m is the smallest cache it has (the memory its
children's h-communications go through); without a cache, the sum of its
NUMA nodes' memory (for the machine: all of RAM). Every memory is listed in
`.memories`. Levels are bottom up by height (a leaf has height 0): level i
holds the components whose deepest child has height i - 1. Components of
one level need not have the same shape (hybrid machines); a level then
reports per-component values instead of one.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .._format import format_size
from ..topology import Topology
from ._records import TreeComponent, TreeLevel


@dataclass
class Component:
    pus: tuple                          #: OS indexes, sorted
    m: int                              #: bytes of the memory its children share
    memories: list                      #: (kind, bytes), e.g. ("L3", 5000000), ("NUMA", 8000000000)
    children: list = field(default_factory=list)   #: Components or PU indexes (ints)
    height: int = 0

    @property
    def p(self) -> int:
        return len(self.children)

    @property
    def child_pus(self) -> list:
        """The first PU of each child: where the benchmark pins one thread per child."""
        return [c if isinstance(c, int) else c.pus[0] for c in self.children]

    def to_record(self) -> TreeComponent:
        return TreeComponent(p=self.p, m=self.m, pus=list(self.pus), memories=[list(x) for x in self.memories],
                             children=[c if isinstance(c, int) else list(c.pus) for c in self.children])


@dataclass
class Level:
    index: int                          #: 1 = just above the processors
    components: list

    @property
    def homogeneous(self) -> bool:
        return len({(c.p, c.m) for c in self.components}) == 1

    @property
    def p(self) -> int | tuple:
        """The number of children, or a tuple of per-component values if they differ."""
        values = [c.p for c in self.components]
        return values[0] if len(set(values)) == 1 else tuple(values)

    @property
    def m(self) -> int | tuple:
        """Bytes of shared memory, or a tuple of per-component values if they differ."""
        values = [c.m for c in self.components]
        return values[0] if len(set(values)) == 1 else tuple(values)

    @property
    def pus(self) -> list:
        return [list(c.pus) for c in self.components]

    def to_record(self) -> TreeLevel:
        return TreeLevel(level=self.index, p=plain_value(self.p), m=plain_value(self.m), homogeneous=self.homogeneous,
                         components=[c.to_record() for c in self.components])

    def __repr__(self):
        return f"Level({self.index}: p={self.p}, m={self.m}, {len(self.components)} component(s))"


def plain_value(value: int | tuple) -> int | list[int]:
    """A level's p or m as a record keeps it: one int, or a list of them."""
    return value if isinstance(value, int) else list(value)


def _memories(topology) -> dict:
    """cpuset -> list of (kind, bytes, is_cache)."""
    groups: dict = {}
    for c in topology.caches:
        if c.kind != "instruction" and c.size > 0:
            groups.setdefault(tuple(sorted(c.pus)), []).append((f"L{c.level}", int(c.size), True))
    for n in topology.numa_nodes:
        if n.pus:
            groups.setdefault(tuple(sorted(n.pus)), []).append(("NUMA", int(n.memory), False))
    everything = tuple(sorted(topology.pu_indexes))
    if everything not in groups or not any(not cache for _, _, cache in groups[everything]):
        total = sum(int(n.memory) for n in topology.numa_nodes)
        groups.setdefault(everything, []).append(("machine memory", total, False))
    return groups


def _component(pus, memories) -> Component:
    caches = [size for _, size, cache in memories if cache]
    m = min(caches) if caches else sum(size for _, size, cache in memories if not cache)
    return Component(pus, m, sorted(((kind, size) for kind, size, _ in memories), key=lambda x: x[1]))


def tree(topology: Topology) -> list[Level]:
    """The MultiBSP levels of `topology`, bottom up: each with .p, .m (bytes)
    and .pus (the PU sets of its components)."""
    pus = sorted(topology.pu_indexes)
    if len(pus) < 2:
        raise ValueError(f"a MultiBSP tree needs at least 2 PUs, this topology has {len(pus)}: nothing to measure")
    comps = [_component(cpuset, mem) for cpuset, mem in _memories(topology).items()]
    comps.sort(key=lambda c: (len(c.pus), c.pus))
    sets = [set(c.pus) for c in comps]

    for pu in pus:
        # The smallest component holding this PU (a single-PU component's parent is found below).
        k = next(k for k in range(len(comps)) if pu in sets[k])
        comps[k].children.append(pu)
    for i, c in enumerate(comps):
        parent = next((k for k in range(i + 1, len(comps)) if sets[i] < sets[k]), None)
        if parent is not None:
            comps[parent].children.append(c)
    # Children that are PUs already inside a child component are not direct children.
    for c in comps:
        inside = {pu for ch in c.children if not isinstance(ch, int) for pu in ch.pus}
        c.children = [ch for ch in c.children if isinstance(ch, Component) or ch not in inside]

    def collapse(node):
        if isinstance(node, int):
            return node
        node.children = [collapse(ch) for ch in node.children]
        return node.children[0] if len(node.children) == 1 else node

    root = collapse(comps[-1])
    if isinstance(root, int):
        raise ValueError("the topology has no memory shared by two PUs: nothing to measure")

    def height(node):
        if isinstance(node, int):
            return 0
        node.height = 1 + max(height(ch) for ch in node.children)
        return node.height

    height(root)
    by_height: dict = {}

    def gather(node):
        if isinstance(node, int):
            return
        by_height.setdefault(node.height, []).append(node)
        for ch in node.children:
            gather(ch)

    gather(root)
    return [Level(h, sorted(by_height[h], key=lambda c: c.pus)) for h in sorted(by_height)]


def describe(levels: list[Level]) -> str:
    """The paper's notation: [<p=4, m=5 MB>, <p=8, m=64 GB>]."""
    parts = []
    for lv in levels:
        m = lv.m if isinstance(lv.m, int) else max(lv.m)
        p = lv.p if isinstance(lv.p, int) else "/".join(str(x) for x in sorted(set(lv.p)))
        parts.append(f"<p={p}, m={format_size(m)}{'' if lv.homogeneous else ' (mixed)'}>")
    return "[" + ", ".join(parts) + "]"
