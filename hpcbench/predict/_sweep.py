"""Section 6's projections over process counts: the time per iteration of
the same code on the most square array of each count (params_for: the
grid split unevenly where the array does not divide it), its parallel
efficiency against the first count, and its change against the machine as
measured (no what-if) at the same count."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._allocate import Machine, allocate
from ._inputs import grown_params
from ._model import wavefront
from ._params import WavefrontParams, square_array
from ._placement import Placement
from ._simulate import simulate
from ._wavefront_program import wavefront_program
from ._whatif import Projection, machine_for

__all__ = ["SweepRow", "params_for", "sweep_rows", "time_at"]


@dataclass(frozen=True)
class SweepRow:
    """One process count of a sweep: its array ('MxN'), its time per
    iteration (seconds), its parallel efficiency T(P1) P1 / (T(P) P), its
    change against the machine as measured (a fraction), and the machine it
    ran on (None when no machine is known), `grown` when the one given had
    too few cores."""

    count: int
    array: str
    seconds: float
    efficiency: float
    change: float
    machine: Machine | None = None
    grown: bool = False


def sweep_rows(params: WavefrontParams, counts: Sequence[int], projected: Projection, measured: Projection,
               alloc: str | None = None, sends: str | None = None) -> tuple[SweepRow, ...]:
    """A SweepRow for every count: ranks placed by `alloc` (default node
    fill) on the machine (every pair "other node" when none is known),
    grown in nodes where the count needs more cores than it has
    (machine_for); by the model, or by the simulation with `sends` ("eager"
    or "blocking"). `params` carry the projected core speed in W_g, as the
    study's prediction does; `measured` is the machine before the what-if."""
    base = params.with_(wg=params.wg * projected.core_speed)
    rows: list[SweepRow] = []
    for count in counts:
        p = params_for(base, count)
        t = _time(p, projected, _placed(count, projected.machine, alloc), sends)
        t_base = _time(p, measured, _placed(count, measured.machine, alloc), sends)
        first = (count, t) if not rows else (rows[0].count, rows[0].seconds)
        machine = machine_for(count, projected.machine) if projected.machine is not None else None
        rows.append(SweepRow(count, f"{p.m}x{p.n}", t, first[1] * first[0] / (t * count), t / t_base - 1.0,
                             machine, grown=machine is not None and machine != projected.machine))
    return tuple(rows)


def time_at(params: WavefrontParams, count: int, machine: Projection, alloc: str | None = None,
            sends: str | None = None) -> float:
    """Seconds per iteration of `params` (W_g as measured) on `count`
    processes, as a sweep row prices them: params_for's array and grid,
    placed by `alloc` on `machine`'s machine grown as needed."""
    p = params_for(params, count)
    return _time(p, machine, _placed(count, machine.machine, alloc), sends)


def params_for(params: WavefrontParams, count: int) -> WavefrontParams:
    """`params` on the most square array of `count` processes: the grid as
    it is, split into blocks of ceil and floor sizes where the array does
    not divide it (as real codes split it, and as the paper's calibration
    reads it); rounded up to whole blocks only where the array has more
    columns (rows) than the grid has cells, which no split can give."""
    m, n = square_array(count)
    if n <= params.nx and m <= params.ny:
        return params.with_(m=m, n=n)
    return grown_params(params, count)


def _placed(count: int, machine: Machine | None, alloc: str | None) -> Placement:
    if machine is None:
        return Placement.uniform(count, "other node")
    return allocate(count, machine_for(count, machine), alloc or "node-fill")


def _time(p: WavefrontParams, machine: Projection, placement: Placement, sends: str | None) -> float:
    """Seconds per iteration of `p` (W_g as measured) on `machine`."""
    speed = machine.core_speed
    if sends is not None:
        return simulate(wavefront_program(p), machine.profile, placement, core_speed=speed, sends=sends).total
    return wavefront(p.with_(wg=p.wg / speed, wg_pre=p.wg_pre / speed), machine.profile, placement).time
