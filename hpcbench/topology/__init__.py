"""The topology of a machine, from hwloc (this one, an XML file or a
synthetic description), binding threads to PUs, and the pairs of PUs the node
benchmarks test with what hwloc says they share."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._binding import bound_to
    from ._hwloc import Cache, NumaNode, Obj, Topology
    from ._pairs import (
        DEFAULT_SAMPLE,
        MAX_SAMPLE,
        PAIR_MODES,
        PairPlan,
        PlanRecord,
        RelationRecord,
        check_pus,
        components,
        hwloc_shares_cache,
        parse_pu_list,
        plan_pairs,
        relation,
        require_two_pus,
        spread_order,
    )

__all__ = ["DEFAULT_SAMPLE", "MAX_SAMPLE", "PAIR_MODES", "Cache", "NumaNode", "Obj", "PairPlan", "PlanRecord",
           "RelationRecord", "Topology", "bound_to", "check_pus", "components", "hwloc_shares_cache",
           "parse_pu_list", "plan_pairs", "relation", "require_two_pus", "spread_order"]

# public name -> the submodule that defines it (imported on first use: hpcbench._lazy)
_EXPORTS = {
    'Cache': '._hwloc',
    'DEFAULT_SAMPLE': '._pairs',
    'MAX_SAMPLE': '._pairs',
    'NumaNode': '._hwloc',
    'Obj': '._hwloc',
    'PAIR_MODES': '._pairs',
    'PairPlan': '._pairs',
    'PlanRecord': '._pairs',
    'RelationRecord': '._pairs',
    'Topology': '._hwloc',
    'bound_to': '._binding',
    'check_pus': '._pairs',
    'components': '._pairs',
    'hwloc_shares_cache': '._pairs',
    'parse_pu_list': '._pairs',
    'plan_pairs': '._pairs',
    'relation': '._pairs',
    'require_two_pus': '._pairs',
    'spread_order': '._pairs',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
