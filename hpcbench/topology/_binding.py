"""Binding threads and processes to processing units (through hwloc)."""
from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from .. import _core


@contextmanager
def bound_to(*pus: int) -> Iterator[None]:
    """Run the block with the calling thread bound to these PU OS indexes,
    then restore the binding it had before."""
    previous = _core.thread_binding()
    _core.bind_thread(list(pus))
    try:
        yield
    finally:
        if previous:
            _core.bind_thread(previous)


def current_pus() -> list[int]:
    """The PU OS indexes the calling thread may run on (hwloc's view: PUs
    this machine's topology knows)."""
    return list(_core.thread_binding())


def bind_process(pus: Sequence[int]) -> None:
    """Bind the whole process to these PU OS indexes: the calling thread
    through hwloc (which checks that each PU exists here: _core's
    ParameterError otherwise), then every other thread the process already
    has (an MPI progress thread, a BLAS pool) to the same CPUs, as hwloc's
    HWLOC_CPUBIND_PROCESS does on Linux (one sched_setaffinity per thread of
    /proc/self/task). Threads started later inherit the binding of the
    thread that starts them. OSError if the system refuses."""
    pus = [int(p) for p in pus]
    _core.bind_thread(pus)
    try:
        threads = os.listdir("/proc/self/task")
    except OSError:           # not Linux: the calling thread is bound, its future threads inherit it
        return
    for tid in threads:
        try:
            os.sched_setaffinity(int(tid), pus)
        except ProcessLookupError:        # the thread ended meanwhile
            continue
