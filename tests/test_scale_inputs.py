"""Huge but valid inputs (issue 24): the loader, `show`, `report` and `map`
stay linear in the size of what they read, or refuse it early in one line.

Known answers only: record counts, the lines and sections made, the
anchors and pairs of the report against the quadratic code they replace,
the codec's fast path against its value-by-value path. Nothing here times
anything or asserts a memory figure (benchmarks/bench_huge_inputs.py
measures both)."""
import io
import json
import os
import random
from contextlib import redirect_stderr, redirect_stdout
from typing import Annotated

import numpy as np
import pytest

import hpcbench
from hpcbench import _results
from hpcbench._record import POSITIVE, SchemaError, from_plain
from hpcbench._show import MAX_HOSTS_SHOWN, hosts_text, summary
from hpcbench.cli import main
from hpcbench.mapping import _inputs, map_processes
from hpcbench.report import _compare, _page
from hpcbench.report._page import MAX_RECORDS, counts, single_page

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "hpcbench", "examples")


# ---- the generators (a small copy of benchmarks/bench_huge_inputs.py's) -----------------------------

def write_results(path, context: dict, records) -> str:
    """A results file written record by record."""
    with open(path, "w") as f:
        f.write('{"format": "hpcbench-results", "format_version": 1, "context": ' + json.dumps(context) +
                ', "benchmarks": [')
        for i, record in enumerate(records):
            f.write(("," if i else "") + json.dumps(record))
        f.write("]}")
    return str(path)


def small_records(n: int, nodes: int | None = None):
    """n skipped and failed records, alternating; on n nodes (or `nodes` nodes, repeating)."""
    for i in range(n):
        node = f"n{i % nodes if nodes else i}"
        if i % 2:
            yield {"name": "memory", "node": node, "status": "failed", "error": f"error {i}", "elapsed_s": 0.5,
                   "warnings": ["w"]}
        else:
            yield {"name": "cache", "node": node, "status": "skipped", "reason": f"reason {i}"}


def hosts_file(path, n: int) -> str:
    """The mapping node example (shared-caches and memory of one node, its topology), naming n hosts."""
    with open(os.path.join(EXAMPLES, "mapping-node-example.json")) as f:
        example = json.load(f)
    keep = [r for r in example["benchmarks"] if r["name"] in ("shared-caches", "memory")]
    hosts = [keep[0]["node"]] + [f"node{i:06d}" for i in range(1, n)]
    return write_results(path, dict(example["context"], hosts=hosts), keep)


# ---- the loader -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [10_000, 100_000])
def test_the_loader_reads_every_record(tmp_path, n):
    results = hpcbench.load(write_results(tmp_path / "r.json", {"hosts": ["n0"]}, small_records(n)))
    assert len(results.benchmarks) == n
    assert [r.status for r in results.benchmarks[:4]] == ["skipped", "failed", "skipped", "failed"]
    last = results.benchmarks[-1]
    assert (last.node, last.error, last.warnings) == (f"n{n - 1}", f"error {n - 1}", ["w"])


def test_no_memory_is_one_line(tmp_path, monkeypatch):
    path = write_results(tmp_path / "r.json", {}, small_records(10))

    def no_memory(*args, **kwargs):
        raise MemoryError
    monkeypatch.setattr(_results.json, "loads", no_memory)
    with pytest.raises(hpcbench.ResultsError, match=r"^not enough memory to load the results file .*r\.json "
                                                    r"\(0 MiB\); free memory") as err:
        hpcbench.load(path)
    assert "\n" not in str(err.value)


def test_depth_walks_containers_only():
    assert _results._depth([0.5] * 100_000) == 1
    assert _results._depth({"a": [[1, 2], [3, [4]]], "b": "x"}) == 4
    assert _results._depth(7) == 0
    deep: list = []
    for _ in range(200):
        deep = [deep]
    assert _results._depth(deep) == _results.MAX_DEPTH + 1       # the walk stops below the limit


# ---- the codec's fast path agrees with the value-by-value one -----------------------------------------

CASES = [
    (list[float], [1, 2.5, -3]), (list[float], []), (list[float], [True]), (list[float], [1.0, float("nan")]),
    (list[float], [1e308, 1e308]), (list[float], [1 << 70]), (list[float], [np.float64(2.0), 1.0]),
    (list[float], ["1"]), (list[int], [1, 2, -(1 << 63) + 1]), (list[int], [1, 2.0]), (list[int], [1 << 64]),
    (list[int], [False]), (list[str], ["a", "b"]), (list[str], ["a", 1]), (list[bool], [True, 0]),
    (list[list[float]], [[1.0], [2, None]]), (dict[str, float], {"1": 2.0, "2": float("inf")}),
    (dict[str, int], {"a": 1, "b": 2}), (dict[str, str], {"a": None}), (list[Annotated[float, POSITIVE]], [1, 0]),
    (list[float | None], [1.0, None, "x"]),
]


def slow(tp, value, path):
    """The value-by-value conversion: the list or table's items one by one."""
    origin = getattr(tp, "__origin__", None)
    if origin is list and isinstance(value, list):
        (item,) = tp.__args__
        return [from_plain(item, v, f"{path}[{i}]") for i, v in enumerate(value)]
    if origin is dict and isinstance(value, dict):
        item = tp.__args__[1]
        return {k: from_plain(item, v, f"{path}.{k}") for k, v in value.items()}
    return from_plain(tp, value, path)


def outcome(convert, tp, value):
    try:
        return "ok", convert(tp, value, "x")
    except SchemaError as e:
        return "error", str(e)


@pytest.mark.parametrize("tp,value", CASES)
def test_fast_path_says_what_the_slow_path_says(tp, value):
    fast = outcome(from_plain, tp, value)
    assert fast == outcome(slow, tp, value)
    if fast[0] == "ok":
        assert fast[1] is not value           # a copy, as before: the record does not share the file's lists


# ---- show -----------------------------------------------------------------------------------------------

def test_show_prints_every_record_once(tmp_path):
    n = 20_000
    results = hpcbench.load(write_results(tmp_path / "r.json", {"hosts": ["n0"]}, small_records(n)))
    text = summary(results)
    assert text.count(": skipped: reason ") == n // 2 and text.count(": FAILED: error ") == n // 2
    assert text.count("  warning: w\n") == n // 2


def test_show_names_up_to_max_hosts_then_counts():
    few = [f"h{i}" for i in range(MAX_HOSTS_SHOWN)]
    assert hosts_text(few) == ", ".join(few)
    many = [f"h{i}" for i in range(1_000_000)]
    shown = ", ".join(many[:MAX_HOSTS_SHOWN - 1])
    assert hosts_text(many) == f"{shown} and {1_000_000 - MAX_HOSTS_SHOWN + 1} more"
    assert hosts_text(None) == ""


# ---- report ---------------------------------------------------------------------------------------------

def old_anchors(records, prefix=""):
    """The anchors as the report named them before (a quadratic loop over repeats)."""
    slug = _page.slug
    seen = {"machine", "overview"} | {f"across-{slug(r.name)}" for r in records}
    out = []
    for r in records:
        base = anchor = f"{prefix}{slug(r.name)}-{slug(r.node or 'node')}"
        n = 1
        while anchor in seen:
            n += 1
            anchor = f"{base}-{n}"
        seen.add(anchor)
        out.append(anchor)
    return out


def test_anchors_of_repeated_records_are_unchanged(tmp_path):
    records = [{"name": "cache", "node": node, "status": "skipped", "reason": "r"}
               for node in ["a", "a", "a-2", "a", "b", "a", "a-3", "a-2", "a", None, None]]
    results = hpcbench.load(write_results(tmp_path / "r.json", {}, records))
    views, _ = _page.views(results, figures=False)
    assert [v.anchor for v in views] == old_anchors(results.benchmarks)
    assert len({v.anchor for v in views}) == len(records)


def test_report_shows_the_first_records_and_counts_every_one(tmp_path):
    n = MAX_RECORDS + 2_001
    results = hpcbench.load(write_results(tmp_path / "r.json", {"hosts": ["n0"]}, small_records(n, nodes=7)))
    html, views = single_page(results, figures=False)
    assert len(views) == MAX_RECORDS
    assert [v.anchor for v in views] == old_anchors(results.benchmarks[:MAX_RECORDS])
    assert html.count('<section id="cache-n') + html.count('<section id="memory-n') == MAX_RECORDS
    rest = n - MAX_RECORDS
    assert (f"This results file holds {n} benchmark records; the page shows the first {MAX_RECORDS} (a report "
            f"shows at most {MAX_RECORDS}). The {rest} others (1000 failed, 1001 skipped) are counted") in html
    said = counts(views)
    assert (said["ok"], said["failed"], said["skipped"], said["not_shown"]) == (0, n // 2, n - n // 2, rest)
    assert said["warnings"] == n // 2


def test_report_of_a_small_file_says_nothing_of_limits(tmp_path):
    results = hpcbench.load(write_results(tmp_path / "r.json", {}, small_records(10)))
    html, views = single_page(results, figures=False)
    assert "counted, not shown" not in html and counts(views)["not_shown"] == 0


def old_pairs(a, b):
    """pair_views as it was: a scan of B's unused records per record of A."""
    match, unused = {}, list(b)
    for i, va in enumerate(a):
        found = next((vb for vb in unused if vb.name == va.name and vb.node == va.node), None)
        if found is not None:
            match[i] = found
            unused.remove(found)
    for i, va in enumerate(a):
        if i not in match:
            found = next((vb for vb in unused if vb.name == va.name), None)
            if found is not None:
                match[i] = found
                unused.remove(found)
    return [(va, match.get(i)) for i, va in enumerate(a)] + [(None, vb) for vb in unused]


class View:
    def __init__(self, name, node):
        self.name, self.node = name, node


@pytest.mark.parametrize("seed", range(20))
def test_pairs_are_those_of_the_quadratic_pairing(seed):
    rng = random.Random(seed)
    a = [View(rng.choice("xyz"), rng.choice("123")) for _ in range(rng.randrange(0, 30))]
    b = [View(rng.choice("xyw"), rng.choice("124")) for _ in range(rng.randrange(0, 30))]
    assert _compare.pair_views(a, b) == old_pairs(a, b)


def test_comparison_counts_both_files(tmp_path):
    a = hpcbench.load(write_results(tmp_path / "a.json", {}, small_records(MAX_RECORDS + 3, nodes=5)))
    b = hpcbench.load(write_results(tmp_path / "b.json", {}, small_records(MAX_RECORDS + 5, nodes=5)))
    html, views = _compare.comparison_page(a, b, figures=False)
    assert len(views) == 2 * MAX_RECORDS and counts(views)["not_shown"] == 8
    assert html.count("counted, not shown") == 2


# ---- map ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1_000, 10_000])
def test_map_reads_every_host(tmp_path, n):
    mapping = map_processes(hosts_file(tmp_path / "h.json", n), 4, "memory")
    assert len(mapping.nodes) == n
    assert mapping.nodes[-1].host == f"node{n - 1:06d}"
    # Two PUs per node sharing caches: one process on each of the first four nodes, the others borrowing
    # the first node's records (nodes assumed alike).
    assert [(c.host, c.pu) for c in mapping.by_rank()] == [("hpcb0", 0)] + [(f"node{i:06d}", 0) for i in (1, 2, 3)]
    borrowed = [s for s in mapping.sources if s.rule == "rule 1" and "on hpcb0 (nodes assumed alike)" in s.detail]
    assert len(borrowed) == 1 and len(borrowed[0].hosts) == n - 1

def test_map_refuses_more_hosts_than_its_limit_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(_inputs, "MAX_HOSTS", 50)
    path = hosts_file(tmp_path / "h.json", 51)
    with pytest.raises(ValueError, match="the results name 51 hosts; a mapping is made for at most 50 nodes"):
        map_processes(path, 4, "memory")
    with pytest.raises(ValueError, match="the hosts to map onto are 60 hosts"):
        map_processes(path, 4, "memory", hosts=[f"h{i}" for i in range(60)])
    assert len(map_processes(path, 4, "memory", hosts=["a", "b"]).nodes) == 2
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["map", path, "-n", "4", "--kind", "memory", "--format", "list"])
    assert status == 2 and out.getvalue() == ""
    assert err.getvalue().count("\n") == 1 and "at most 50 nodes" in err.getvalue()


def test_a_repeated_host_is_named_not_every_host(tmp_path):
    hosts = [f"h{i}" for i in range(50_000)] + ["h7"]
    with pytest.raises(ValueError) as err:
        map_processes(hosts_file(tmp_path / "h.json", 2), 1, "memory", hosts=hosts)
    assert str(err.value) == "hosts must not repeat, got h7 more than once in 50001 hosts"
