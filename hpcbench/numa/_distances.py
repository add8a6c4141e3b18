"""hwloc's own NUMA latency matrix of a topology (the firmware's SLIT on
Linux), read through the C core: this machine's, an XML file's (which may
carry one), or none for a synthetic description (hwloc gives those no
distances)."""
from __future__ import annotations

import numpy as np

from .. import _core
from ..topology import Topology


def hwloc_distances(topology: Topology) -> tuple[list[int], np.ndarray] | None:
    """(node OS indexes, matrix: row from, column to) or None."""
    source = topology.source
    if source == "this machine":
        return _core.numa_distances(_core.TOPO_THIS_MACHINE)
    if source.startswith("xml:"):
        return _core.numa_distances(_core.TOPO_XML_FILE, source[len("xml:"):])
    return None
