"""How much each rule weighs, by kind of code (Servet 3.0, sections 3 and 4.2).

"In a memory bound code the increase due to rules 1 and 2 is ten times
larger than the decrease applied by rule 3. In a communication intensive
code the opposite practice is applied." The network rule's increase "is ten
times larger for communication intensive than for memory bound codes": its
two values (and its 1.5 threshold) are the ones the network-access record
states (hpcbench.network), so they are written once, there.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..network import MAPPING_WEIGHT_INCREASE

#: The kinds of code map_processes knows, and the names the network-access
#: record gives them.
KINDS = {"memory": "memory-bound", "communication": "communication-intensive"}

#: The larger and the smaller of the weights of rules 1-2 and rule 3.
STRONG, WEAK = 10.0, 1.0


@dataclass(frozen=True)
class Weights:
    """The weight of each rule for one kind of code (weight units)."""
    sharing: float          #: rules 1 and 2: added per shared cache level and per memory-overhead level
    latency: float          #: rule 3: the most it subtracts (for a latency of zero)
    network: float          #: the network rule: added to a node's cores

    def as_dict(self) -> dict[str, float]:
        return {"rules 1-2 (shared caches, memory overhead)": self.sharing, "rule 3 (latency)": self.latency,
                "network rule (ratNC)": self.network}


def check_kind(kind: object) -> str:
    """The kind as given; ValueError (one line) unless it is one of KINDS."""
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValueError(f"the kind of code must be one of {', '.join(KINDS)}, got {kind!r}")
    return kind


def weights_for(kind: str) -> Weights:
    """Rules 1-2 weigh ten times rule 3 for memory-bound codes and a tenth of
    it for communication-intensive ones; the network rule as the
    network-access record states it."""
    kind = check_kind(kind)
    memory = kind == "memory"
    return Weights(sharing=STRONG if memory else WEAK, latency=WEAK if memory else STRONG,
                   network=float(MAPPING_WEIGHT_INCREASE[KINDS[kind]]))
