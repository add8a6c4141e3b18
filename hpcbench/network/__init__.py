"""Network performance degradation (Servet 3.0, sections 4 and 6.1): with
the distance between nodes under congestion (ratDist) and with the number of
processes per node using the network at once (ratNC), the files and C API
applications read them through, and the grid-ordering advice built on them.
See docs/network.md. DISTANCE_BENCHMARK and ACCESS_BENCHMARK are the suite's
`distance` and `network-access`."""
from .._protocol import Benchmark
from ._analysis import (MAPPING_THRESHOLD, MAPPING_WEIGHT_INCREASE, DegradationRatios, GridAdvice, advise_grid,
                        mapping_rule, ratios)
from ._benchmark import DistanceBenchmark, NetworkAccessBenchmark
from ._degr import degradation_path, export_from_results, read_degradation_file, write_degradation_file
from ._measure import AccessResult, DistanceResult, distance_benchmark, network_access_benchmark, node_layout
from ._options import NetworkOptions
from ._plot import access_figure, distance_figure, plot_access, plot_distance, plot_rat_dist, plot_rat_nc
from ._records import AccessDerived, AccessRecord, DistanceDerived, DistanceRecord, MappingRule

DISTANCE_BENCHMARK: Benchmark = DistanceBenchmark()
ACCESS_BENCHMARK: Benchmark = NetworkAccessBenchmark()

__all__ = ["ACCESS_BENCHMARK", "DISTANCE_BENCHMARK", "MAPPING_THRESHOLD", "MAPPING_WEIGHT_INCREASE", "AccessDerived",
           "AccessRecord", "AccessResult", "DegradationRatios", "DistanceBenchmark", "DistanceDerived",
           "DistanceRecord", "DistanceResult", "GridAdvice", "MappingRule", "NetworkAccessBenchmark", "NetworkOptions",
           "access_figure", "advise_grid", "degradation_path", "distance_benchmark", "distance_figure",
           "export_from_results", "mapping_rule", "network_access_benchmark", "node_layout", "plot_access",
           "plot_distance", "plot_rat_dist", "plot_rat_nc", "ratios", "read_degradation_file", "write_degradation_file"]
