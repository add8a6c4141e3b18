"""The benchmarks `python -m hpcbench run` knows, in the order they run.

One line per benchmark. Order matters: shared-caches reads the curve the
cache benchmark measured earlier in the same run."""
from __future__ import annotations

from . import bandwidth, cache, comm, flops, memory, micro, multibsp, netmap, network, numa, stream
from ._protocol import AnyBenchmark, Job
from ._record import Record
from .comm import matrix

BENCHMARKS: tuple[AnyBenchmark, ...] = (
    cache.BENCHMARK,
    cache.SHARED_BENCHMARK,
    memory.BENCHMARK,
    stream.BENCHMARK,
    bandwidth.BENCHMARK,
    flops.BENCHMARK,
    numa.BENCHMARK,
    multibsp.BENCHMARK,
    comm.BENCHMARK,
    matrix.BENCHMARK,
    micro.P2P_BENCHMARK,
    micro.COLLECTIVES_BENCHMARK,
    micro.NBC_BENCHMARK,
    micro.RMA_BENCHMARK,
    network.DISTANCE_BENCHMARK,
    network.ACCESS_BENCHMARK,
    netmap.NETWORK_MAP_BENCHMARK,
    netmap.BISECTION_BENCHMARK,
)

_BY_NAME = {b.name: b for b in BENCHMARKS}


def names() -> list[str]:
    return list(_BY_NAME)


def get(name: str) -> AnyBenchmark:
    """The benchmark called `name`; KeyError if there is none."""
    return _BY_NAME[name]


def record_type(name: object) -> type[Record]:
    """The record class of benchmark `name` (Record for names this version
    does not know, and for a name that is no string: a file's value)."""
    bench = _BY_NAME.get(name) if isinstance(name, str) else None
    return bench.record_type if bench else Record


def default_suite(ranks: int = 1, nodes: int = 1) -> list[str]:
    """The benchmarks `run` runs when none is named, for a job of this shape."""
    return [b.name for b in BENCHMARKS if b.in_default_suite(Job(ranks, nodes))]
