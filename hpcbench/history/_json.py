"""`hpcbench history --format json`: the same content as the table, as
data: the runs of each machine, each figure's values with the run's date
and file, and its moves with the rule's evidence."""
from __future__ import annotations

import math
from typing import Any

from .._robust import FLOOR, K
from ._moves import Move
from ._names import as_utc
from ._read import History, Run
from ._trend import Trend


def _run(run: Run) -> dict[str, Any]:
    return {"file": run.file, "date": as_utc(run.date).isoformat() if run.date else None}


def _number(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _move(trend: Trend, move: Move) -> dict[str, Any]:
    d = move.deviation
    return {"run": move.run + 1, **_run(trend.runs[move.run]), "kind": move.kind, "side": move.side,
            "direction": move.direction(trend.better), "value": d.value, "median": d.median, "spread": d.spread,
            "spreads_out": _number(d.z), "relative": _number(d.relative), "level_runs": move.level}


def _trend(trend: Trend) -> dict[str, Any]:
    key = trend.key
    return {"benchmark": key.benchmark, "node": key.node, "label": key.label, "unit": key.unit,
            "better": trend.better,
            "values": [{"run": i + 1, "value": v} for i, v in enumerate(trend.values) if v is not None],
            "moves": [_move(trend, m) for m in trend.moves]}


def history_data(history: History, trends: list[Trend]) -> dict[str, Any]:
    """The document `--format json` writes."""
    machines = []
    for machine in history.machines():
        mine = [t for t in trends if t.machine == machine]
        if not mine:
            continue
        machines.append({"cpu_model": machine.cpu_model, "hosts": list(machine.hosts),
                         "runs": [_run(r) for r in history.runs_of(machine)],
                         "figures": [_trend(t) for t in mine]})
    return {"directory": history.directory,
            "rule": {"name": "median/MAD, sequential with confirmation (docs/history.md)", "spreads": K,
                     "floor": FLOOR},
            "skipped": [{"file": name, "reason": why} for name, why in history.skipped],
            "machines": machines}
