"""Sends above the MPI library's eager limit: coupled to their receive.

Below its eager limit an MPI library copies a message out and MPI_Send
returns (Table 2's contract, _params.py). Above it the library sends by
rendezvous: the sender announces the message, waits for the receiver to
post its receive, and the data moves then; MPI_Send returns when it has.
hpcbench prices such a message as one transfer that starts when both sides
have reached it and holds both for the whole message (Total_comm): in the
model Send_X = Receive_X = Total_comm_X, in the simulator a zero-cost
handshake from the receiver that the sender waits for, then the data
(_coupling.py).

The limit depends on the library and on the transport, so on the class of
the pair: EAGER_DEFAULTS holds what was measured with
benchmarks/bench_eager_limit.py (MPI_Send against a receiver 50 ms late)
on Open MPI 4.1.4. Between nodes (the TCP BTL) sends returned at once up
to 65480 B and waited from 65500 B: btl_tcp_eager_limit's 65536 counts the
header. Within a node (the vader BTL) ompi_info says 4096
(btl_vader_eager_limit), but MPI_Send waited for the late receiver from
300 B on, once the fast boxes were open (256 B and less returned at once):
a fragment through the shared-memory FIFO completes only when the receiver
takes it. So 256 B within a node. Other libraries: no default (every send
eager) unless the user gives one (--eager-limit; measure it with that
script).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._classes import CLASSES, OTHER_NODE, OTHER_PACKAGE, SAME_CACHE, SAME_NODE, SAME_PACKAGE
from ._errors import PredictError
from ._profile import MessageCosts

__all__ = ["EAGER_DEFAULTS", "couple", "coupled_mask", "library_limits", "uniform_limits"]

#: Eager limits in bytes per class, by the MPI library's name as
#: MPI_Get_library_version starts it.
EAGER_DEFAULTS: dict[str, dict[str, int]] = {
    "Open MPI": {SAME_CACHE: 256, SAME_PACKAGE: 256, OTHER_PACKAGE: 256, SAME_NODE: 256, OTHER_NODE: 65480},
}

#: The largest eager limit taken (bytes): beyond any face a code sends.
MAX_LIMIT = 2 ** 53


def library_limits(library: str | None) -> tuple[tuple[str, int], ...]:
    """The (class, bytes) limits of the MPI library named by `library` (a
    results file's context "mpi.library" line), or () if it is not known."""
    text = (library or "").strip()
    for name, limits in EAGER_DEFAULTS.items():
        if text.startswith(name):
            return tuple(sorted(limits.items()))
    return ()


def uniform_limits(limit: int) -> tuple[tuple[str, int], ...]:
    """One limit for every class (`--eager-limit BYTES`); PredictError
    unless a whole number of bytes in 0..2**53."""
    if isinstance(limit, bool) or int(limit) != limit or not 0 <= limit <= MAX_LIMIT:
        raise PredictError(f"--eager-limit must be a whole number of bytes, 0 to 2**53, got {limit!r}")
    return tuple((name, int(limit)) for name in CLASSES)


def coupled_mask(sizes: np.ndarray, classes: np.ndarray, limits: Mapping[str, int]) -> np.ndarray:
    """True where a message of `sizes` bytes between a pair of `classes`
    (indexes into CLASSES) is above its class's eager limit."""
    bound = np.array([float(limits.get(name, np.inf)) for name in CLASSES])
    return np.asarray(sizes, dtype=float) > bound[np.asarray(classes, dtype=np.int64)]


def couple(costs: MessageCosts, sizes: np.ndarray, classes: np.ndarray,
           limits: Mapping[str, int]) -> tuple[MessageCosts, np.ndarray]:
    """`costs` with every coupled message priced as one transfer holding
    both sides (send = recv = total, no wire time apart), and where the
    messages are coupled (a mask of costs' shape)."""
    if not limits or not np.size(sizes):
        return costs, np.zeros(np.shape(sizes), dtype=bool)
    mask = coupled_mask(sizes, classes, limits)
    if not mask.any():
        return costs, mask
    send = np.where(mask, costs.total, costs.send)
    recv = np.where(mask, costs.total, costs.recv)
    wire = np.where(mask, 0.0, costs.wire)
    return MessageCosts(send, recv, costs.total, wire), mask
