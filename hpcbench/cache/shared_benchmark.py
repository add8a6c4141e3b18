"""The `shared-caches` benchmark of the suite: which cores share each cache.

Needs the cache levels and the single-core curve: taken from the `cache`
benchmark of the same run when it ran on this node, measured here otherwise.
"""
from __future__ import annotations

import numpy as np

from .. import _validate
from ..pairs import DEFAULT_SAMPLE, plan_pairs, require_two_pus
from .analysis import estimate_levels
from .measure import DEFAULT_WINDOW, measure
from .shared import analyze_shared_caches, choose_corun_size, co_run_ratio
from .shared_measure import measure_co_runs

UNITS = {"cache_size": "bytes", "corun_size": "bytes per core", "alone": "TSC ticks per access",
         "together": "TSC ticks per access", "ratio": "co-run time / alone time"}


def levels_from_cache_record(record: dict) -> dict:
    """What the co-run needs from a cache benchmark record."""
    params = record["parameters"]
    return {"levels": [{"level": lv["level"], "size": lv["size"], "onset": lv.get("onset")}
                       for lv in record["derived"]["levels"]],
            "sizes": np.asarray(record["raw"]["sizes"], dtype=float),
            "cycles": np.asarray(record["derived"]["cycles_per_access"], dtype=float),
            "stride": params["stride"], "order": params["order"], "pages": params["pages"],
            "window": params.get("window", DEFAULT_WINDOW), "source": "cache benchmark of this run"}


def measure_levels(topology, pu, progress, cache_options=None) -> dict:
    """The cache sweep (with the run's cache options), when this run has none."""
    if progress:
        progress("shared-caches: no cache results in this run, measuring cache levels first")
    options = dict(cache_options or {})
    if options.get("pu") is None:
        options["pu"] = pu
    sweep = measure(topology=topology, progress=progress, **options)
    levels = estimate_levels(sweep.sizes, sweep.cycles, page_size=sweep.parameters["page_size"],
                             refined=sweep.refined)
    p = sweep.parameters
    return {"levels": [{"level": lv.level, "size": lv.size, "onset": lv.onset} for lv in levels],
            "sizes": sweep.sizes.astype(float), "cycles": sweep.cycles, "stride": p["stride"],
            "order": p["order"], "pages": p["pages"], "window": p["window"],
            "source": "cache sweep run by shared-caches"}


def check_options(options: dict) -> dict:
    o = dict(pairs="auto", cores=None, sample=DEFAULT_SAMPLE, threshold=None, rounds=3, samples=3, seed=1,
             cache=None)
    o.update({k: v for k, v in options.items() if v is not None or k == "threshold"})
    _validate.positive_int("rounds", o["rounds"])
    _validate.positive_int("samples", o["samples"])
    if o["threshold"] is not None and not (isinstance(o["threshold"], (int, float)) and o["threshold"] > 1):
        raise ValueError(f"the sharing threshold must be a number above 1, got {o['threshold']!r}")
    return o


def run(options: dict, topology, progress=None, earlier=None) -> dict:
    o = check_options(options)
    require_two_pus(topology, o["cores"])
    plan = plan_pairs(topology, o["cores"], o["pairs"], o["sample"], o["seed"])
    cache = (earlier or {}).get("cache")
    basis = levels_from_cache_record(cache) if cache else measure_levels(topology, plan.pus[0], progress, o["cache"])
    if not basis["levels"]:
        raise ValueError("the cache benchmark found no cache level to test")

    levels, raw, warnings = [], [], []
    for i, lv in enumerate(basis["levels"]):
        size, expected = choose_corun_size(lv["size"], lv.get("onset"), basis["stride"],
                                           basis["sizes"], basis["cycles"])
        label = f"shared-caches L{lv['level']} ({len(plan.tested)} pairs, {_validate.format_size(size)} each): "
        data = measure_co_runs(plan, size, stride=basis["stride"], order=basis["order"], window=basis["window"],
                               pages=basis["pages"], samples=o["samples"], rounds=o["rounds"],
                               seed=o["seed"] + 1000 * i, progress=progress, label=label)
        ratios = {p: co_run_ratio(data["alone"][k], data["together"][k]) for k, p in enumerate(data["pairs"])}
        result = analyze_shared_caches(lv["level"], lv["size"], size, ratios, plan, topology,
                                       threshold=o["threshold"], expected_ratio=expected)
        levels.append(result.to_dict())
        raw.append({"level": lv["level"], "pairs": [list(p) for p in data["pairs"]],
                    "alone": data["alone"], "together": data["together"]})
        if not result.decidable:
            warnings.append(f"L{lv['level']}: one core with twice the co-run array is only x{expected:.2f} slower, "
                            "too little to tell a shared cache from noise; no verdict")
        warnings.extend(result.disagreements)

    return {
        "parameters": {"pair_mode": o["pairs"], "pus": plan.pus, "sample": o["sample"], "rounds": o["rounds"],
                       "samples": o["samples"], "threshold_requested": o["threshold"], "seed": o["seed"],
                       "stride": basis["stride"], "order": basis["order"], "pages": basis["pages"],
                       "window": basis["window"], "levels_from": basis["source"]},
        "raw": {"levels": raw, "single_core_sizes": basis["sizes"], "single_core_cycles": basis["cycles"]},
        "derived": {"plan": plan.to_dict(), "levels": levels},
        "units": UNITS,
        "warnings": warnings,
    }
