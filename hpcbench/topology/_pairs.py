"""Which pairs of cores a node benchmark tests, and what hwloc says about them.

Servet's shared-cache and memory-overhead benchmarks compare a core running
alone with two cores running at once, for every pair (O(P^2) pair tests).
The `auto` mode tests instead one representative pair for every distinct
*relation* hwloc reports between two PUs (same core, which cache levels they
share, same NUMA node, same package) plus a random sample of further pairs,
and extends each representative's verdict to the pairs of its relation. The
sample is what catches hwloc being wrong: a sampled pair whose verdict
differs from its relation's representative is reported.

"Cores" here are PUs (the OS's logical CPUs), as in Servet: two hardware
threads of one core are a pair like any other, with relation "same core".
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .._errors import OptionError, Skipped
from .._record import Count, Mapping, One, Pair
from ._hwloc import Topology

PAIR_MODES = ("auto", "all")
#: Extra random pairs the auto mode tests beyond one per relation.
DEFAULT_SAMPLE = 8
#: More extra pairs than this is no longer a sample (every pair: --*-pairs all).
MAX_SAMPLE = 10000


#: The largest PU OS index a list may name (hwloc's cpusets, machines of today).
MAX_PU_INDEX = (1 << 20) - 1
#: PUs a list may hold: a team's limit.
MAX_PUS = 65536


def parse_pu_list(text: str) -> list:
    """'0-3,8,10-11' -> [0, 1, 2, 3, 8, 10, 11]; ValueError on bad syntax,
    on indexes above MAX_PU_INDEX and on lists longer than MAX_PUS (checked
    before a range is expanded)."""
    out: list = []
    for part in str(text).split(","):
        part = part.strip()
        lo, sep, hi = part.partition("-")
        if not lo.isascii() or not lo.isdigit() or (sep and not (hi.isascii() and hi.isdigit())):
            raise ValueError(f"a core list is numbers and ranges like 0-3,8, got {text!r}")
        first, last = int(lo), int(hi) if sep else int(lo)
        if last < first:
            raise ValueError(f"a core range must not run backwards, got {part!r}")
        if last > MAX_PU_INDEX:
            raise ValueError(f"a core is a PU OS index up to {MAX_PU_INDEX}, got {last}")
        if len(out) + last - first + 1 > MAX_PUS:
            raise ValueError(f"a core list holds at most {MAX_PUS} PUs, got more in {text!r}")
        out.extend(range(first, last + 1))
    return out


def check_pus(topology: Topology, pus: Sequence[int] | None) -> list:
    """Validate the PUs to test: known to hwloc (which lists only the PUs this
    process may use), no duplicates, at least two. Returns them sorted."""
    allowed = set(topology.pu_indexes)
    if pus is None:
        pus = sorted(allowed)
    pus = list(pus)
    for p in pus:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise OptionError("cores", f"must be PU OS indexes (integers), got {p!r}")
        if p not in allowed:
            raise OptionError("cores", f"must be PUs this process may use ({_ranges(sorted(allowed))}); "
                                       f"{p} is not one")
    seen = set()
    for p in pus:
        if p in seen:
            raise OptionError("cores", f"must not list a PU twice; {p} is listed twice")
        seen.add(p)
    if len(pus) < 2:
        raise OptionError("cores", f"must hold at least two PUs for pair tests, got {len(pus)} "
                                   f"({_ranges(sorted(pus))})")
    return sorted(int(p) for p in pus)


def _ranges(values) -> str:
    parts: list = []
    run: list = []
    for v in values:
        if run and v == run[-1] + 1:
            run.append(v)
        else:
            if run:
                parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
            run = [v]
    if run:
        parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ",".join(parts) or "none"


def relation(topology: Topology, a: int, b: int) -> tuple:
    """What hwloc says PUs a and b share, as a hashable key such as
    ('core', 'L1', 'L2', 'L3', 'numa', 'package'); () if nothing."""
    shared = []
    if any(a in c.pus and b in c.pus for c in topology.cores):
        shared.append("core")
    levels = sorted({c.level for c in topology.caches
                     if c.kind != "instruction" and a in c.pus and b in c.pus})
    shared.extend(f"L{lv}" for lv in levels)
    if any(a in n.pus and b in n.pus for n in topology.numa_nodes):
        shared.append("numa")
    if any(a in p.pus and b in p.pus for p in topology.packages):
        shared.append("package")
    return tuple(shared)


def hwloc_shares_cache(topology: Topology, a: int, b: int, level: int) -> bool:
    """True if hwloc reports one data/unified cache of `level` serving both."""
    return any(c.level == level and c.kind != "instruction" and a in c.pus and b in c.pus
               for c in topology.caches)


@dataclass
class PairPlan:
    """The pairs to measure and how the untested ones are inferred."""
    mode: str
    pus: list
    tested: list                       #: pairs (a, b), a < b, in measuring order
    relation_of: dict                  #: every pair of pus -> relation key
    representative: dict               #: relation key -> its representative pair
    sampled: list = field(default_factory=list)  #: tested pairs beyond the representatives

    @property
    def all_pairs(self) -> list:
        return list(itertools.combinations(self.pus, 2))

    def to_record(self) -> PlanRecord:
        return PlanRecord(mode=self.mode, pus=list(self.pus), tested=[list(p) for p in self.tested],
                          sampled=[list(p) for p in self.sampled], all_pairs=len(self.all_pairs),
                          relations=[RelationRecord(relation=list(k), representative=list(p),
                                                    pairs=sum(1 for v in self.relation_of.values() if v == k))
                                     for k, p in self.representative.items()])


@dataclass(kw_only=True)
class RelationRecord(Mapping):
    """One hwloc relation of a plan: its representative pair and how many pairs have it."""
    relation: list[str]
    representative: Pair
    pairs: One


@dataclass(kw_only=True)
class PlanRecord(Mapping):
    """Which pairs a pair benchmark tested, as a results file keeps it."""
    mode: str
    pus: list[int]
    tested: list[Pair]
    sampled: list[Pair]
    all_pairs: Count
    relations: list[RelationRecord]


def require_two_pus(topology: Topology, pus: Sequence[int] | None) -> None:
    """A pair benchmark on a machine (or process) with one PU has nothing to
    measure: skip it with a reason instead of failing the run."""
    if pus is None and len(topology.pu_indexes) < 2:
        raise Skipped(f"pair tests need two cores; this process may use one ({_ranges(topology.pu_indexes)})")


def plan_pairs(topology: Topology, pus: Sequence[int] | None = None, mode: str = "auto",
               sample: int = DEFAULT_SAMPLE, seed: int = 1) -> PairPlan:
    """Choose the pairs to test. mode 'all': every pair (Servet's O(P^2)).
    mode 'auto': the first pair of each relation plus `sample` random others."""
    if mode not in PAIR_MODES:
        raise OptionError("pairs", f"must be auto or all, got {mode!r}")
    if isinstance(sample, bool) or not isinstance(sample, (int, np.integer)) or sample < 0:
        raise OptionError("sample", f"must be a non-negative integer, got {sample!r}")
    pus = check_pus(topology, pus)
    pairs = list(itertools.combinations(pus, 2))
    relation_of = {p: relation(topology, *p) for p in pairs}
    representative: dict = {}
    for p in pairs:
        representative.setdefault(relation_of[p], p)
    if mode == "all":
        return PairPlan(mode, pus, pairs, relation_of, representative)
    chosen = list(representative.values())
    rest = [p for p in pairs if p not in set(chosen)]
    rng = np.random.default_rng(seed)
    extra = [rest[i] for i in sorted(rng.choice(len(rest), size=min(sample, len(rest)), replace=False))] \
        if rest else []
    return PairPlan(mode, pus, chosen + extra, relation_of, representative, extra)


def components(pairs: Iterable[tuple], nodes: Iterable[int] = ()) -> list:
    """Connected components of the graph with these edges: the groups of
    cores. Isolated `nodes` come out as single-core groups. Sorted lists."""
    parent: dict = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for n in nodes:
        find(n)
    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict = {}
    for x in parent:
        groups.setdefault(find(x), []).append(x)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: g[0])


def spread_order(topology: Topology, pus: Sequence[int]) -> list:
    """PUs ordered so that the first k are spread over packages, then NUMA
    nodes, then cores (one per package first, as Servet 3.0 asks), for
    scalability runs over the whole node."""
    def key(p):
        pkg = next((i for i, o in enumerate(topology.packages) if p in o.pus), 0)
        numa = next((i for i, o in enumerate(topology.numa_nodes) if p in o.pus), 0)
        core = next((i for i, o in enumerate(topology.cores) if p in o.pus), p)
        return pkg, numa, core, p

    by_package: dict = {}
    for p in sorted(pus, key=key):
        by_package.setdefault(key(p)[0], []).append(p)
    queues = list(by_package.values())
    out = []
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out

