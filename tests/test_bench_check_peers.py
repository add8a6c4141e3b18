"""benchmarks/bench_check_peers.py (issue 30): hpcbench's verdicts and the
peers' file writers and output parsers, on copies of the shipped STREAM
example whose samples are shifted by a known factor: the same file twice
(nothing significant for any tool), one figure x1.3 (every tool flags it,
+30 %), one figure x1.04 with no overlap left (significant for every tool,
but under hpcbench's 5 %). pyperf runs where it is importable and
google/benchmark's compare.py where HPCBENCH_GBENCH_COMPARE names it; the
hpcbench side, the writers and the parsers are always tested. No measured
figure is asserted."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest
from script_modules import load_benchmark

from hpcbench import load

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "benchmarks", "bench_check_peers.py")
STREAM = os.path.join(ROOT, "hpcbench", "examples", "stream-example.json")
GBENCH = os.environ.get("HPCBENCH_GBENCH_COMPARE", "")
COPY_ONE_CORE = "stream on vm: Copy, one core (1 cores)"
ADD_ONE_CORE = "stream on vm: Add, one core (1 cores)"

needs_pyperf = pytest.mark.skipif(importlib.util.find_spec("pyperf") is None,
                                  reason="pyperf is not installed (pip install pyperf)")
needs_gbench = pytest.mark.skipif(not os.path.isfile(GBENCH),
                                  reason="HPCBENCH_GBENCH_COMPARE does not name google/benchmark's tools/compare.py")


bench = load_benchmark("bench_check_peers")


def stream_copy(path, team: int = 0, kernel: int = 0, factor: float | None = None) -> str:
    """The STREAM example, one kernel's best rate on one team times `factor`:
    its headline value and every sample (best x fastest / each repetition's
    time) move by exactly that factor, nothing else moves."""
    with open(STREAM) as f:
        data = json.load(f)
    if factor is not None:
        data["benchmarks"][0]["derived"]["teams"][team]["kernels"][kernel]["best"] *= factor
    with open(path, "w") as f:
        json.dump(data, f)
    return str(path)


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """name -> (current, reference) Results: the same file twice, Copy x1.3, Add x1.04."""
    d = tmp_path_factory.mktemp("cases")
    base = load(stream_copy(d / "base.json"))
    return {"same": (load(stream_copy(d / "again.json")), base),
            "x1.3": (load(stream_copy(d / "copy13.json", kernel=0, factor=1.3)), base),
            "x1.04": (load(stream_copy(d / "add104.json", kernel=2, factor=1.04)), base)}


def by_place(result, calls):
    return {f.place: calls[f.name] for f in result.figures}


def flagged_places(result, calls):
    return sorted(place for place, call in by_place(result, calls).items() if bench.flagged(call, 0.05))


def significant_places(result, calls):
    return sorted(place for place, call in by_place(result, calls).items() if call.significant)


# ---- hpcbench's side and the writers (always).

def test_the_stream_example_gives_the_peers_nine_figures_of_ten_samples(cases):
    result = bench.pair_figures(*cases["same"])
    assert len(result.figures) == 9 and result.without_samples == 0
    assert all(len(f.reference) == len(f.current) == 10 for f in result.figures)
    assert [f.name for f in result.figures] == [f"fig{i:03d}" for i in range(9)]


def test_hpcbench_the_same_file_twice_nothing_significant(cases):
    result = bench.pair_figures(*cases["same"])
    calls = bench.hpcbench_calls(result.figures)
    assert not any(c.significant for c in calls.values())
    assert all(c.change == 0 for c in calls.values())
    assert sum(result.failing.values()) == 0


def test_hpcbench_one_figure_x1_3_is_better_by_30_percent_and_nothing_else(cases):
    result = bench.pair_figures(*cases["x1.3"])
    calls = bench.hpcbench_calls(result.figures)
    assert flagged_places(result, calls) == significant_places(result, calls) == [COPY_ONE_CORE]
    figure = next(f for f in result.figures if f.place == COPY_ONE_CORE)
    assert figure.word == "better" and figure.change == pytest.approx(0.3)
    assert not bench.worse(calls[figure.name], figure.better)


def test_hpcbench_one_figure_x1_04_is_significant_but_under_5_percent(cases):
    result = bench.pair_figures(*cases["x1.04"])
    calls = bench.hpcbench_calls(result.figures)
    assert significant_places(result, calls) == [ADD_ONE_CORE]
    assert flagged_places(result, calls) == []
    assert next(f for f in result.figures if f.place == ADD_ONE_CORE).word == "same"


def test_the_pyperf_writer_puts_each_figures_samples_in_one_run(cases):
    result = bench.pair_figures(*cases["x1.3"])
    suite = bench.pyperf_suite(result.figures, "current")
    assert suite["version"] == "1.0"
    assert [b["metadata"]["name"] for b in suite["benchmarks"]] == [f.name for f in result.figures]
    assert all(b["metadata"]["unit"] == "integer" for b in suite["benchmarks"])     # bytes/s: no pyperf unit
    assert [b["runs"][0]["values"] for b in suite["benchmarks"]] == [list(f.current) for f in result.figures]


def test_the_gbench_writer_writes_repetitions_and_aggregates(cases):
    result = bench.pair_figures(*cases["x1.3"])
    entries = bench.gbench_run(result.figures, "reference")["benchmarks"]
    first = result.figures[0]
    mine = [e for e in entries if e["family_index"] == 0]
    assert [e["run_type"] for e in mine] == ["iteration"] * 10 + ["aggregate"] * 4
    assert [e["real_time"] for e in mine[:10]] == list(first.reference)
    assert [e["cpu_time"] for e in mine[:10]] == list(first.reference)
    assert [e["repetition_index"] for e in mine[:10]] == list(range(10))
    assert [e["name"] for e in mine[10:]] == [f"{first.name}_{a}" for a in ("mean", "median", "stddev", "cv")]
    assert mine[10]["real_time"] == pytest.approx(sum(first.reference) / 10)
    assert len(entries) == 9 * 14


def test_gbench_aggregates_by_hand():
    aggregates = {name: value for name, value, _ in bench.gbench_aggregates((1.0, 2.0, 3.0, 6.0))}
    assert aggregates["mean"] == 3.0 and aggregates["median"] == 2.5
    assert aggregates["stddev"] == pytest.approx((14 / 3) ** 0.5)
    assert aggregates["cv"] == pytest.approx((14 / 3) ** 0.5 / 3)


PYPERF_OUT = """fig001: Mean +- std dev: [reference] 41.0 +- 0.4 -> [current] 53.3 +- 0.5: 1.30x slower

Benchmark hidden because not significant (2): fig000, fig002

Geometric mean: 1.09x slower
"""


def test_parse_pyperf_reads_significant_and_hidden():
    assert bench.parse_pyperf(PYPERF_OUT, ["fig000", "fig001", "fig002"]) == {
        "fig000": False, "fig001": True, "fig002": False}


def test_parse_pyperf_with_one_benchmark_has_no_name_on_the_line():
    out = "Mean +- std dev: [r] 1.03 sec +- 0.05 sec -> [c] 1.33 sec +- 0.03 sec: 1.29x slower\n"
    assert bench.parse_pyperf(out, ["fig000"]) == {"fig000": True}
    assert bench.parse_pyperf("Benchmark hidden because not significant (1): fig000\n", ["fig000"]) == {
        "fig000": False}


def test_parse_pyperf_a_figure_it_does_not_name_is_an_error():
    with pytest.raises(bench.PeerError, match="fig003"):
        bench.parse_pyperf(PYPERF_OUT, ["fig000", "fig001", "fig002", "fig003"])


def test_parse_gbench_reads_the_u_test_and_the_mean():
    report = [{"name": "fig000", "measurements": [], "utest": {"time_pvalue": 0.0499, "cpu_pvalue": 0.0499}},
              {"name": "fig000_mean", "measurements": [{"time": -0.08}], "utest": {}},
              {"name": "fig001", "measurements": [], "utest": {"time_pvalue": 0.05, "cpu_pvalue": 0.05}},
              {"name": "fig001_mean", "measurements": [{"time": 0.2}], "utest": {}}]
    calls = bench.parse_gbench(report, ["fig000", "fig001"])
    assert calls == {"fig000": bench.Call(True, -0.08), "fig001": bench.Call(False, 0.2)}
    with pytest.raises(bench.PeerError, match="fig002"):
        bench.parse_gbench(report, ["fig002"])


def test_worse_follows_the_better_side():
    assert bench.worse(bench.Call(True, -0.1), "higher") and not bench.worse(bench.Call(True, 0.1), "higher")
    assert bench.worse(bench.Call(True, 0.1), "lower") and not bench.worse(bench.Call(True, 0.1), None)


# ---- The peers, where they are installed.

PEERS = [pytest.param("pyperf", marks=needs_pyperf), pytest.param("gbench", marks=needs_gbench)]


def peer_calls(tool, result, folder):
    if tool == "pyperf":
        return bench.pyperf_calls(result.figures, str(folder))
    return bench.gbench_calls(result.figures, str(folder), GBENCH)


@pytest.mark.parametrize("tool", PEERS)
def test_peer_the_same_file_twice_nothing_significant(cases, tool, tmp_path):
    result = bench.pair_figures(*cases["same"])
    calls = peer_calls(tool, result, tmp_path)
    assert significant_places(result, calls) == []
    assert all(c.change == pytest.approx(0) for c in calls.values())


@pytest.mark.parametrize("tool", PEERS)
def test_peer_flags_the_figure_x1_3_and_nothing_else(cases, tool, tmp_path):
    result = bench.pair_figures(*cases["x1.3"])
    calls = peer_calls(tool, result, tmp_path)
    assert flagged_places(result, calls) == significant_places(result, calls) == [COPY_ONE_CORE]
    assert by_place(result, calls)[COPY_ONE_CORE].change == pytest.approx(0.3)


@pytest.mark.parametrize("tool", PEERS)
def test_peer_finds_the_x1_04_figure_significant_and_under_5_percent(cases, tool, tmp_path):
    result = bench.pair_figures(*cases["x1.04"])
    calls = peer_calls(tool, result, tmp_path)
    assert significant_places(result, calls) == [ADD_ONE_CORE]
    assert flagged_places(result, calls) == []
    assert by_place(result, calls)[ADD_ONE_CORE].change == pytest.approx(0.04)


@needs_pyperf
def test_pyperf_reads_the_suite_back(cases, tmp_path):
    import pyperf
    result = bench.pair_figures(*cases["x1.3"])
    path = bench.write_json(str(tmp_path / "s.json"), bench.pyperf_suite(result.figures, "reference"))
    suite = pyperf.BenchmarkSuite.load(path)
    assert suite.get_benchmark_names() == [f.name for f in result.figures]
    assert list(suite.get_benchmark("fig000").get_values()) == list(result.figures[0].reference)


# ---- The script from the command line.

def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=300)


def test_the_script_on_three_files_totals_and_names_the_shifted_figure(tmp_path):
    stream_copy(tmp_path / "a.json")
    stream_copy(tmp_path / "b.json")
    stream_copy(tmp_path / "c.json", kernel=0, factor=1.3)
    proc = run(str(tmp_path), "--by-figure")
    assert proc.returncode == 0, proc.stderr
    assert "6 ordered pairs of 3 results files: 54 figures with samples" in proc.stdout
    assert "exit 1 (a regression) in 2 of 6 pairs" in proc.stdout        # b and a against c: Copy worse
    line = next(line for line in proc.stdout.splitlines() if line.startswith("hpcbench  "))
    assert line.split()[-6:] == ["54", "4", "4", "4/6", "2", "2/6"]
    assert proc.stdout.rstrip().endswith(f"4  {COPY_ONE_CORE}")


@pytest.mark.parametrize("make,start", [
    (lambda d: str(d / "nothing"), "not a folder"),
    (lambda d: (stream_copy(d / "a.json"), str(d))[1], "1 results file(s)"),
    (lambda d: (stream_copy(d / "a.json"), (d / "b.json").write_text("{not json"), str(d))[2], "b.json"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, make, start):
    proc = run(make(tmp_path))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bench_check_peers.py: ") and start in lines[0], proc.stderr


def test_a_missing_compare_py_is_one_line_and_exit_2(tmp_path):
    stream_copy(tmp_path / "a.json")
    stream_copy(tmp_path / "b.json")
    proc = run(str(tmp_path), "--gbench-compare", "/nonexistent/compare.py")
    assert proc.returncode == 2
    assert proc.stderr.startswith("bench_check_peers.py: --gbench-compare /nonexistent/compare.py: no such file")


def test_pyperf_asked_for_but_missing_is_one_line_and_skipped(monkeypatch, capsys):
    monkeypatch.setattr(bench.importlib.util, "find_spec", lambda name: None)
    assert bench.chosen_peers(True, None) == {}
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "pyperf: not importable by this Python (pip install pyperf): its column is skipped"
    assert len(out) == 2 and out[1].startswith("gbench: no --gbench-compare PATH")
