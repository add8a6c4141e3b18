"""Run across the emulated cluster by test_comm_emulated.py: echo with
contention on the ranks hpcbench chooses from the placement, as `run comm`
does. Rank 0 prints the contention record as JSON."""
import json

import mpi4py

mpi4py.rc.thread_level = "single"
from mpi4py import MPI  # noqa: E402

from hpcbench._record import to_plain  # noqa: E402
from hpcbench.comm import contention_study  # noqa: E402
from hpcbench.comm._layers import gather_placement  # noqa: E402
from hpcbench.comm._sweep import message_sizes  # noqa: E402

comm = MPI.COMM_WORLD
placement = gather_placement(comm)
# Loads from a sweep of the echo pair itself (50 % and 90 % of its peak bandwidth), as CoMet sets them.
raw, record = contention_study(comm, placement, message_sizes(1 << 20).tolist(), cap_s=0.2)
if comm.Get_rank() == 0:
    print(json.dumps({"record": to_plain(record), "hosts": sorted({p.host for p in placement})}))
