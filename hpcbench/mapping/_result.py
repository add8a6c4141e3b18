"""The mapping as plain typed data (see hpcbench._record): it can be written
into a results file, read back, drawn and turned into launcher files."""
from __future__ import annotations

from dataclasses import dataclass

from .._record import Count, Mapping, One, optional


@dataclass(kw_only=True)
class RuleUpdate(Mapping):
    """One rule's share of a chosen core's weight: the sum of the changes
    it made (weight units) and how many earlier choices made them."""
    rule: str                   #: "rule 1", "rule 2", "rule 3" or "network"
    part: str                   #: the cache level, overhead level, "latency" or "ratNC"
    delta: float
    choices: One                #: earlier choices whose selection changed it


@dataclass(kw_only=True)
class Choice(Mapping):
    """One selection: the core (PU, OS index) on its node, the weight it had
    when chosen (the lowest), how many cores had that weight, the rule
    updates that made it, and the MPI rank it is given."""
    order: Count                #: 0 for the first core chosen
    rank: Count
    host: str
    node: Count                 #: index into ProcessMapping.nodes
    pu: Count
    weight: float
    tied: One                   #: cores with this lowest weight (1: no tie)
    updates: list[RuleUpdate]

    def why(self) -> str:
        """The weight and the updates behind it, in one line."""
        if not self.updates:
            return f"weight {self.weight:g}: nothing chosen before changed it" + (
                f" (tied with {self.tied - 1} other core(s))" if self.tied > 1 else "")
        parts = "; ".join(f"{u.rule} ({u.part}) {u.delta:+.3g} from {u.choices} choice(s)" for u in self.updates)
        return f"weight {self.weight:.3g} = {parts}" + (f" (tied with {self.tied - 1})" if self.tied > 1 else "")


@dataclass(kw_only=True)
class RuleSource(Mapping):
    """Where a rule's input came from, for the nodes listed: "measured"
    (which record), "hwloc" (its tree stood in) or "not applied"."""
    rule: str
    kind: str
    detail: str
    hosts: list[str]


@dataclass(kw_only=True)
class NodeLevels(Mapping):
    """A node's groups of PUs by level (name -> groups of OS indexes): the
    tree the figure draws."""
    name: str
    groups: list[list[int]]


@dataclass(kw_only=True)
class MappedNode(Mapping):
    """A node of the mapping: its host, its PUs (OS indexes, hwloc's order),
    those the job may use, hwloc's levels, and the measured groups of rules
    1 and 2 that hwloc's tree does not have (Finis Terrae's buses, say)."""
    host: str
    pus: list[int]
    allowed: list[int]
    levels: list[NodeLevels]
    measured: list[NodeLevels]


@dataclass(kw_only=True)
class PerNodeAdvice(Mapping):
    """Processes per node from ratNC (Servet 3.0, Figure 8): the node's
    network bandwidth with k processes, relative to one process alone, is
    k / ratNC[k]; `per_node` is the largest k within `tolerance` of the best."""
    per_node: One
    measured_up_to: One
    fewer_is_faster: bool
    throughput: dict[str, float]    #: k -> k / ratNC[k]
    tolerance: float
    nodes_needed: One                #: for nprocs processes at per_node each
    reason: str


@dataclass(kw_only=True)
class ProcessMapping(Mapping):
    """Servet's weighted core selection for `nprocs` processes of a
    `kind` code ("memory" or "communication"): the choices in the order
    they were made, each with its rank, node, PU, weight and reasons."""
    kind: str
    nprocs: One
    weights: dict[str, float]
    tie_rule: str
    rank_rule: str
    latency_unit: str
    nodes: list[MappedNode]
    choices: list[Choice]
    sources: list[RuleSource]
    notes: list[str]
    per_node: PerNodeAdvice | None = optional()

    def by_rank(self) -> list[Choice]:
        """The choices in rank order."""
        return sorted(self.choices, key=lambda c: c.rank)

    def counts(self) -> dict[str, int]:
        """Processes per host (hosts with none left out)."""
        out: dict[str, int] = {}
        for c in self.by_rank():
            out[c.host] = out.get(c.host, 0) + 1
        return out
