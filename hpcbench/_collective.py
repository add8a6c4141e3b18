"""Calling C kernels on every rank without hanging on a failure.

Every MPI kernel is called by all ranks of a communicator. If one rank
raises (a bad argument, a payload check) and the others go on to the next
kernel, they wait forever for it. So each call is followed by an allgather of
the ranks' verdicts, and all ranks raise together, with the first failing
rank's message.
"""
from __future__ import annotations

from ._errors import MeasurementError


class CommError(MeasurementError):
    """A kernel failed on some rank; the message names the rank."""


def collectively(comm, fn, *args, **kwargs):
    try:
        out, problem = fn(*args, **kwargs), None
    except (ValueError, RuntimeError, OSError, MemoryError, TypeError) as e:
        out, problem = None, f"rank {comm.Get_rank()}: {e}"
    problems = [p for p in comm.allgather(problem) if p]
    if problems:
        more = f" (and {len(problems) - 1} more rank(s))" if len(problems) > 1 else ""
        raise CommError(problems[0] + more)
    return out


def check_comm(comm):
    """A one-line error for anything that is not an mpi4py intracommunicator."""
    from mpi4py import MPI
    if not isinstance(comm, MPI.Intracomm) or comm == MPI.COMM_NULL:
        raise ValueError(f"comm must be an mpi4py intracommunicator such as MPI.COMM_WORLD, got {comm!r}")
    return comm


def check_rank(comm, name: str, rank) -> int:
    size = comm.Get_size()
    if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < size:
        raise ValueError(f"{name} must be a rank between 0 and {size - 1} of this communicator, got {rank!r}")
    return rank


def require_ranks(comm, needed: int, what: str):
    if comm.Get_size() < needed:
        raise ValueError(f"{what} needs at least {needed} MPI ranks, this communicator has {comm.Get_size()} "
                         f"(run under mpiexec -n {needed} or more)")
