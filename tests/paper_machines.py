"""hwloc synthetic topologies of the machines in the Servet paper, numbered as
the paper reports them (for the node benchmarks' tests)."""
from hpcbench.topology import Topology


def dunnington() -> Topology:
    """4 hexacore Xeon 7450: core 0 shares its L2 with core 12 and its L3 with
    {0,1,2,12,13,14} (Servet 2010, Fig. 8a)."""
    indexes = []
    for package in range(4):
        for pair in range(3):
            indexes += [3 * package + pair, 12 + 3 * package + pair]
    return Topology.from_synthetic(
        "pack:4 l3:1(size=12MiB) l2:3(size=3MiB) l1:2(size=32KiB) core:1 pu:1(indexes="
        + ",".join(map(str, indexes)) + ")")


def finis_terrae() -> Topology:
    """One 16-core Finis Terrae node: 8 dual-core Itanium2 Montvale in two
    cells (NUMA nodes); every cache private. Buses, shared by two sockets,
    are invisible to hwloc."""
    return Topology.from_synthetic(
        "numa:2 pack:4 l3:2(size=9MiB) l2:1(size=256KiB) l1:1(size=16KiB) core:1 pu:1")


def finis_terrae_relative_bandwidth(a: int, b: int) -> float:
    """The paper's Fig. 9a: cores on one bus (0-3, 4-7, ...) get the lowest
    bandwidth, cores in the same cell but another bus 25% less than alone,
    cores of different cells no overhead."""
    if a // 4 == b // 4:
        return 0.45
    if a // 8 == b // 8:
        return 0.75
    return 1.0
