"""What `predict wavefront` prints and writes: the prediction's terms, the
simulation's per-rank breakdown, the measurement beside them, a sweep over
process counts. Plain text and plain data; no arithmetic beyond the error."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ._classes import CLASSES


def _seconds(t: float) -> str:
    if t >= 1e6:                        # a what-if gone far: digits, not a line of them
        return f"{t:.4g} s"
    if t >= 1:
        return f"{t:.3f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.3f} ms"
    return f"{t * 1e6:.2f} us"


def classes_used(params, placement) -> dict[str, int]:
    """How many neighbour pairs of the m x n array fall in each class."""
    rank = np.arange(params.nranks).reshape(params.m, params.n)
    pairs = np.concatenate([placement.pair_class(rank[:, :-1], rank[:, 1:]).ravel(),
                            placement.pair_class(rank[:-1, :], rank[1:, :]).ravel()])
    kinds, counts = np.unique(pairs, return_counts=True)
    return {CLASSES[int(k)]: int(c) for k, c in zip(kinds, counts)}


def error_of(measured: float, predicted: float) -> float:
    """(predicted - measured) / measured, the paper's sign: negative is an
    under-prediction (Table 4)."""
    return (predicted - measured) / measured


def prediction_lines(params, placement, profile, prediction, simulation, measured, wg_how: str, what_if,
                     sweep_rows: Iterable) -> list[str]:
    p = params
    lines = [f"wavefront {p.nx}x{p.ny}x{p.nz} on {p.m}x{p.n} processes (rows x columns), H_tile {p.h_tile}, "
             f"{p.angles} angles; faces EW {p.message_ew} B, NS {p.message_ns} B",
             f"  W_g {p.wg * 1e9:.2f} ns per cell ({wg_how})",
             f"  network: {profile.source or 'a profile'}; placement: {placement.source or 'given'}",
             "  neighbour pairs: " + (", ".join(f"{k} {c}" for k, c in classes_used(p, placement).items())
                                      or "none (one process)")]
    if what_if is not None and what_if.describe() != "nothing changed":
        lines.append(f"  what-if: {what_if.describe()}")
    r = prediction
    bound = (f"the busiest link: {_seconds(r.link_stack)} of wire" if r.link_stack >= r.t_stack and r.link_stack > 0
             else f"rank {r.stack_rank}")
    split = ("; overheads apart from wire time for " + ", ".join(profile.overheads)) if profile.overheads else ""
    lines += [f"model (Table 2{split}), one iteration:",
              f"  T_diagfill {_seconds(r.t_diagfill)}, T_fullfill {_seconds(r.t_fullfill)}, "
              f"T_stack {_seconds(r.t_stack)} ({bound})",
              f"  compute {_seconds(r.compute)}, communication {_seconds(r.communication)}",
              f"  predicted time per iteration: {_seconds(r.time)}"]
    if simulation is not None:
        s = simulation
        lines += [f"simulation ({s.sends} sends), one iteration: {_seconds(s.total)} "
                  f"({error_of(r.time, s.total) * 100:+.1f} % against the model)",
                  "  per rank (min / median / max): " + "; ".join(
                      f"{name} {_seconds(float(np.min(v)))} / {_seconds(float(np.median(v)))} / "
                      f"{_seconds(float(np.max(v)))}"
                      for name, v in (("compute", s.compute), ("send", s.send), ("recv", s.recv),
                                      ("idle", s.idle)))]
    if measured is not None:
        t = measured.median
        split = measured.split()
        lines += [f"measured (the real kernel, {measured.samples.size} iterations, median of the slowest rank): "
                  f"{_seconds(t)}",
                  f"  per rank (mean): compute {_seconds(split['compute'])}, send {_seconds(split['send'])}, "
                  f"recv {_seconds(split['recv'])}",
                  f"  model error {error_of(t, r.time) * 100:+.1f} %"
                  + (f", simulation error {error_of(t, simulation.total) * 100:+.1f} %"
                     if simulation is not None else "")]
    rows = list(sweep_rows)
    if rows:
        lines.append("sweep over process counts ({}):".format("simulation" if simulation is not None else "model"))
        lines.append("  procs  array     time/iter   efficiency  change (what-if against as measured)")
        for count, array, t, eff, change, *note in rows:      # note: e.g. the machine grown for this count
            lines.append(f"  {count:>5}  {array:<8} {_seconds(t):>11}   {eff * 100:>8.1f} %  {change * 100:+.1f} %"
                         + (f"   ({note[0]})" if note and note[0] else ""))
    return lines


def prediction_dict(params, placement, profile, prediction, simulation, measured, wg_how: str, what_if,
                    sweep_rows: Iterable) -> dict:
    """The same as plain data (seconds), for -o FILE.json."""
    p, r = params, prediction
    out: dict = {
        "format": "hpcbench-prediction", "code": "wavefront",
        "params": {"nx": p.nx, "ny": p.ny, "nz": p.nz, "m": p.m, "n": p.n, "h_tile": p.h_tile,
                   "angles": p.angles, "wg_s": p.wg, "wg_how": wg_how, "message_ew_bytes": p.message_ew,
                   "message_ns_bytes": p.message_ns},
        "profile": profile.to_dict(), "placement": placement.to_dict(),
        "what_if": what_if.describe() if what_if is not None else "nothing changed",
        "model": {"time_s": r.time, "t_diagfill_s": r.t_diagfill, "t_fullfill_s": r.t_fullfill,
                  "t_stack_s": r.t_stack, "compute_s": r.compute, "communication_s": r.communication,
                  "stack_rank": r.stack_rank, "link_stack_s": r.link_stack},
    }
    if simulation is not None:
        out["simulation"] = simulation.to_dict()
    if measured is not None:
        out["measured"] = {"median_s": measured.median, "samples_s": measured.samples.tolist(),
                           "split_s": measured.split(), "work": measured.work, "verified": measured.verified,
                           "model_error": error_of(measured.median, r.time)}
        if simulation is not None:
            out["measured"]["simulation_error"] = error_of(measured.median, simulation.total)
    rows = list(sweep_rows)
    if rows:
        out["sweep"] = [{"procs": c, "array": a, "time_s": t, "efficiency": e, "change": ch}
                        for c, a, t, e, ch in rows]
    return out
