"""Golden tests on the shipped examples (hpcbench/examples/*.json): each loads into
typed records, round-trips through from_dict/to_dict unchanged, and `show`
prints exactly the checked-in text (tests/golden/NAME.show.txt). A change to a
record type or a summary that alters what users read shows up here.

To accept an intended change of the summaries: python tests/test_golden.py --update
"""
import dataclasses
import glob
import json
import os
import sys
from pathlib import Path

import pytest

import hpcbench
from hpcbench import _registry
from hpcbench._results import record_from_dict
from hpcbench._show import summary

HERE = os.path.dirname(os.path.abspath(__file__))
# Results files only: hpcbench/examples also holds inputs such as francesca-profile.json.
EXAMPLES = sorted(glob.glob(os.path.join(HERE, "..", "hpcbench", "examples", "*-example.json")))


def golden_path(example: str) -> str:
    return os.path.join(HERE, "golden", os.path.basename(example)[:-5] + ".show.txt")


def unknown_keys(obj, path="record") -> list:
    """Paths of keys the record types did not know (kept aside in _extra)."""
    found = []
    if dataclasses.is_dataclass(obj):
        found += [f"{path}.{k}" for k in getattr(obj, "_extra", {})]
        for f in dataclasses.fields(obj):
            found += unknown_keys(getattr(obj, f.name), f"{path}.{f.name}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            found += unknown_keys(v, f"{path}[{i}]")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            found += unknown_keys(v, f"{path}.{k}")
    return found


def test_there_are_examples_of_every_benchmark():
    names = {b["name"] for e in EXAMPLES for b in json.loads(Path(e).read_text())["benchmarks"]}
    assert names == set(_registry.names())


@pytest.mark.parametrize("example", EXAMPLES, ids=os.path.basename)
def test_example_round_trips_unchanged(example):
    data = json.loads(Path(example).read_text())
    for i, item in enumerate(data["benchmarks"]):
        record = record_from_dict(item, f"benchmarks[{i}]")
        assert type(record) is _registry.record_type(item["name"])
        assert unknown_keys(record) == []            # every field of the file is typed
        assert record.to_dict() == item
        assert json.dumps(record.to_dict()) == json.dumps(item)   # same keys in the same order


@pytest.mark.parametrize("example", EXAMPLES, ids=os.path.basename)
def test_show_matches_the_golden_text(example):
    expected = Path(golden_path(example)).read_text()
    assert summary(hpcbench.load(example)) == expected


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    for example in EXAMPLES:
        with open(golden_path(example), "w") as f:
            f.write(summary(hpcbench.load(example)))
        print("wrote", golden_path(example))
