"""Run under mpiexec by test_netmap_mpi.py: the flow kernel (flow_times)
on a ring and on one pair alone, and its check. Rank 0 prints what every
rank saw as JSON (structure only: timings on one machine mean nothing)."""
import json

import mpi4py

mpi4py.rc.thread_level = "single"
import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

from hpcbench import _core  # noqa: E402

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
ring = _core.flow_times(comm, (rank + 1) % size, (rank - 1) % size, 4096, 1, 3)
alone = _core.flow_times(comm, 1 if rank == 0 else -1, 0 if rank == 1 else -1, 100000, 1, 2)
try:
    _core.flow_times(comm, rank, -1, 8, 0, 1)
    refused = None
except ValueError as e:
    refused = str(e)
seen = comm.gather({"ring_shape": list(ring.shape), "ring_finite": bool(np.isfinite(ring).all()),
                    "ring_positive": bool((ring > 0).all()),
                    "alone_send": [bool(np.isfinite(v)) for v in alone[0]],
                    "alone_recv": [bool(np.isfinite(v)) for v in alone[1]], "refused": refused}, root=0)
if rank == 0:
    print(json.dumps(seen))
