"""The `distance` and `network-access` benchmarks of the suite (every rank
takes part; the job must span at least two nodes)."""
from __future__ import annotations

import numpy as np

from ..suite import Skipped
from .analysis import mapping_rule
from .measure import DEFAULT_CAP_S, DEFAULT_SIZE, distance_benchmark, network_access_benchmark, node_layout

UNITS = {"bandwidth": "bytes/s (mean over the measuring ranks, median over iterations)", "size": "bytes",
         "samples": "s per iteration, ranks x iterations", "rat_dist": "reference / bandwidth",
         "rat_nc": "reference / bandwidth"}


def check_options(options: dict) -> dict:
    o = dict(size=DEFAULT_SIZE, nodes=None, cap_s=DEFAULT_CAP_S, rse=0.02)
    o.update({k: v for k, v in options.items() if v is not None})
    if isinstance(o["size"], bool) or not isinstance(o["size"], int) or not 0 < o["size"] <= 1 << 30:
        raise ValueError(f"the network message size must be between 1 byte and 1 GiB, got {o['size']!r}")
    from .measure import check_size
    check_size(o["size"])
    if o["nodes"] is not None and (isinstance(o["nodes"], bool) or not isinstance(o["nodes"], int)
                                   or o["nodes"] < 2):
        raise ValueError(f"--net-nodes must be an integer of at least 2, got {o['nodes']!r}")
    if not 0 < o["cap_s"] <= 600:
        raise ValueError(f"--net-cap must be in (0, 600] seconds, got {o['cap_s']}")
    return o


def _layout_or_skip(comm, topology):
    layout = node_layout(comm, topology)
    if len(layout) < 2:
        raise Skipped(f"network benchmarks need a job on at least 2 nodes; this one runs on {len(layout)} "
                      "(see docs/network.md for an emulated cluster on one machine)")
    return layout


def _samples(table: dict) -> dict:
    return {str(k): np.asarray(v) for k, v in table.items()}


def run_distance(options: dict, topology, progress, earlier, comm) -> dict:
    o = check_options(options)
    layout = _layout_or_skip(comm, topology)
    result = distance_benchmark(comm, o["nodes"], o["size"], o["rse"], o["cap_s"], topology, progress)
    return {"parameters": {"nodes": result.nodes, "nodes_in_job": len(layout), "size": o["size"],
                           "cap_s": o["cap_s"], "rse_target": o["rse"],
                           "pattern": "one process per node; every process p sends to (p + d) mod N at once",
                           "node_order": [n["host"] for n in layout[:result.nodes]]},
            "raw": {"samples": _samples(result.samples)},
            "derived": result.to_dict(), "units": UNITS, "warnings": []}


def run_network_access(options: dict, topology, progress, earlier, comm) -> dict:
    o = check_options(options)
    layout = _layout_or_skip(comm, topology)
    result = network_access_benchmark(comm, o["size"], o["rse"], o["cap_s"], topology, progress)
    derived = result.to_dict()
    derived["mapping_rule"] = mapping_rule(result.rat_nc)
    return {"parameters": {"nodes_in_job": len(layout), "ranks_per_node": [len(n["ranks"]) for n in layout],
                           "size": o["size"], "cap_s": o["cap_s"], "rse_target": o["rse"],
                           "pattern": "k processes per node on 2NC/k nodes, each sends to the same-index "
                                      "process of the next node"},
            "raw": {"samples": _samples(result.samples)},
            "derived": derived, "units": UNITS, "warnings": list(result.notes)}
