"""Process mapping from measurements (Servet 3.0, sections 3, 4.2 and 6.2;
Servet 2010, section V): Servet's weighted core selection over the shared
caches, memory-access overhead, communication layers and ratNC a results
file holds, the launcher files that apply it (Open MPI rankfile, Slurm
srun, MPICH hydra) and the figure of the chosen cores.

    mapping = map_processes("results.json", 16, "memory")
    print(launch(mapping, "rankfile").command)

A decision, not a benchmark: it reads the typed records (hpcbench.load)
and never measures. See docs/mapping.md.
"""
from ._allocation import SlurmAllocation, check_fits_allocation, expand_hostlist, slurm_allocation
from ._launch import Launch, check_host_name, launch
from ._plot import mapping_figure, plot_mapping
from ._result import Choice, ProcessMapping
from ._select import map_processes

__all__ = ["Choice", "Launch", "ProcessMapping", "SlurmAllocation", "check_fits_allocation", "check_host_name",
           "expand_hostlist", "launch", "map_processes", "mapping_figure", "plot_mapping", "slurm_allocation"]
