"""Binding the calling thread to processing units (through hwloc)."""
from __future__ import annotations

from collections.abc import Iterator
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
