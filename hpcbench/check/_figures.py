"""The headline figures of a results file, keyed by benchmark, node and
label: what `check` compares. Each benchmark lists its own
(Benchmark.headlines); a record whose benchmark cannot list them (failed,
skipped, unknown to this version, or code that raises on an odd file) has
none, and its figures of the reference then read as missing."""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import _registry
from .._headline import Headline, unique_labels
from .._record import Record
from .._results import Results


@dataclass
class RecordFigures:
    """One record's headline figures by label (a label repeated in the record gets ' (2)', ' (3)' ...)."""
    benchmark: str
    node: str
    figures: dict[str, Headline] = field(default_factory=dict)
    problem: str | None = None        #: why the benchmark could not list them


def record_figures(record: Record) -> RecordFigures:
    """The headline figures of one record (none where it did not finish, or its benchmark is unknown)."""
    out = RecordFigures(record.name, record.node or "?")
    if record.status != "ok" or record.name not in _registry.names():
        out.problem = f"{record.name} on {out.node}: {record.status}"
        return out
    try:
        out.figures = unique_labels(list(_registry.get(record.name).headlines(record) or []))
    except Exception as e:  # noqa: BLE001 - one record's odd data must not cost the whole check
        out.problem = f"{record.name} on {out.node}: its headline figures: {type(e).__name__}: {e}"
    return out


def results_figures(results: Results) -> list[RecordFigures]:
    """Every record's figures, in file order."""
    return [record_figures(r) for r in results.benchmarks]
