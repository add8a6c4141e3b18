"""The `memory` benchmark of the suite: overhead of concurrent memory access
between pairs of cores (Servet 2010, Fig. 6) and scalability of the copy
bandwidth over a representative group of each overhead level and the node."""
from __future__ import annotations

from .. import _validate
from ..pairs import DEFAULT_SAMPLE, plan_pairs, require_two_pus, spread_order
from .analysis import DEFAULT_TOLERANCE, analyze_memory_overhead, analyze_scalability, pair_bandwidth
from .measure import check_array_bytes, default_array_bytes, measure_pairs, measure_scalability

UNITS = {"alone": "bytes/s per core", "together": "bytes/s per core", "bandwidth": "bytes/s per core",
         "reference": "bytes/s per core", "total": "bytes/s", "per_core": "bytes/s", "array_bytes": "bytes",
         "relative": "bandwidth with the other core copying / bandwidth alone"}


def check_options(options: dict, topology) -> dict:
    o = dict(pairs="auto", cores=None, sample=DEFAULT_SAMPLE, seed=1, size=None, tolerance=DEFAULT_TOLERANCE,
             repetitions=10, rounds=3, pages="normal")
    o.update({k: v for k, v in options.items() if v is not None})
    _validate.positive_int("repetitions", o["repetitions"])
    _validate.positive_int("rounds", o["rounds"])
    if not (isinstance(o["tolerance"], (int, float)) and 0 < o["tolerance"] < 1):
        raise ValueError(f"the memory tolerance must be a number between 0 and 1, got {o['tolerance']!r}")
    if o["size"] is None:
        o["size"] = default_array_bytes(topology)
    return o


def largest_group(level) -> list:
    return max(level.groups, key=lambda g: (len(g), -g[0]))


def run(options: dict, topology, progress=None, earlier=None) -> dict:
    o = check_options(options, topology)
    require_two_pus(topology, o["cores"])
    plan = plan_pairs(topology, o["cores"], o["pairs"], o["sample"], o["seed"])
    size = check_array_bytes(o["size"], len(plan.pus))
    data = measure_pairs(plan, size, o["repetitions"], o["rounds"], o["pages"], o["seed"], progress)
    measured = {p: pair_bandwidth(data["alone"][k], data["together"][k]) for k, p in enumerate(data["pairs"])}
    overhead = analyze_memory_overhead(measured, plan, o["tolerance"])

    scalability, raw_scal = [], []
    targets = [(f"overhead level {i + 1}", largest_group(lv)) for i, lv in enumerate(overhead.levels)]
    targets.append(("node", spread_order(topology, plan.pus)))
    for name, cores in targets:
        if progress:
            progress(f"memory: scalability of {name} ({len(cores)} cores)")
        runs = measure_scalability(cores, size, o["repetitions"], o["pages"])
        scalability.append({"group": name, "cores": cores, "points": analyze_scalability(runs)})
        raw_scal.append({"group": name, "cores": cores, "bandwidth": runs})

    return {
        "parameters": {"pair_mode": o["pairs"], "pus": plan.pus, "sample": o["sample"], "seed": o["seed"],
                       "array_bytes": size, "bytes_per_copy": 2 * size, "repetitions": o["repetitions"],
                       "rounds": o["rounds"], "tolerance": o["tolerance"], "pages": o["pages"],
                       "kernel": "copy b[i] = a[i], doubles, ordinary stores; bandwidth counts read + write"},
        "raw": {"pairs": [list(p) for p in data["pairs"]], "alone": data["alone"], "together": data["together"],
                "scalability": raw_scal},
        "derived": {"plan": plan.to_dict(),
                    "pairs": [{"pair": list(p), "reference": v[0], "bandwidth": v[1], "relative": v[2]}
                              for p, v in measured.items()],
                    "overhead": overhead.to_dict(), "scalability": scalability},
        "units": UNITS,
        "warnings": list(overhead.inconsistencies),
    }
