"""Results files: versioned JSON, written atomically after every benchmark.

Layout (format_version 1):
  {"format": "hpcbench-results", "format_version": 1,
   "context": {...}, "benchmarks": [record, ...]}
A record (hpcbench._record.Record): {"name", "node", "started",
"parameters", "raw", "derived", "units", "warnings", "status", "elapsed_s"}
with status "ok"; "failed" records carry "error" and "traceback" instead of
the measured parts, "skipped" ones a "reason". Readers ignore fields they do
not know (and write them back unchanged).
"""
from __future__ import annotations

import json
import os
import tempfile

from . import _registry
from ._atomic import atomic_write_text
from ._record import Record, SchemaError, to_plain

FORMAT = "hpcbench-results"
FORMAT_VERSION = 1


class ResultsError(ValueError):
    """A results file that cannot be read; the message is one line."""


class Results:
    """A results file in memory: the context block plus one Record per
    finished benchmark (typed by the benchmark that wrote it)."""

    def __init__(self, context: dict, benchmarks: list | None = None, path: str | None = None):
        self.context = context
        self.benchmarks: list[Record] = list(benchmarks or [])
        self.path = path

    def get(self, name: str, node: str | None = None) -> Record:
        """The first record of benchmark `name` (on `node`, if given)."""
        for rec in self.benchmarks:
            if rec.name == name and (node is None or rec.node == node):
                return rec
        raise KeyError(f"no {name!r} benchmark in these results")

    def finished(self, name: str) -> Record | None:
        """The first record of `name` that finished ("ok"), or None."""
        return next((r for r in self.benchmarks if r.name == name and r.ok), None)

    def names(self) -> list:
        return [r.name for r in self.benchmarks]

    # Servet 3.0's degradation API (section 4.3), on a results file.
    @property
    def network_dist_ratios(self) -> dict:
        """ratDist: {distance: reference bandwidth / bandwidth at that distance}."""
        rec = self.finished("distance")
        return rec.derived.ratios() if rec else {}

    @property
    def network_access_ratios(self) -> dict:
        """ratNC: {processes per node: reference bandwidth / bandwidth}."""
        rec = self.finished("network-access")
        return rec.derived.ratios() if rec else {}

    def get_network_dist_ratio(self, dist: int) -> float:
        """ratDist[dist]; ValueError (one line) if out of range or not measured."""
        from .network import DegradationRatios
        return DegradationRatios(self.network_dist_ratios, {}).get_network_dist_ratio(dist)

    def get_network_access_ratio(self, nprocs_per_node: int) -> float:
        """ratNC[nprocs_per_node]; ValueError (one line) if out of range or not measured."""
        from .network import DegradationRatios
        return DegradationRatios({}, self.network_access_ratios).get_network_access_ratio(nprocs_per_node)

    def to_dict(self) -> dict:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "context": to_plain(self.context),
                "benchmarks": [r.to_dict() for r in self.benchmarks]}

    def save(self, path: str) -> None:
        """Write atomically: a temporary file in the same folder, then rename."""
        atomic_write_text(path, _dumps(self.to_dict()))
        self.path = path


def check_writable(path: str) -> None:
    """Raise ValueError (one line) unless a results file can be written at path."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        raise ValueError(f"output path is a directory: {path}")
    if not os.path.isdir(folder):
        raise ValueError(f"output folder does not exist: {folder}")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".hpcbench-probe-", dir=folder)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise ValueError(f"cannot write results to {path}: {e.strerror}") from None


def record_from_dict(data: dict, path: str = "") -> Record:
    """A record of a results file as its benchmark's type (a plain Record for
    failed, skipped or unknown benchmarks); SchemaError if it does not fit."""
    cls: type[Record] = _registry.record_type(data.get("name")) if data.get("status") == "ok" else Record
    return cls.from_dict(data, path)


def load(path: str) -> Results:
    """Read a results file; raises ResultsError with one line if it is missing,
    damaged, truncated or of an unknown format version."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise ResultsError(f"results file not found: {path}") from None
    except IsADirectoryError:
        raise ResultsError(f"results path is a directory: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsError(f"cannot read results file {path}: {e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultsError(f"results file {path} is damaged or truncated (invalid JSON at line {e.lineno})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ResultsError(f"{path} is not an hpcbench results file")
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise ResultsError(f"{path} has results format version {version!r}; "
                           f"this hpcbench reads version {FORMAT_VERSION}")
    if not isinstance(data.get("context"), dict) or not isinstance(data.get("benchmarks"), list):
        raise ResultsError(f"results file {path} is damaged (missing context or benchmarks)")
    records = []
    for i, item in enumerate(data["benchmarks"]):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ResultsError(f"results file {path} is damaged (benchmark record {i} has no name)")
        try:
            records.append(record_from_dict(item, f"benchmarks[{i}]"))
        except SchemaError as e:
            raise ResultsError(f"results file {path} is damaged: {item['name']} record: {e}") from None
    return Results(data["context"], records, path=path)


def _dumps(obj, depth: int = 0) -> str:
    """JSON, indented for reading, but with every list of plain values on one
    line: raw samples stay compact (one number per line would double the
    file) while the structure stays easy to browse."""
    pad, inner = " " * depth, " " * (depth + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = (f"{inner}{json.dumps(k)}: {_dumps(v, depth + 1)}" for k, v in obj.items())
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and any(isinstance(v, (dict, list)) for v in obj):
        return "[\n" + ",\n".join(inner + _dumps(v, depth + 1) for v in obj) + "\n" + pad + "]"
    return json.dumps(obj, separators=(",", ":") if isinstance(obj, list) else None, allow_nan=False)
