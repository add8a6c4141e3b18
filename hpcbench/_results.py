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
from typing import TYPE_CHECKING, Any

from . import _registry
from ._atomic import atomic_write_text
from ._context import RunContext
from ._errors import ResultsError
from ._record import Record, SchemaError, from_plain, to_plain

if TYPE_CHECKING:          # for the annotation only: pandas is imported by to_frame, when asked
    import pandas

FORMAT = "hpcbench-results"
FORMAT_VERSION = 1
#: The largest results file `load` reads (bytes): far above any real run.
MAX_FILE_BYTES = 1 << 30
#: The deepest nesting of lists and objects a results file may have.
MAX_DEPTH = 64


class Results:
    """A results file in memory: the context block plus one Record per
    finished benchmark (typed by the benchmark that wrote it)."""

    def __init__(self, context: RunContext | dict[str, Any], benchmarks: list[Record] | None = None,
                 path: str | None = None):
        self.context = context if isinstance(context, RunContext) else from_plain(RunContext, context, "context")
        self.benchmarks: list[Record] = list(benchmarks or [])
        self.path = path
        self.unsaved: list[str] = []      #: after a run: benchmarks whose results could not be written to `path`

    def get(self, name: str, node: str | None = None) -> Record:
        """The first record of benchmark `name` (on `node`, if given)."""
        for rec in self.benchmarks:
            if rec.name == name and (node is None or rec.node == node):
                return rec
        raise KeyError(f"no {name!r} benchmark in these results")

    def finished(self, name: str) -> Record | None:
        """The first record of `name` that finished ("ok"), or None."""
        return next((r for r in self.benchmarks if r.name == name and r.ok), None)

    def names(self) -> list[str]:
        return [r.name for r in self.benchmarks]

    # Servet 3.0's degradation API (section 4.3), on a results file.
    @property
    def network_dist_ratios(self) -> dict[int, float]:
        """ratDist: {distance: reference bandwidth / bandwidth at that distance}."""
        rec = self.finished("distance")
        return rec.derived.ratios() if rec else {}

    @property
    def network_access_ratios(self) -> dict[int, float]:
        """ratNC: {processes per node: reference bandwidth / bandwidth}."""
        rec = self.finished("network-access")
        return rec.derived.ratios() if rec else {}

    def get_network_dist_ratio(self, dist: int) -> float:
        """ratDist[dist]; ValueError (one line) if out of range or not measured."""
        from .network._analysis import DegradationRatios
        return DegradationRatios(self.network_dist_ratios, {}).get_network_dist_ratio(dist)

    def get_network_access_ratio(self, nprocs_per_node: int) -> float:
        """ratNC[nprocs_per_node]; ValueError (one line) if out of range or not measured."""
        from .network._analysis import DegradationRatios
        return DegradationRatios({}, self.network_access_ratios).get_network_access_ratio(nprocs_per_node)

    def to_frame(self) -> pandas.DataFrame:
        """The tidy export as a pandas DataFrame: one row per measured figure,
        columns benchmark, node, quantity, parameter, parameter_value, value,
        unit, statistic (hpcbench._tidy; docs/results-format.md, "Tidy
        export"). ImportError (one line) if pandas is not installed."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Results.to_frame needs pandas, which is not installed: pip install pandas") from None
        from ._tidy import COLUMNS, rows
        table = rows(self, _registry.BENCHMARKS)
        return pandas.DataFrame([row.to_dict() for row in table], columns=list(COLUMNS))

    def to_dict(self) -> dict[str, Any]:
        """Plain data of the results file: the format, the context, every record."""
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "context": to_plain(self.context),
                "benchmarks": [r.to_dict() for r in self.benchmarks]}

    def text(self) -> str:
        """The results file's text."""
        return _dumps(self.to_dict())

    def save(self, path: str) -> None:
        """Write atomically: readers see the old file or the new one (OSError if it cannot)."""
        atomic_write_text(path, self.text())
        self.path = path


def record_from_dict(data: dict[str, Any], path: str = "") -> Record:
    """A record of a results file as its benchmark's type (a plain Record for
    failed, skipped or unknown benchmarks); SchemaError if it does not fit."""
    if "status" not in data:
        raise SchemaError(f"{path}.status: missing" if path else "status: missing")
    cls: type[Record] = _registry.record_type(data.get("name")) if data.get("status") == "ok" else Record
    return cls.from_dict(data, path)


def load(path: str) -> Results:
    """Read a results file into typed records; raises ResultsError with one
    line (naming the path inside the file where a value is wrong) if it is
    missing, not a regular file, too large, damaged, truncated, of another
    format version, holds a value its record type does not allow, or does
    not fit in memory. What `load` accepts, `show`, `degr`, `advise` and the
    accessors handle. `example:NAME` names a shipped example
    (hpcbench.examples).

    Work and memory are linear in the file's size: the bytes, the text, the
    parsed JSON and the records never all live at once (at the peak: the
    text and its parsed JSON, about three times the file for a file of
    numbers; docs/results-format.md, "Limits")."""
    path = _resolve_example(path)
    try:
        return _load(path)
    except MemoryError:
        raise ResultsError(f"not enough memory to load the results file {path} ({_mib(path)}); "
                           "free memory, raise the limit (ulimit -v) or load it on a larger machine") from None


def _mib(path: str) -> str:
    try:
        return f"{os.stat(path).st_size / (1 << 20):.0f} MiB"
    except OSError:
        return "size unknown"


def _load(path: str) -> Results:
    data = _parse(_read(path), path)      # the text is freed once parsed: only _parse held it
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ResultsError(f"{path} is not an hpcbench results file")
    version = data.get("format_version")
    if type(version) is not int or version != FORMAT_VERSION:
        raise ResultsError(f"{path} has results format version {version!r}; "
                           f"this hpcbench reads version {FORMAT_VERSION}")
    if not isinstance(data.get("context"), dict) or not isinstance(data.get("benchmarks"), list):
        raise ResultsError(f"results file {path} is damaged (missing context or benchmarks)")
    try:
        context = from_plain(RunContext, data["context"], "context")
    except SchemaError as e:
        raise ResultsError(f"results file {path} is damaged: {e}") from None
    items = data.pop("benchmarks")
    del data
    records = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ResultsError(f"results file {path} is damaged (benchmark record {i} has no name)")
        try:
            records.append(record_from_dict(item, f"benchmarks[{i}]"))
        except SchemaError as e:
            raise ResultsError(f"results file {path} is damaged: {_short_name(item['name'])} record: {e}") from None
        items[i] = None          # each plain record is freed once typed: the two never both live whole
    return Results(context, records, path=path)


def _resolve_example(path: str) -> str:
    from . import examples
    try:
        return examples.resolve(path)
    except FileNotFoundError as e:
        raise ResultsError(str(e)) from None


def _short_name(name: str) -> str:
    return repr(name) if len(name) <= 40 and name.isprintable() else repr(name[:37] + "...")


def _read(path: str) -> str:
    """The text of a regular file of at most MAX_FILE_BYTES (hpcbench._files:
    a FIFO or a device is refused without reading, so it cannot block or
    fill memory). The bytes are freed as soon as they are decoded."""
    from ._files import read_file
    if os.path.isdir(path):      # the words the CLI has always said (read_file would refuse it too)
        raise ResultsError(f"results path is a directory: {path}")
    data = read_file(path, "results file", MAX_FILE_BYTES, ResultsError)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ResultsError(f"cannot read results file {path}: {e}") from None
    finally:
        del data


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a finite number")


def _parse(text: str, path: str) -> Any:
    """JSON with finite numbers only and at most MAX_DEPTH levels of nesting."""
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise ResultsError(f"results file {path} is damaged or truncated (invalid JSON at line {e.lineno})") from None
    except RecursionError:
        raise ResultsError(f"results file {path} is damaged (nested more than {MAX_DEPTH} levels)") from None
    except ValueError as e:          # numbers JSON allows but a results file does not (NaN, 5000 digits)
        raise ResultsError(f"results file {path} is damaged ({e})") from None
    del text                         # the parsed data alone from here on (the caller holds no copy)
    if _depth(data) > MAX_DEPTH:
        raise ResultsError(f"results file {path} is damaged (nested more than {MAX_DEPTH} levels)")
    return data


def _depth(data: object) -> int:
    """The nesting depth of lists and objects, without recursion. Only
    containers are stacked (never the numbers of a long list), and the walk
    stops below MAX_DEPTH."""
    stack: list[tuple[list[Any] | dict[str, Any], int]] = [(data, 1)] if isinstance(data, (list, dict)) else []
    deepest = 0
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            break
        children = item.values() if isinstance(item, dict) else item
        if not set(map(type, children)) <= _LEAVES:     # in C: a list of numbers is not walked in Python
            stack.extend([(v, depth + 1) for v in children if isinstance(v, (list, dict))])
    return deepest


#: The types of JSON values that hold no other value.
_LEAVES = {int, float, str, bool, type(None)}


def _dumps(obj: object, depth: int = 0) -> str:
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
