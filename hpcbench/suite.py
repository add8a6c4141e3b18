"""The benchmarks `python -m hpcbench run` knows, and which run by default."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Benchmark:
    name: str
    summary: str
    scope: str              #: "node": once per node, by its lowest rank
    run: Callable           #: run(options, topology, progress) -> record parts
    default: bool = True


def _cache(options, topology, progress):
    from .cache import benchmark
    return benchmark.run(options, topology, progress)


REGISTRY = {
    "cache": Benchmark("cache", "cache levels and sizes from array traversals (Servet III-A)", "node", _cache),
}


def default_suite() -> list:
    return [b.name for b in REGISTRY.values() if b.default]
