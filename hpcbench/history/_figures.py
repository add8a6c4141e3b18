"""The headline figures of one run (hpcbench._headline: what each
benchmark says two runs are compared by), keyed so that the same figure of
two runs meets: benchmark, node, label and unit."""
from __future__ import annotations

import math
from typing import NamedTuple

from .. import _registry
from .._headline import Headline, unique_labels
from .._results import Results


class FigureKey(NamedTuple):
    """One headline figure across runs."""
    benchmark: str
    node: str
    label: str
    unit: str

    def text(self) -> str:
        """'stream on vm: Triad, all cores'."""
        return f"{self.benchmark} on {self.node}: {self.label}"


def figures_of(results: Results) -> dict[FigureKey, Headline]:
    """Every headline figure of the run's finished records, in file order.
    A record this version does not know, or whose benchmark cannot make its
    headlines from it (an odd file), gives none; a label a record repeats
    gets ' (2)', ' (3)' ... as the side-by-side report does."""
    out: dict[FigureKey, Headline] = {}
    for record in results.benchmarks:
        if record.status != "ok" or record.name not in _registry.names():
            continue
        try:
            headlines = list(_registry.get(record.name).headlines(record) or [])
        except Exception:  # noqa: BLE001 - one odd record must not cost the history its other figures
            continue
        for label, h in unique_labels(headlines).items():
            out[FigureKey(record.name, record.node or "?", label, h.unit)] = h
    return out


def value_of(headline: Headline | None) -> float | None:
    """The headline's value where it is a finite number, else None."""
    if headline is None or headline.value is None:
        return None
    value = float(headline.value)
    return value if math.isfinite(value) else None
