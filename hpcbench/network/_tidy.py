"""The distance and network-access records as rows of the tidy export
(hpcbench._tidy; docs/results-format.md, "Tidy export")."""
from __future__ import annotations

from .._tidy import Row, RowBuilder
from ._records import AccessRecord, DistanceRecord


def distance_rows(record: DistanceRecord) -> list[Row]:
    """Per distance between nodes (parameter "distance"): the bandwidth
    (bytes/s: mean over the measuring ranks, median over iterations) and
    ratDist (the reference bandwidth over it)."""
    out = RowBuilder(record)
    d = record.derived
    out.table("bandwidth", "distance", d.bandwidth, "bytes/s", "median")
    out.table("rat_dist", "distance", d.rat_dist, "ratio", "derived")
    return out.rows


def access_rows(record: AccessRecord) -> list[Row]:
    """Per number of processes per node using the network (parameter
    "processes_per_node"): the bandwidth (bytes/s, as for distance) and
    ratNC; the mapping rule's threshold; where the record names the groups
    of cores that share a network access, their number and ratNC per group
    (parameter "processes_per_group")."""
    out = RowBuilder(record)
    d = record.derived
    out.table("bandwidth", "processes_per_node", d.bandwidth, "bytes/s", "median")
    out.table("rat_nc", "processes_per_node", d.rat_nc, "ratio", "derived")
    out.add("rat_nc_threshold", d.mapping_rule.threshold, "ratio", "derived")
    if d.sharing is not None:       # the cores that share one network access, and ratNC per such group
        out.add("network_access_groups", len(d.sharing.groups), "groups", "derived")
        out.table("rat_nc_per_group", "processes_per_group", d.sharing.rat_nc, "ratio", "derived")
    return out.rows
