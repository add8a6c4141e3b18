"""The topology of a machine, from hwloc (this one, an XML file or a
synthetic description), binding threads to PUs, and the pairs of PUs the node
benchmarks test with what hwloc says they share."""
from ._binding import bound_to
from ._hwloc import Cache, NumaNode, Obj, Topology
from ._pairs import (DEFAULT_SAMPLE, MAX_SAMPLE, PAIR_MODES, PairPlan, PlanRecord, RelationRecord, check_pus,
                     components, hwloc_shares_cache, parse_pu_list, plan_pairs, relation, require_two_pus,
                     spread_order)

__all__ = ["DEFAULT_SAMPLE", "MAX_SAMPLE", "PAIR_MODES", "Cache", "NumaNode", "Obj", "PairPlan", "PlanRecord",
           "RelationRecord", "Topology", "bound_to", "check_pus", "components", "hwloc_shares_cache",
           "parse_pu_list", "plan_pairs", "relation", "require_two_pus", "spread_order"]
