"""Network performance degradation (Servet 3.0, sections 4 and 6.1): with
the distance between nodes under congestion (ratDist) and with the number of
processes per node using the network at once (ratNC), the files and C API
applications read them through, and the grid-ordering advice built on them.
See docs/network.md. DISTANCE_BENCHMARK and ACCESS_BENCHMARK are the suite's
`distance` and `network-access`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._analysis import MAPPING_THRESHOLD, MAPPING_WEIGHT_INCREASE, advise_grid, mapping_rule, ratios
    from ._benchmark import ACCESS_BENCHMARK, DISTANCE_BENCHMARK
    from ._degr import export_from_results, read_degradation_file, write_degradation_file
    from ._plot import plot_access, plot_distance, plot_rat_dist, plot_rat_nc
    from ._records import AccessRecord, DistanceRecord

__all__ = ["ACCESS_BENCHMARK", "AccessRecord", "DISTANCE_BENCHMARK", "DistanceRecord", "MAPPING_THRESHOLD",
           "MAPPING_WEIGHT_INCREASE", "advise_grid", "export_from_results", "mapping_rule", "plot_access",
           "plot_distance", "plot_rat_dist", "plot_rat_nc", "ratios", "read_degradation_file", "write_degradation_file"]

# public name -> the submodule that defines it (imported on first use: hpcbench._lazy)
_EXPORTS = {
    'ACCESS_BENCHMARK': '._benchmark',
    'AccessRecord': '._records',
    'DISTANCE_BENCHMARK': '._benchmark',
    'DistanceRecord': '._records',
    'MAPPING_THRESHOLD': '._analysis',
    'MAPPING_WEIGHT_INCREASE': '._analysis',
    'advise_grid': '._analysis',
    'export_from_results': '._degr',
    'mapping_rule': '._analysis',
    'plot_access': '._plot',
    'plot_distance': '._plot',
    'plot_rat_dist': '._plot',
    'plot_rat_nc': '._plot',
    'ratios': '._analysis',
    'read_degradation_file': '._degr',
    'write_degradation_file': '._degr',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
