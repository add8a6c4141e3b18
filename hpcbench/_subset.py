"""Running a measurement on some ranks of a communicator while the others
sleep (shared by the comm and network benchmarks).

A kernel that involves a few ranks (the overlap pair, the four ranks of
echo with contention, the first P ranks of a collective, the members of a
network shift pattern) runs on a
sub-communicator of those ranks. The others wait in a barrier polled with
sleeps (hpcbench._nodes.quiet_wait) instead of spinning in the next MPI call:
on a machine with fewer cores than ranks a spinning bystander takes the core
the measurement needs, and even with a core each it adds memory traffic.
Errors are gathered after the wait, so a failure among the members raises
on every rank instead of leaving the sleepers waiting.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ._collective import CommError
from ._nodes import quiet_wait

if TYPE_CHECKING:
    from mpi4py import MPI

#: The longest sleep between two polls of the waiting ranks (seconds): short,
#: since a measurement of a few milliseconds must not wait 50 ms for them.
POLL_S = 0.002


def on_ranks(comm: MPI.Intracomm, ranks: Sequence[int], fn: Callable[[MPI.Intracomm], Any], root: int) -> Any:
    """Run fn(sub) on the ranks listed, in a sub-communicator that numbers
    them in the order listed, while the others sleep; every rank gets the
    result that world rank `root` (one of `ranks`) returned. Collective over
    `comm`. CommError on every rank if fn raised on any member."""
    from mpi4py import MPI

    ranks = list(ranks)
    rank = comm.Get_rank()
    member = rank in ranks
    sub = comm.Split(0 if member else MPI.UNDEFINED, ranks.index(rank) if member else 0)
    result, problem = None, None
    if member:
        try:
            result = fn(sub)  # type: ignore[arg-type]   # Split of an Intracomm is one
        except Exception as e:  # any failure, or the sleepers would wait forever
            # CommError (a RuntimeError) already names the rank that failed.
            problem = str(e) if isinstance(e, CommError) else f"rank {rank}: {e}"
        finally:
            sub.Free()
    quiet_wait(comm, longest=POLL_S)
    problems = [p for p in comm.allgather(problem) if p]
    if problems:
        raise CommError(problems[0])
    return comm.bcast(result if rank == root else None, root=root)
