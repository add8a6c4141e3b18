"""Network performance degradation (Servet 3.0, sections 4 and 6.1): with
the distance between nodes under congestion (ratDist) and with the number of
processes per node using the network at once (ratNC), the files and C API
applications read them through (and the parameters file: every parameter
hpcbench measured, for Servet's API, docs/params.md), and the grid-ordering
advice built on them.
See docs/network.md. DISTANCE_BENCHMARK and ACCESS_BENCHMARK are the suite's
`distance` and `network-access`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._analysis import MAPPING_THRESHOLD, MAPPING_WEIGHT_INCREASE, advise_grid, mapping_rule, ratios
    from ._benchmark import ACCESS_BENCHMARK, DISTANCE_BENCHMARK
    from ._degr import export_from_results, read_degradation_file, write_degradation_file
    from ._params import (
        Parameters,
        ParamLayer,
        ParamMemoryLevel,
        ParamRank,
        read_parameters_file,
        write_parameters_file,
    )
    from ._params_export import export_parameters, parameters_from_results
    from ._plot import plot_access, plot_distance, plot_rat_dist, plot_rat_nc
    from ._records import AccessRecord, DistanceRecord

__all__ = ["ACCESS_BENCHMARK", "AccessRecord", "DISTANCE_BENCHMARK", "DistanceRecord", "MAPPING_THRESHOLD",
           "MAPPING_WEIGHT_INCREASE", "ParamLayer", "ParamMemoryLevel", "ParamRank", "Parameters", "advise_grid",
           "export_from_results", "export_parameters", "mapping_rule", "parameters_from_results", "plot_access",
           "plot_distance", "plot_rat_dist", "plot_rat_nc", "ratios", "read_degradation_file",
           "read_parameters_file", "write_degradation_file", "write_parameters_file"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._analysis": ("MAPPING_THRESHOLD", "MAPPING_WEIGHT_INCREASE", "advise_grid", "mapping_rule", "ratios"),
    "._benchmark": ("ACCESS_BENCHMARK", "DISTANCE_BENCHMARK"),
    "._degr": ("export_from_results", "read_degradation_file", "write_degradation_file"),
    "._params": ("ParamLayer", "ParamMemoryLevel", "Parameters", "ParamRank", "read_parameters_file",
                 "write_parameters_file"),
    "._params_export": ("export_parameters", "parameters_from_results"),
    "._plot": ("plot_access", "plot_distance", "plot_rat_dist", "plot_rat_nc"),
    "._records": ("AccessRecord", "DistanceRecord"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
