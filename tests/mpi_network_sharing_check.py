"""Run under mpiexec by test_network_sharing.py: the network-access
benchmark on a layout that splits this one machine's ranks into two
pretend nodes (the first half and the second half of the ranks), each
rank bound to one PU. Checks the structure only (timings on one machine
mean nothing): rank 0 prints the record as JSON."""
import json

import mpi4py

mpi4py.rc.thread_level = "single"
from mpi4py import MPI  # noqa: E402

from hpcbench import _core  # noqa: E402
from hpcbench._record import to_plain  # noqa: E402
from hpcbench.network._benchmark import ACCESS_BENCHMARK  # noqa: E402
from hpcbench.network._measure import _order_levels, _spread, access_on_layout  # noqa: E402
from hpcbench.network._options import NetworkOptions  # noqa: E402
from hpcbench.topology import Topology  # noqa: E402

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
topology = Topology.load()
pus = topology.pu_indexes
half = size // 2
_core.bind_thread([pus[(rank % half) % len(pus)]])      # each pretend node: its ranks on distinct PUs
bound = comm.allgather(list(_core.thread_binding()))
layout = []
for node, members in enumerate((list(range(half)), list(range(half, size)))):
    ranks, order = _spread(members, [bound[r][0] for r in members], _order_levels(topology))
    layout.append({"leader": members[0], "host": f"pretend{node}", "ranks": ranks, "pus": order})
options = NetworkOptions(size=64 << 10, cap_s=0.2, rse=0.2)
result = access_on_layout(comm, layout, options.size, options.rse, options.cap_s, topology)
if rank == 0:
    record = ACCESS_BENCHMARK.record_of(options, layout, result)
    print(json.dumps({"record": to_plain(record), "layout": layout, "summary": ACCESS_BENCHMARK.summary(record)}))
