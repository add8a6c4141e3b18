"""Run by every rank of the launch tests: writes the rank (from the
launcher's environment, no MPI call), the host and the PUs this process is
bound to, as hwloc reports them, to DIR/rank.N (a file per rank: launchers
may mix their own lines into the ranks' output)."""
import os
import socket
import sys
import warnings

warnings.simplefilter("ignore")         # mpi4py warns when hydra launches an Open MPI build; MPI is never used

from hpcbench import _core  # noqa: E402

rank = next((os.environ[k] for k in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID") if k in os.environ), "?")
with open(os.path.join(sys.argv[1], f"rank.{rank}"), "w") as f:
    f.write(f"{rank} {socket.gethostname()} {','.join(map(str, _core.thread_binding()))}\n")
