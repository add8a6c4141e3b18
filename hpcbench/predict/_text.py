"""What `predict wavefront` prints and writes: the prediction's terms, the
simulation's per-rank breakdown, the measurement beside them, a sweep over
process counts. Plain text and plain data; no arithmetic beyond the error."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ._classes import CLASSES
from ._code_text import code_dict, code_lines, run_lines

if TYPE_CHECKING:
    from ._kernel import WavefrontTimes
    from ._model import WavefrontPrediction
    from ._params import WavefrontParams
    from ._placement import Placement
    from ._procure import EfficiencyAnswer, MatchAnswer
    from ._profile import NetworkProfile
    from ._simulate import Simulation
    from ._sweep import SweepRow
    from ._whatif import WhatIf


class Study(Protocol):
    """What this module reads of a study (hpcbench.predict._study.Study,
    which calls these functions: a Protocol here, not an import, so that
    the two modules do not import each other)."""

    @property
    def params(self) -> WavefrontParams: ...
    @property
    def wg_how(self) -> str: ...
    @property
    def what_if(self) -> WhatIf: ...
    @property
    def placement(self) -> Placement: ...
    @property
    def profile(self) -> NetworkProfile: ...
    @property
    def prediction(self) -> WavefrontPrediction: ...
    @property
    def simulation(self) -> Simulation | None: ...
    @property
    def measured(self) -> WavefrontTimes | None: ...
    @property
    def sweep(self) -> tuple[SweepRow, ...]: ...
    @property
    def efficiency(self) -> EfficiencyAnswer | None: ...
    @property
    def match(self) -> MatchAnswer | None: ...


def _seconds(t: float) -> str:
    if t >= 1e6:                        # a what-if gone far: digits, not a line of them
        return f"{t:.4g} s"
    if t >= 1:
        return f"{t:.3f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.3f} ms"
    return f"{t * 1e6:.2f} us"


def classes_used(params: WavefrontParams, placement: Placement) -> dict[str, int]:
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


def prediction_lines(study: Study) -> list[str]:
    """What `predict wavefront` prints for `study`, one string a line."""
    return (_header_lines(study) + _model_lines(study) + _simulation_lines(study) + _measured_lines(study)
            + _sweep_lines(study) + _answer_lines(study))


def _header_lines(study: Study) -> list[str]:
    p, placement, profile = study.params, study.placement, study.profile
    lines = [f"wavefront {p.nx}x{p.ny}x{p.nz} on {p.m}x{p.n} processes (rows x columns), H_tile {p.h_tile}, "
             f"{p.angles} angles; faces EW {p.message_ew} B, NS {p.message_ns} B",
             f"  W_g {p.wg * 1e9:.2f} ns per cell ({study.wg_how})",
             f"  network: {profile.source or 'a profile'}; placement: {placement.source or 'given'}",
             "  neighbour pairs: " + (", ".join(f"{k} {c}" for k, c in classes_used(p, placement).items())
                                      or "none (one process)")]
    lines[1:1] = code_lines(p)
    if study.what_if.describe() != "nothing changed":
        lines.append(f"  what-if: {study.what_if.describe()}")
    return lines


def _model_lines(study: Study) -> list[str]:
    r, profile = study.prediction, study.profile
    bound = (f"the busiest link: {_seconds(r.link_stack)} of wire" if r.link_stack >= r.t_stack and r.link_stack > 0
             else f"rank {r.stack_rank}")
    split = ("; overheads apart from wire time for " + ", ".join(profile.overheads)) if profile.overheads else ""
    return [f"model (Table 2{split}), one iteration:",
            f"  T_diagfill {_seconds(r.t_diagfill)}, T_fullfill {_seconds(r.t_fullfill)}, "
            f"T_stack {_seconds(r.t_stack)} ({bound})",
            f"  compute {_seconds(r.compute)}, communication {_seconds(r.communication)}",
            f"  predicted time per iteration: {_seconds(r.time)}"] + run_lines(r, study.params)


def _simulation_lines(study: Study) -> list[str]:
    s = study.simulation
    if s is None:
        return []
    return [f"simulation ({s.sends} sends), one iteration: {_seconds(s.total)} "
            f"({error_of(study.prediction.time, s.total) * 100:+.1f} % against the model)",
            "  per rank (min / median / max): " + "; ".join(
                f"{name} {_seconds(float(np.min(v)))} / {_seconds(float(np.median(v)))} / "
                f"{_seconds(float(np.max(v)))}"
                for name, v in (("compute", s.compute), ("send", s.send), ("recv", s.recv), ("idle", s.idle)))]


def _measured_lines(study: Study) -> list[str]:
    measured, simulation = study.measured, study.simulation
    if measured is None:
        return []
    t = measured.median
    split = measured.split()
    return [f"measured (the real kernel, {measured.samples.size} iterations, median of the slowest rank): "
            f"{_seconds(t)}",
            f"  per rank (mean): compute {_seconds(split['compute'])}, send {_seconds(split['send'])}, "
            f"recv {_seconds(split['recv'])}",
            f"  model error {error_of(t, study.prediction.time) * 100:+.1f} %"
            + (f", simulation error {error_of(t, simulation.total) * 100:+.1f} %" if simulation is not None else "")]


def _sweep_lines(study: Study) -> list[str]:
    if not study.sweep:
        return []
    lines = ["sweep over process counts ({}):".format("simulation" if study.simulation is not None else "model"),
             "  procs  array     time/iter   efficiency  change (what-if against as measured)"]
    for row in study.sweep:
        note = f"   (machine grown to {row.machine})" if row.grown else ""
        lines.append(f"  {row.count:>5}  {row.array:<8} {_seconds(row.seconds):>11}   {row.efficiency * 100:>8.1f} %  "
                     f"{row.change * 100:+.1f} %" + note)
    return lines


def _answer_lines(study: Study) -> list[str]:
    """The procurement answers (Figures 4 and 5), by the model."""
    lines = []
    if study.efficiency is not None:
        lines += ["efficiency (model, against one process; Figure 4):", "  " + study.efficiency.line()]
    if study.match is not None:
        lines += [f"the same time on {study.match.second} (model; Figure 5):"] + study.match.lines()
    return lines


def answers_dict(study: Study) -> dict[str, Any]:
    """The procurement answers as plain data (empty when none was asked)."""
    out: dict[str, Any] = {}
    e = study.efficiency
    if e is not None:
        out["efficiency"] = {"level": e.level, "crossing": e.crossing, "below": e.below, "limit": e.limit,
                             "answer": e.line(),
                             "tried": [{"procs": c, "efficiency": v} for c, v in e.tried]}
    m = study.match
    if m is not None:
        out["match"] = {"second": m.second, "limit": m.limit,
                        "rows": [{"procs": r.count, "time_s": r.seconds, "matched_procs": r.matched,
                                  "matched_time_s": r.matched_seconds if r.matched is not None else None,
                                  "factor": r.factor if r.matched is not None else None} for r in m.rows],
                        "second_curve": [{"procs": c, "time_s": t} for c, t in m.curve],
                        "first_curve": [{"procs": c, "time_s": t} for c, t in m.first_curve]}
    return out


def prediction_dict(study: Study) -> dict[str, Any]:
    """The same as plain data (seconds), for -o FILE.json."""
    p, r = study.params, study.prediction
    out: dict[str, Any] = {
        "format": "hpcbench-prediction", "code": "wavefront",
        "params": {"nx": p.nx, "ny": p.ny, "nz": p.nz, "m": p.m, "n": p.n, "h_tile": p.h_tile,
                   "angles": p.angles, "wg_s": p.wg, "wg_how": study.wg_how, "message_ew_bytes": p.message_ew,
                   "message_ns_bytes": p.message_ns, **code_dict(p, r)},
        "profile": study.profile.to_dict(), "placement": study.placement.to_dict(),
        "what_if": study.what_if.describe(),
        "model": {"time_s": r.time, "t_diagfill_s": r.t_diagfill, "t_fullfill_s": r.t_fullfill,
                  "t_stack_s": r.t_stack, "compute_s": r.compute, "communication_s": r.communication,
                  "stack_rank": r.stack_rank, "link_stack_s": r.link_stack},
    }
    if study.simulation is not None:
        out["simulation"] = study.simulation.to_dict()
    if study.measured is not None:
        out["measured"] = _measured_dict(study.measured, r.time, study.simulation)
    if study.sweep:
        out["sweep"] = [{"procs": row.count, "array": row.array, "time_s": row.seconds, "efficiency": row.efficiency,
                         "change": row.change, "machine": str(row.machine) if row.machine is not None else None,
                         "machine_grown": row.grown} for row in study.sweep]
    out.update(answers_dict(study))
    return out


def _measured_dict(measured: WavefrontTimes, model_s: float, simulation: Simulation | None) -> dict[str, Any]:
    out: dict[str, Any] = {"median_s": measured.median, "samples_s": measured.samples.tolist(),
                           "split_s": measured.split(), "work": measured.work, "verified": measured.verified,
                           "model_error": error_of(measured.median, model_s)}
    if simulation is not None:
        out["simulation_error"] = error_of(measured.median, simulation.total)
    return out
