"""Results files: round trip, atomic writes, and clear errors."""
import json
import os
from pathlib import Path

import numpy as np
import pytest

import hpcbench
from hpcbench._record import Record
from hpcbench._results import FORMAT_VERSION, Results, ResultsError
from hpcbench.cache import CacheRecord

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "hpcbench", "examples")


def sample():
    """A record of a benchmark this version does not know: kept as plain data."""
    return Results({"date": "2026-01-01", "hosts": ["a"]},
                   [Record(name="example", node="a", status="ok",
                           raw={"sizes": np.array([1024, 2048]), "x": np.float64("nan")},
                           derived={"levels": [{"level": 1, "size": np.int64(32768)}]})])


def test_round_trip(tmp_path):
    path = str(tmp_path / "r.json")
    sample().save(path)
    r = hpcbench.load(path)
    assert r.get("example")["raw"]["sizes"] == [1024, 2048]
    assert r.get("example")["raw"]["x"] is None  # NaN is not JSON
    assert r.get("example", node="a")["derived"]["levels"][0]["size"] == 32768
    assert r.names() == ["example"]
    with pytest.raises(KeyError):
        r.get("memory")
    assert [f for f in os.listdir(tmp_path) if f != "r.json"] == []  # no temporary left


def test_readers_ignore_unknown_fields(tmp_path):
    path = tmp_path / "r.json"
    data = json.loads(Path(os.path.join(EXAMPLES, "cache-example.json")).read_text())
    data["future_field"] = 1
    data["benchmarks"][0]["another"] = 3
    data["benchmarks"][0]["derived"]["levels"][0]["new_key"] = [1, 2]
    path.write_text(json.dumps(data))
    res = hpcbench.load(str(path))
    rec = res.get("cache")
    assert rec.status == "ok" and rec["another"] == 3 and rec.derived.levels[0]["new_key"] == [1, 2]
    # ... and write them back unchanged.
    res.save(str(path))
    again = json.loads(path.read_text())["benchmarks"][0]
    assert again["another"] == 3 and again["derived"]["levels"][0]["new_key"] == [1, 2]


def test_records_are_typed_and_checked(tmp_path):
    data = json.loads(Path(os.path.join(EXAMPLES, "cache-example.json")).read_text())
    rec = hpcbench.load(os.path.join(EXAMPLES, "cache-example.json")).get("cache")
    stored = data["benchmarks"][0]["derived"]["levels"][0]["size"]
    assert isinstance(rec, CacheRecord) and rec.derived.levels[0].size == stored
    assert rec.derived.levels[0].method == "edge" and rec.derived.placement.kind == "unknown"
    assert rec["derived"]["levels"][0]["size"] == rec.derived.levels[0].size   # dict-style reading still works
    data["benchmarks"][0]["derived"]["levels"][1]["size"] = "big"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match=r"'cache' record: benchmarks\[0\]\.derived\.levels\[1\]\.size: "
                                           "expected an integer, got str") as err:
        hpcbench.load(str(path))
    assert "\n" not in str(err.value)
    del data["benchmarks"][0]["derived"]["levels"]
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match=r"derived\.levels: missing"):
        hpcbench.load(str(path))


@pytest.mark.parametrize("content,message", [
    (None, "not found"),
    ('{"format": "hpcbench-results", "format_version": 1, "cont', "damaged or truncated"),
    ('{"format": "hpcbench-results", "format_version": 99, "context": {}, "benchmarks": []}', "version 99"),
    ('{"hello": 1}', "not an hpcbench results file"),
    ('{"format": "hpcbench-results", "format_version": 1}', "missing context"),
    ('{"format": "hpcbench-results", "format_version": 1, "context": {}, "benchmarks": [{}]}', "has no name"),
])
def test_bad_files_give_one_line(tmp_path, content, message):
    path = tmp_path / "r.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ResultsError, match=message) as err:
        hpcbench.load(str(path))
    assert "\n" not in str(err.value)


def test_truncated_real_file(tmp_path):
    path = tmp_path / "r.json"
    sample().save(str(path))
    path.write_text(path.read_text()[:-40])
    with pytest.raises(ResultsError, match="truncated"):
        hpcbench.load(str(path))


def test_format_version_constant():
    assert sample().to_dict()["format_version"] == FORMAT_VERSION == 1


def test_saved_file_follows_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        path = tmp_path / "r.json"
        sample().save(str(path))
        assert (path.stat().st_mode & 0o777) == 0o644
    finally:
        os.umask(old)
