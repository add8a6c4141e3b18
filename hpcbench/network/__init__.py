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
    from ._analysis import (
        MAPPING_THRESHOLD,
        MAPPING_WEIGHT_INCREASE,
        DegradationRatios,
        GridAdvice,
        advise_grid,
        mapping_rule,
        ratios,
    )
    from ._benchmark import ACCESS_BENCHMARK, DISTANCE_BENCHMARK, DistanceBenchmark, NetworkAccessBenchmark
    from ._degr import degradation_path, export_from_results, read_degradation_file, write_degradation_file
    from ._measure import AccessResult, DistanceResult, distance_benchmark, network_access_benchmark, node_layout
    from ._options import NetworkOptions
    from ._plot import access_figure, distance_figure, plot_access, plot_distance, plot_rat_dist, plot_rat_nc
    from ._records import AccessDerived, AccessRecord, DistanceDerived, DistanceRecord, MappingRule

__all__ = ["ACCESS_BENCHMARK", "DISTANCE_BENCHMARK", "MAPPING_THRESHOLD", "MAPPING_WEIGHT_INCREASE", "AccessDerived",
           "AccessRecord", "AccessResult", "DegradationRatios", "DistanceBenchmark", "DistanceDerived",
           "DistanceRecord", "DistanceResult", "GridAdvice", "MappingRule", "NetworkAccessBenchmark", "NetworkOptions",
           "access_figure", "advise_grid", "degradation_path", "distance_benchmark", "distance_figure",
           "export_from_results", "mapping_rule", "network_access_benchmark", "node_layout", "plot_access",
           "plot_distance", "plot_rat_dist", "plot_rat_nc", "ratios", "read_degradation_file", "write_degradation_file"]

# public name -> the submodule that defines it (imported on first use: hpcbench._lazy)
_EXPORTS = {
    'ACCESS_BENCHMARK': '._benchmark',
    'AccessDerived': '._records',
    'AccessRecord': '._records',
    'AccessResult': '._measure',
    'DISTANCE_BENCHMARK': '._benchmark',
    'DegradationRatios': '._analysis',
    'DistanceBenchmark': '._benchmark',
    'DistanceDerived': '._records',
    'DistanceRecord': '._records',
    'DistanceResult': '._measure',
    'GridAdvice': '._analysis',
    'MAPPING_THRESHOLD': '._analysis',
    'MAPPING_WEIGHT_INCREASE': '._analysis',
    'MappingRule': '._records',
    'NetworkAccessBenchmark': '._benchmark',
    'NetworkOptions': '._options',
    'access_figure': '._plot',
    'advise_grid': '._analysis',
    'degradation_path': '._degr',
    'distance_benchmark': '._measure',
    'distance_figure': '._plot',
    'export_from_results': '._degr',
    'mapping_rule': '._analysis',
    'network_access_benchmark': '._measure',
    'node_layout': '._measure',
    'plot_access': '._plot',
    'plot_distance': '._plot',
    'plot_rat_dist': '._plot',
    'plot_rat_nc': '._plot',
    'ratios': '._analysis',
    'read_degradation_file': '._degr',
    'write_degradation_file': '._degr',
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
