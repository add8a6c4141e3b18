"""Results files: versioned JSON, written atomically after every benchmark.

Layout (format_version 1):
  {"format": "hpcbench-results", "format_version": 1,
   "context": {...}, "benchmarks": [record, ...]}
A record: {"name", "node", "status": "ok"|"failed", "started", "elapsed_s",
"parameters", "raw", "derived", "units", "warnings", "error"}. Readers
ignore fields they do not know.
"""
from __future__ import annotations

import json
import math
import os
import tempfile

import numpy as np

FORMAT = "hpcbench-results"
FORMAT_VERSION = 1


class ResultsError(ValueError):
    """A results file that cannot be read; the message is one line."""


class Results:
    """A results file in memory: context plus benchmark records."""

    def __init__(self, context: dict, benchmarks=None, path=None):
        self.context = context
        self.benchmarks = list(benchmarks or [])
        self.path = path

    def get(self, name: str, node: str | None = None) -> dict:
        """The first record of benchmark `name` (on `node`, if given)."""
        for rec in self.benchmarks:
            if rec.get("name") == name and (node is None or rec.get("node") == node):
                return rec
        raise KeyError(f"no {name!r} benchmark in these results")

    def names(self) -> list:
        return [r.get("name") for r in self.benchmarks]

    # Servet 3.0's degradation API (section 4.3), on a results file.
    def _ratio_table(self, name: str, key: str) -> dict:
        for rec in self.benchmarks:
            if rec.get("name") == name and rec.get("status") == "ok":
                return {int(k): float(v) for k, v in rec["derived"][key].items()}
        return {}

    @property
    def network_dist_ratios(self) -> dict:
        """ratDist: {distance: reference bandwidth / bandwidth at that distance}."""
        return self._ratio_table("distance", "rat_dist")

    @property
    def network_access_ratios(self) -> dict:
        """ratNC: {processes per node: reference bandwidth / bandwidth}."""
        return self._ratio_table("network-access", "rat_nc")

    def get_network_dist_ratio(self, dist: int) -> float:
        """ratDist[dist]; ValueError (one line) if out of range or not measured."""
        from .network.analysis import DegradationRatios
        return DegradationRatios(self.network_dist_ratios, {}).get_network_dist_ratio(dist)

    def get_network_access_ratio(self, nprocs_per_node: int) -> float:
        """ratNC[nprocs_per_node]; ValueError (one line) if out of range or not measured."""
        from .network.analysis import DegradationRatios
        return DegradationRatios({}, self.network_access_ratios).get_network_access_ratio(nprocs_per_node)

    def to_dict(self) -> dict:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "context": self.context,
                "benchmarks": self.benchmarks}

    def save(self, path: str) -> None:
        """Write atomically: a temporary file in the same folder, then rename."""
        text = _dumps(_plain(self.to_dict()))
        folder = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".hpcbench-", suffix=".json", dir=folder)
        try:
            # mkstemp makes the file private; a results file is as readable
            # as any file this process creates.
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)
            with os.fdopen(fd, "w") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
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
        raise ResultsError(f"{path} has results format version {version!r}; this hpcbench reads version {FORMAT_VERSION}")
    if not isinstance(data.get("context"), dict) or not isinstance(data.get("benchmarks"), list):
        raise ResultsError(f"results file {path} is damaged (missing context or benchmarks)")
    if not all(isinstance(b, dict) and "name" in b for b in data["benchmarks"]):
        raise ResultsError(f"results file {path} is damaged (a benchmark record has no name)")
    return Results(data["context"], data["benchmarks"], path=path)


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


def _plain(obj):
    """NumPy values to JSON-ready Python; non-finite floats become None."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else None
    return obj
