"""The topology of a machine, from hwloc (this one, an XML file or a
synthetic description), binding threads to PUs, and the pairs of PUs the node
benchmarks test with what hwloc says they share."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._binding import bound_to
    from ._hwloc import Cache, Topology
    from ._pairs import components, plan_pairs, relation

__all__ = ["Cache", "Topology", "bound_to", "components", "plan_pairs", "relation"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._binding": ("bound_to",),
    "._hwloc": ("Cache", "Topology"),
    "._pairs": ("components", "plan_pairs", "relation"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
