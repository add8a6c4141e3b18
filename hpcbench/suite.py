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
    scope: str              #: "node": once per node, by its lowest rank; "world": every rank takes part
    run: Callable           #: run(options, topology, progress, earlier) -> record parts
    default: bool = True
    min_ranks: int = 1      #: in the default suite only with at least this many ranks
    min_nodes: int = 1      #: ... and on at least this many nodes


def _cache(options, topology, progress, earlier):
    from .cache import benchmark
    return benchmark.run(options, topology, progress)


def _shared_caches(options, topology, progress, earlier):
    from .cache import shared_benchmark
    return shared_benchmark.run(options, topology, progress, earlier)


def _memory(options, topology, progress, earlier):
    from .memory import benchmark
    return benchmark.run(options, topology, progress, earlier)


def _multibsp(options, topology, progress, earlier):
    from .multibsp import benchmark
    return benchmark.run(options, topology, progress, earlier)


def _comm(options, topology, progress, earlier, comm):
    from .comm import benchmark
    return benchmark.run(options, topology, progress, earlier, comm)


def _distance(options, topology, progress, earlier, comm):
    from .network import benchmark
    return benchmark.run_distance(options, topology, progress, earlier, comm)


def _network_access(options, topology, progress, earlier, comm):
    from .network import benchmark
    return benchmark.run_network_access(options, topology, progress, earlier, comm)


# Order matters: shared-caches reads the curve the cache benchmark measured.
REGISTRY = {
    "cache": Benchmark("cache", "cache levels and sizes from array traversals (Servet III-A)", "node", _cache),
    "shared-caches": Benchmark("shared-caches", "which cores share each cache level, by co-runs (Servet III-B)",
                               "node", _shared_caches),
    "memory": Benchmark("memory", "memory-access overhead between cores and bandwidth scalability (Servet III-C)",
                        "node", _memory),
    "multibsp": Benchmark("multibsp", "the node's MultiBSP tree with g and L per level, validated by an inner "
                          "product (MBSPDiscover)", "node", _multibsp),
    "comm": Benchmark("comm", "CoMet's message-passing kernels, Servet's communication layers, fitted models",
                      "world", _comm, min_ranks=2),
    "distance": Benchmark("distance", "network bandwidth against distance between nodes, ratDist (Servet 3.0)",
                          "world", _distance, min_ranks=2, min_nodes=2),
    "network-access": Benchmark("network-access", "network bandwidth against processes per node, ratNC "
                                "(Servet 3.0)", "world", _network_access, min_ranks=2, min_nodes=2),
}


def default_suite(ranks: int = 1, nodes: int = 1) -> list:
    return [b.name for b in REGISTRY.values() if b.default and ranks >= b.min_ranks and nodes >= b.min_nodes]
