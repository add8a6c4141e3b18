"""Typed records: dataclasses that turn into the plain data of a results file
and back, checking types on the way in.

Every record of a results file is a `Record` (the envelope every benchmark
shares: name, node, status, timings) whose `parameters`, `raw` and `derived`
are the benchmark's own dataclasses. Conversion is driven by the type hints
of the dataclasses, so a record type is declared once and both directions
follow from it:

* `to_plain(value)`: dataclasses become dicts (fields in declaration order;
  keys of `optional()` fields are left out while they are None), NumPy values
  become Python numbers and lists, and non-finite floats become None (JSON
  has no NaN).
* `from_plain(type, data)`: plain data back into the type, checking every
  value against its hint; the error names the path inside the record
  ("derived.levels[1].size: expected an integer, got str"). Numbers must be
  finite (and integers within 64 bits); `Annotated[T, Check(...)]` hints add
  a rule (positive, not empty, a pair), and a dataclass's `_validate(path)`
  checks what ties its fields together (every distance has a bandwidth).
  Keys a dataclass does not know are kept aside and written back, so a file
  round-trips unchanged even when a newer hpcbench added fields.

Records and their parts can also be read like the dicts of earlier
versions (`record["derived"]["levels"][0]["size"]`), so scripts written
against plain dicts keep working.
"""
from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, TypeVar, Union

import numpy as np

from ._errors import ResultsError

_OMIT_NONE = "omit_none"
_EXTRA = "_extra"     # attribute holding the keys a dataclass does not know


class SchemaError(ResultsError):
    """Plain data that does not fit a record type; the message names the path."""


#: Integers a record may hold: what a C int64 holds (sizes, counts, indexes).
_INT_LIMIT = (1 << 63) - 1


@dataclasses.dataclass(frozen=True)
class Check:
    """A rule on a record field's value, attached with typing.Annotated:
    `Annotated[float, POSITIVE]`."""

    test: Callable[[Any], bool]
    rule: str

    def __call__(self, value: Any, path: str) -> None:
        if not self.test(value):
            raise SchemaError(f"{path or 'the record'}: {self.rule}, got {_short(value)}")


POSITIVE = Check(lambda v: v > 0, "must be positive")
NON_NEGATIVE = Check(lambda v: v >= 0, "must not be negative")
AT_LEAST_ONE = Check(lambda v: v >= 1, "must be at least 1")
NON_EMPTY = Check(lambda v: len(v) > 0, "must not be empty")
TWO = Check(lambda v: len(v) == 2, "must hold two values")
#: Common field types: a positive number; a number, a count that cannot be
#: negative; a count or size of at least one; two values (a pair of PUs).
Positive = Annotated[float, POSITIVE]
NonNegative = Annotated[float, NON_NEGATIVE]
Count = Annotated[int, NON_NEGATIVE]
One = Annotated[int, AT_LEAST_ONE]
Pair = Annotated[list[int], TWO]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def require(condition: bool, path: str, rule: str) -> None:
    """For a dataclass's `_validate`: SchemaError at `path` unless `condition`."""
    if not condition:
        raise SchemaError(f"{path or 'the record'}: {rule}")

def required() -> Any:
    """A field a subclass makes required where its base has a default (a
    typed record's parameters, raw and derived; a bare annotation would
    inherit the base's None)."""
    return dataclasses.field()


def optional(default: Any = None) -> Any:
    """A dataclass field that is left out of the plain data while it is None
    (parts a benchmark only has in some runs)."""
    return dataclasses.field(default=default, metadata={_OMIT_NONE: True})


class Mapping:
    """Dict-style reading of a record dataclass: record["key"], .get(),
    `in` and .keys(), as scripts written for plain dicts expect."""

    def __getitem__(self, key: str) -> Any:
        if _is_field(self, key):
            value = getattr(self, key)
            if value is not None or not _omitted_when_none(self, key):
                return value
        extra = getattr(self, _EXTRA, {})
        if key in extra:
            return extra[key]
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key, _MISSING) is not _MISSING

    def keys(self) -> list[str]:
        """The keys of the plain data, in order (fields left out while None are not keys)."""
        return list(to_plain(self))


_MISSING = object()


def _is_field(obj: Any, key: str) -> bool:
    return key in _fields(type(obj))


def _omitted_when_none(obj: Any, key: str) -> bool:
    return bool(_fields(type(obj))[key].metadata.get(_OMIT_NONE, False))


# Per class, once: its dataclass fields by name and its resolved type hints.
_FIELDS: dict[type, dict[str, dataclasses.Field[Any]]] = {}
_HINTS: dict[type, dict[str, Any]] = {}


def _fields(cls: type) -> dict[str, dataclasses.Field[Any]]:
    if cls not in _FIELDS:
        _FIELDS[cls] = {f.name: f for f in dataclasses.fields(cls)}
    return _FIELDS[cls]


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls, include_extras=True)
    return _HINTS[cls]


# ---- to plain data ------------------------------------------------------------

def to_plain(value: Any) -> Any:
    """Plain, JSON-ready data: dicts, lists, str, int, float (finite), bool, None."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if v is None and f.metadata.get(_OMIT_NONE):
                continue
            out[f.name] = to_plain(v)
        for k, v in getattr(value, _EXTRA, {}).items():
            out.setdefault(k, v)
        return out
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_plain(value.tolist())
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else None
    return value


# ---- from plain data ------------------------------------------------------------
#
# Each type is turned once into a converter, a function (value, path) -> value,
# kept in _CONVERTERS: a results file of a million records reads the type
# hints once, not once per value. Lists and tables of plain numbers or strings
# are checked at C speed first (the types present, their range, a finite sum);
# only a list that fails that check is walked value by value, to name the path
# of the bad value. Paths are made only for what a value is converted under.

Converter = Callable[[Any, str], Any]
_CONVERTERS: dict[Any, Converter] = {}      # type hint -> its converter


def from_plain(tp: Any, value: Any, path: str = "") -> Any:
    """`value` (plain data) as type `tp`; SchemaError naming the path if it does not fit."""
    return _converter(tp)(value, path)


def _converter(tp: Any) -> Converter:
    """The cached converter of `tp`."""
    try:
        return _CONVERTERS[tp]
    except KeyError:
        conv = _CONVERTERS[tp] = _build(tp)
        return conv
    except TypeError:                 # an unhashable hint: not cached
        return _build(tp)


def _build(tp: Any) -> Converter:
    if tp is Any:
        return lambda value, path: value
    origin = typing.get_origin(tp)
    if origin is Annotated:
        return _annotated(tp)
    if origin is Union or origin is types.UnionType:
        return _union(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp)
    if origin is list:
        return _list(tp)
    if origin is dict:
        return _dict(tp)
    if tp in _SCALARS:
        return _SCALARS[tp]

    def unknown(value: Any, path: str) -> Any:
        raise TypeError(f"no plain-data conversion for {tp!r} at {path}")
    return unknown


def _annotated(tp: Any) -> Converter:
    inner, *extras = typing.get_args(tp)
    convert = _converter(inner)
    checks = [c for c in extras if isinstance(c, Check)]

    def conv(value: Any, path: str) -> Any:
        converted = convert(value, path)
        for check in checks:
            check(converted, path)
        return converted
    return conv


def _union(tp: Any) -> Converter:
    args = typing.get_args(tp)
    nullable = type(None) in args
    candidates = [a for a in args if a is not type(None)]
    if nullable and len(candidates) == 1:          # X | None: X's own error (as when the one candidate fails)
        convert = _converter(candidates[0])
        return lambda value, path: None if value is None else convert(value, path)

    def conv(value: Any, path: str) -> Any:
        if value is None:
            if nullable:
                return None
            raise _mismatch(path, _describe(args), value)
        errors = []
        for arg in candidates:
            try:
                return _converter(arg)(value, path)
            except SchemaError as e:
                errors.append(e)
        if len(errors) == 1:
            raise errors[0]
        raise _mismatch(path, _describe(args), value)
    return conv


def _dataclass(cls: type) -> Converter:
    table: list[Any] = []           # filled on first use: hints may name classes defined after this one

    def conv(value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            raise _mismatch(path, "an object", value)
        if not table:
            fields, hints = _fields(cls), _hints(cls)
            table.append({name: _converter(hints[name]) for name, f in fields.items() if f.init})
            table.append([name for name, f in fields.items() if f.init and f.default is dataclasses.MISSING
                          and f.default_factory is dataclasses.MISSING])
        converters, required_names = table
        kwargs, extra = {}, {}
        for key, v in value.items():
            convert = converters.get(key)
            if convert is not None:
                kwargs[key] = convert(v, _join(path, key))
            else:
                extra[key] = v
        missing = [name for name in required_names if name not in kwargs]
        if missing:
            raise SchemaError(f"{_join(path, missing[0])}: missing")
        obj = cls(**kwargs)
        if extra:
            object.__setattr__(obj, _EXTRA, extra)
        validate = getattr(obj, "_validate", None)
        if validate is not None:
            validate(path)
        return obj
    return conv


def _all_fit(tp: Any, values: Any) -> bool:
    """True if every value plainly fits the scalar type `tp` (checked in C:
    the set of types, the range of integers, a finite sum of floats); False
    means "check one by one" (it may still fit: a NumPy number, a huge sum)."""
    kinds = set(map(type, values))
    if tp is str or tp is bool:
        return kinds <= {tp}
    if tp is int:
        return kinds <= {int} and (not kinds or min(values) >= -_INT_LIMIT and max(values) <= _INT_LIMIT)
    if tp is float:
        if not kinds <= {int, float}:
            return False
        if int in kinds and not (min(values) >= -_INT_LIMIT and max(values) <= _INT_LIMIT):
            return False
        return math.isfinite(sum(values))
    return False


def _list(tp: Any) -> Converter:
    (item,) = typing.get_args(tp) or (Any,)
    convert = _converter(item)
    scalar = item in _SCALARS

    def conv(value: Any, path: str) -> Any:
        if not isinstance(value, list):
            raise _mismatch(path, "a list", value)
        if item is Any or scalar and _all_fit(item, value):
            return list(value)
        return [convert(v, f"{path}[{i}]") for i, v in enumerate(value)]
    return conv


def _dict(tp: Any) -> Converter:
    _, item = typing.get_args(tp) or (str, Any)
    convert = _converter(item)
    scalar = item in _SCALARS

    def conv(value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            raise _mismatch(path, "an object", value)
        if item is Any or scalar and _all_fit(item, value.values()):
            return dict(value)
        return {k: convert(v, _join(path, k)) for k, v in value.items()}
    return conv


def _to_float(value: Any, path: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _mismatch(path, "a number", value)
    if isinstance(value, float) and not math.isfinite(value) or isinstance(value, int) and abs(value) > _INT_LIMIT:
        raise SchemaError(f"{path or 'the record'}: must be a finite number, got {_short(value)}")
    return value      # an int stays an int: the file must round-trip unchanged


def _to_int(value: Any, path: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _mismatch(path, "an integer", value)
    if abs(value) > _INT_LIMIT:
        raise SchemaError(f"{path or 'the record'}: must be an integer of at most 64 bits, got {_short(value)}")
    return value


def _to_str(value: Any, path: str) -> Any:
    if not isinstance(value, str):
        raise _mismatch(path, "a string", value)
    return value


def _to_bool(value: Any, path: str) -> Any:
    if not isinstance(value, bool):
        raise _mismatch(path, "true or false", value)
    return value


def _to_none(value: Any, path: str) -> Any:
    if value is not None:
        raise _mismatch(path, "null", value)
    return None


_SCALARS: dict[Any, Converter] = {float: _to_float, int: _to_int, str: _to_str, bool: _to_bool, type(None): _to_none}


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else str(key)


def _describe(args: tuple[Any, ...]) -> str:
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false", type(None): "null"}
    return " or ".join(names.get(a, getattr(a, "__name__", str(a))) for a in args)


def _mismatch(path: str, expected: str, value: Any) -> SchemaError:
    got = "null" if value is None else type(value).__name__
    return SchemaError(f"{path or 'the record'}: expected {expected}, got {got}")


# ---- the envelope ---------------------------------------------------------------

#: What became of a benchmark: measured, failed (`error`) or skipped (`reason`).
STATUSES = ("ok", "failed", "skipped")


@dataclasses.dataclass(kw_only=True)
class Record(Mapping):
    """One benchmark's entry in a results file.

    The runner fills the envelope (node, started, status, elapsed_s); a
    benchmark's `run` fills parameters, raw, derived, units and warnings with
    its own types (a subclass narrows them). A record that failed or was
    skipped is a plain Record with `error` or `reason`."""

    name: str
    node: str | None = optional()
    started: str | None = optional()
    parameters: Any = optional()
    raw: Any = optional()
    derived: Any = optional()
    units: dict[str, str] | None = optional()
    warnings: list[str] | None = optional()
    status: str = "ok"             #: "ok", "failed" or "skipped"
    reason: str | None = optional()      #: why it was skipped
    error: str | None = optional()       #: why it failed, one line
    traceback: str | None = optional()
    elapsed_s: float | None = optional()

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def _validate(self, path: str) -> None:
        require(self.status in STATUSES, f"{path}.status" if path else "status",
                f"must be one of {', '.join(STATUSES)}, got {self.status!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the results file."""
        plain: dict[str, Any] = to_plain(self)      # a dataclass is always a dict of plain data
        return plain

    @classmethod
    def from_dict(cls: type[_RecordT], data: dict[str, Any], path: str = "") -> _RecordT:
        """Plain data (as in a results file) back into this type; SchemaError
        naming the path inside the record if it does not fit."""
        record: _RecordT = from_plain(cls, data, path)     # the converter of a dataclass builds that class
        return record


#: A Record subclass (from_dict returns the class it is called on).
_RecordT = TypeVar("_RecordT", bound=Record)
