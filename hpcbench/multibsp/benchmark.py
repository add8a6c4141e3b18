"""The `multibsp` benchmark of the suite: the tree, g and L of every
component of every level, and the inner-product validation."""
from __future__ import annotations

import numpy as np

from .. import _core, _validate
from ..suite import Skipped
from .measure import (DEFAULT_BLOCKS, DEFAULT_HMAX, DEFAULT_ITERATIONS, DEFAULT_WARMUP, leaf_kernel_rate,
                      measure_component, measure_inner_product)
from .model import fits_side_by_side, predict_inner_product
from .tree import describe, tree

UNITS = {"m": "bytes", "g": "flops per word", "L": "flops", "rate": "flops/s (DAXPY)",
         "inner_product_kernel_rate": "flops/s (the inner product's own loop on one core)", "ticks_per_superstep": "TSC ticks",
         "flops": "flops per superstep", "predicted_s": "s", "measured_s": "s", "n": "doubles"}
DEFAULT_MAX_EXPONENT = 24
DEFAULT_REPS = 5


def check_options(options: dict) -> dict:
    o = dict(hmax=DEFAULT_HMAX, iterations=DEFAULT_ITERATIONS, blocks=DEFAULT_BLOCKS, warmup=DEFAULT_WARMUP,
             max_exponent=DEFAULT_MAX_EXPONENT, reps=DEFAULT_REPS)
    o.update({k: v for k, v in options.items() if v is not None})
    for name in ("hmax", "iterations", "blocks", "reps"):
        _validate.positive_int(f"MultiBSP {name.upper() if name in ('hmax',) else name}", o[name])
    if o["hmax"] > 1 << 16:
        raise ValueError(f"HMAX must be at most 65536, got {o['hmax']}")
    if not 8 <= o["max_exponent"] <= 28:
        raise ValueError(f"the largest inner-product vector is 2^8 .. 2^28 doubles, got 2^{o['max_exponent']}")
    return o


def run(options: dict, topology, progress=None, earlier=None) -> dict:
    o = check_options(options)
    try:
        levels = tree(topology)
    except ValueError as e:
        raise Skipped(str(e)) from None
    ticks_per_s = _core.timer_calibrate(50)["ticks_per_ns"] * 1e9
    say = progress or (lambda message: None)
    level_records, raw_levels, gl, rates = [], [], {}, []
    for lv in levels:
        comps, raw = [], []
        for c in lv.components:
            data = measure_component(c, o["hmax"], o["iterations"], o["blocks"], o["warmup"])
            h = np.arange(o["hmax"] + 1)
            fits = fits_side_by_side(h, data["flops"], c.p)
            gl[c.pus] = (fits["all"]["g"], fits["all"]["L"])
            rate = data["rate_flops_per_tick"] * ticks_per_s
            rates.extend(rate.tolist())
            comps.append({"pus": list(c.pus), "p": c.p, "m": c.m, "memories": c.memories, "fits": fits,
                          "rate": rate, "flops": data["flops"]})
            raw.append({"pus": list(c.pus), "ticks_per_superstep": data["ticks_per_superstep"],
                        "rate_flops_per_tick": data["rate_flops_per_tick"]})
        g = [x["fits"]["all"]["g"] for x in comps]
        L = [x["fits"]["all"]["L"] for x in comps]
        level_records.append({"level": lv.index, "p": lv.p, "m": lv.m, "homogeneous": lv.homogeneous,
                              "g": float(np.mean(g)), "L": float(np.mean(L)),
                              "g_spread": float(max(g) / min(g) - 1) if min(g) > 0 else None,
                              "L_spread": float(max(L) / min(L) - 1) if min(L) > 0 else None,
                              "components": comps})
        raw_levels.append(raw)
        say(f"multibsp: level {lv.index} ({len(lv.components)} component(s), p={lv.p}) measured")

    root = levels[-1].components[0]
    r = float(np.median(rates))
    r_leaf = leaf_kernel_rate(root.child_pus[0]) * ticks_per_s
    validation, raw_ip = [], []
    for e in range(8, o["max_exponent"] + 1):
        n = 1 << e
        m = measure_inner_product(root, n, o["reps"])
        predicted = predict_inner_product(root, m["slices"], gl, r)
        predicted_leaf = predict_inner_product(root, m["slices"], gl, r, r_leaf)
        inside = float(np.median(m["inside_ticks"])) / ticks_per_s
        total = float(np.median(m["total_ticks"])) / ticks_per_s
        validation.append({"n": n, "predicted_s": predicted, "predicted_kernel_rate_s": predicted_leaf,
                           "measured_s": inside, "measured_with_startup_s": total,
                           "measured_over_predicted": inside / predicted,
                           "measured_over_predicted_kernel_rate": inside / predicted_leaf})
        raw_ip.append({"n": n, "inside_ticks": m["inside_ticks"], "total_ticks": m["total_ticks"]})
    say("multibsp: inner product validated")

    warnings = [f"level {lv['level']}: g differs by {100 * lv['g_spread']:.0f}% between components"
                for lv in level_records if lv["g_spread"] is not None and lv["g_spread"] > 0.25]
    return {
        "parameters": {"hmax": o["hmax"], "iterations": o["iterations"], "blocks": o["blocks"],
                       "warmup": o["warmup"], "reps": o["reps"], "sizes": [v["n"] for v in validation],
                       "pattern": "every thread writes h single words cyclically into the other threads' slots "
                                  "of one shared buffer, then a barrier (one superstep)"},
        "raw": {"levels": raw_levels, "inner_product": raw_ip},
        "derived": {"tree": [lv.to_dict() for lv in levels], "notation": describe(levels), "levels": level_records,
                    "rate": r, "inner_product_kernel_rate": r_leaf, "inner_product": validation},
        "units": UNITS, "warnings": warnings,
    }
