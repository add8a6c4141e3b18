"""Network maps and bisection bandwidth: is every node and link of the
cluster as good as its peers?

* `network-map` (NETWORK_MAP_BENCHMARK): bandwidth and latency of every
  ordered pair of members (nodes, or ranks) under mpiGraph's shift pattern
  and alone, as matrices; the slow nodes and links named by the rule of
  hpcbench._robust, with their evidence;
* `bisection` (BISECTION_BENCHMARK): Netgauge's effective bisection
  bandwidth over random bisections, with its distribution.

measure_map and measure_bisections measure (collective over a
communicator); slow_nodes, slow_links and bisection_figures are pure and
tested on synthetic matrices; rounds and random_bisections are the
schedules. Documented in docs/network-map.md.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._analysis import bisection_figures, slow_links, slow_nodes
    from ._benchmark import BISECTION_BENCHMARK, NETWORK_MAP_BENCHMARK
    from ._measure import measure_bisections, measure_map, members_of
    from ._plan import random_bisections, rounds
    from ._plot import bisection_figure, map_figure, plot_bisection, plot_map
    from ._records import BisectionRecord, NetworkMapRecord, SlowLink, SlowNode

__all__ = ["BISECTION_BENCHMARK", "BisectionRecord", "NETWORK_MAP_BENCHMARK", "NetworkMapRecord", "SlowLink",
           "SlowNode", "bisection_figure", "bisection_figures", "map_figure", "measure_bisections", "measure_map",
           "members_of", "plot_bisection", "plot_map", "random_bisections", "rounds", "slow_links", "slow_nodes"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._analysis": ("bisection_figures", "slow_links", "slow_nodes"),
    "._benchmark": ("BISECTION_BENCHMARK", "NETWORK_MAP_BENCHMARK"),
    "._measure": ("measure_bisections", "measure_map", "members_of"),
    "._plan": ("random_bisections", "rounds"),
    "._plot": ("bisection_figure", "map_figure", "plot_bisection", "plot_map"),
    "._records": ("BisectionRecord", "NetworkMapRecord", "SlowLink", "SlowNode"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
