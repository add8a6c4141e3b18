"""Network performance degradation (Servet 3.0, sections 4 and 6.1): with
the distance between nodes under congestion (ratDist) and with the number of
processes per node using the network at once (ratNC), the files and C API
applications read them through, and the grid-ordering advice built on them.
See docs/network.md."""
from .analysis import (DegradationRatios, GridAdvice, MAPPING_THRESHOLD, advise_grid, mapping_rule, ratios)
from .degr import read_degradation_file, write_degradation_file
from .measure import AccessResult, DistanceResult, distance_benchmark, network_access_benchmark, node_layout

__all__ = ["AccessResult", "DegradationRatios", "DistanceResult", "GridAdvice", "MAPPING_THRESHOLD", "advise_grid",
           "distance_benchmark", "mapping_rule", "network_access_benchmark", "node_layout", "ratios",
           "read_degradation_file", "write_degradation_file"]
