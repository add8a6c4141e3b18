"""The benchmarks `python -m hpcbench run` knows, in the order they run.

One line per benchmark. Order matters: shared-caches reads the curve the
cache benchmark measured earlier in the same run."""
from __future__ import annotations

from . import cache, comm, memory, multibsp, network
from ._protocol import Benchmark, Job
from .comm import matrix
from ._record import Record

BENCHMARKS: tuple = (
    cache.BENCHMARK,
    cache.SHARED_BENCHMARK,
    memory.BENCHMARK,
    multibsp.BENCHMARK,
    comm.BENCHMARK,
    matrix.BENCHMARK,
    network.DISTANCE_BENCHMARK,
    network.ACCESS_BENCHMARK,
)

_BY_NAME = {b.name: b for b in BENCHMARKS}


def names() -> list:
    return list(_BY_NAME)


def get(name: str) -> Benchmark:
    """The benchmark called `name`; KeyError if there is none."""
    return _BY_NAME[name]


def record_type(name) -> type[Record]:
    """The record class of benchmark `name` (Record for names this version does not know)."""
    bench = _BY_NAME.get(name)
    return bench.record_type if bench else Record


def default_suite(ranks: int = 1, nodes: int = 1) -> list:
    """The benchmarks `run` runs when none is named, for a job of this shape."""
    return [b.name for b in BENCHMARKS if b.in_default_suite(Job(ranks, nodes))]
