"""Run under mpiexec (3 ranks) by test_netmap_mpi.py: measure_map with the
analysis's suspects planted (every rank gets the same ones from rank 0), so
that the second measurement's wiring is checked whatever this machine's
timings: the suspect cells, and only they, are measured again. Rank 0
prints what it got as JSON."""
import json

import mpi4py

mpi4py.rc.thread_level = "single"
import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

from hpcbench.netmap import _measure  # noqa: E402

PLANTED = {"bandwidth_loaded": {(0, 1)}, "bandwidth_alone": {(2, 0)}, "latency_alone": {(1, 2), (2, 1)}}
_measure.suspect_cells = lambda matrices: PLANTED          # the first pass's verdict, planted

comm = MPI.COMM_WORLD
members = _measure.Members(list(range(comm.Get_size())), [f"r{i}" for i in range(comm.Get_size())], 1)
samples = _measure.measure_map(comm, members, 4096, 2, 5, alone=True)
if comm.Get_rank() == 0:
    measured = {name: sorted((int(i), int(j)) for i, j in zip(*np.nonzero(np.isfinite(table).any(axis=2))))
                for name, table in samples.rechecked.items()}
    print(json.dumps({"rechecked": measured,
                      "complete": all(bool(np.isfinite(t[i, j]).all()) for t in samples.tables().values()
                                      for i in range(3) for j in range(3) if i != j)}))
