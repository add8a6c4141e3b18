"""Which ranks of a communicator share a node, and waiting without spinning.

A node is a group of ranks that share memory (MPI_Comm_split_type with
MPI_COMM_TYPE_SHARED), even where host names differ or repeat; its leader is
its lowest rank. Every part of hpcbench that groups ranks into nodes asks
here: the runner (who runs node benchmarks), the CLI (how many nodes the job
has), the communication layers (which pairs cross nodes) and the network
benchmarks (one process per node)."""
from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class NodeMembership:
    """This rank's place among the ranks of its node."""

    leader: int          #: the lowest rank (in the communicator) on this node
    local_rank: int      #: this rank's index among the node's ranks, in rank order
    local_size: int      #: ranks on this node

    @property
    def is_leader(self) -> bool:
        return self.local_rank == 0


def node_membership(comm) -> NodeMembership:
    """Collective over `comm`."""
    from mpi4py import MPI

    shared = comm.Split_type(MPI.COMM_TYPE_SHARED, key=comm.Get_rank())
    try:
        leader = shared.allreduce(comm.Get_rank(), op=MPI.MIN)
        return NodeMembership(leader, shared.Get_rank(), shared.Get_size())
    finally:
        shared.Free()


def count_nodes(comm) -> int:
    """Nodes of the communicator (collective)."""
    return comm.allreduce(1 if node_membership(comm).is_leader else 0)


def quiet_wait(comm, longest: float = 0.05) -> None:
    """A barrier that sleeps between polls instead of spinning: ranks waiting
    for a node benchmark must not take a core from its timed loop. The sleep
    starts at 1 ms and doubles up to `longest` seconds."""
    request = comm.Ibarrier()
    delay = min(0.001, longest)
    while not request.Test():
        time.sleep(delay)
        delay = min(delay * 2, longest)
