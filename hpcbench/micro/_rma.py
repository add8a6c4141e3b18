"""Whether this MPI library does one-sided communication, asked before an
rma run measures anything (so the answer is one line and exit 2)."""
from __future__ import annotations

import sys


def rma_available() -> bool:
    """True if MPI_Win_allocate works here, asked on MPI_COMM_SELF: a local
    question, so no rank can wait for another that never asks (option
    checks run on every rank, and one rank may stop at an earlier check).
    A library without one-sided support refuses on any communicator. True
    without asking in a process that has not started MPI (`sbatch`,
    `run --estimate` before a job exists): the run itself asks again."""
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is None or not mpi.Is_initialized() or mpi.Is_finalized():
        return True
    from .. import _core
    return bool(_core.rma_available(mpi.COMM_SELF))
