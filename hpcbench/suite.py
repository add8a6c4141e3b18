"""The benchmarks `python -m hpcbench run` knows, and which run by default."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


class Skipped(Exception):
    """Raised by a benchmark that cannot run here (say why in one line);
    the run goes on and the record says 'skipped'."""


@dataclass(frozen=True)
class Benchmark:
    name: str
    summary: str
    scope: str              #: "node": once per node, by its lowest rank
    run: Callable           #: run(options, topology, progress, earlier) -> record parts
    default: bool = True


def _cache(options, topology, progress, earlier):
    from .cache import benchmark
    return benchmark.run(options, topology, progress)


def _shared_caches(options, topology, progress, earlier):
    from .cache import shared_benchmark
    return shared_benchmark.run(options, topology, progress, earlier)


def _memory(options, topology, progress, earlier):
    from .memory import benchmark
    return benchmark.run(options, topology, progress, earlier)


# Order matters: shared-caches reads the curve the cache benchmark measured.
REGISTRY = {
    "cache": Benchmark("cache", "cache levels and sizes from array traversals (Servet III-A)", "node", _cache),
    "shared-caches": Benchmark("shared-caches", "which cores share each cache level, by co-runs (Servet III-B)",
                               "node", _shared_caches),
    "memory": Benchmark("memory", "memory-access overhead between cores and bandwidth scalability (Servet III-C)",
                        "node", _memory),
}


def default_suite() -> list:
    return [b.name for b in REGISTRY.values() if b.default]
