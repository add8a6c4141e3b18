"""The command line: real runs, summaries and one-line errors."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import hpcbench
from hpcbench._results import record_from_dict
from hpcbench.topology import Topology

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMALL = ["--cache-max", "3MiB", "--cache-passes", "2", "--cache-samples", "2", "-q"]


def cli(*args, timeout=300):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "hpcbench", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("run") / "r.json")
    proc = cli("run", "cache", "-o", out, *SMALL)
    return proc, out


def test_run_writes_results_with_hwloc_beside_measured(small_run):
    proc, out = small_run
    assert proc.returncode == 0, proc.stderr
    res = hpcbench.load(out)
    rec = res.get("cache")
    assert rec["status"] == "ok"
    assert rec["parameters"]["max_size"] == 3 << 20
    ctx = res.context
    for key in ("date", "hosts", "cpu_model", "mpi", "build", "timer", "transparent_huge_pages", "topology"):
        assert key in ctx
    assert ctx["timer"]["ticks_per_ns"] > 0
    levels = rec["derived"]["levels"]
    assert levels and all("hwloc_size" in lv for lv in levels)
    raw = rec["raw"]
    assert len(raw["cycles_per_access"]) == len(raw["sizes"])
    # (sizes, pass slots, samples): 2 passes of the first sweep, plus 4 x 2
    # more where refinement re-measured sizes up to 4 MiB, plus 2 for each
    # octave the extension timed the old top again when the curve still rose
    # at 3 MiB (null where a size was not re-measured).
    slots = len(raw["cycles_per_access"][0])
    assert len(raw["cycles_per_access"][0][0]) == 2
    if rec.parameters.extended_to is None:
        assert slots in (2, 10)
    else:
        assert slots >= 4 and slots % 2 == 0 and rec.parameters.extended_to > 3 << 20
    # L1 is found by its edge, which every placement colours evenly. Whether
    # it is hwloc's within 10 % is a figure of the machine, not of the code
    # (benchmarks/bench_cache.py measures it beside a plain C chase): a guest
    # whose core's other hardware thread belongs to another tenant holds
    # less (an Intel guest here: 28-32 KiB of 48, the plain chase alike).
    # What the code must do is say so: a level off by more is never shown
    # as agreeing with hwloc.
    hw_l1 = [c.size for c in Topology.load().data_caches_of(rec["parameters"]["pu"]) if c.level == 1]
    # (A busy guest can add a step hwloc does not know below L1: it is
    # flagged, never a cache level, so the check takes hwloc's L1's match.)
    matched = [lv for lv in levels if lv.hwloc_size == hw_l1[0]] if hw_l1 else []
    for l1 in matched[:1]:
        assert l1.method == "edge", l1
        assert l1.agrees == (abs(l1.size - hw_l1[0]) <= 0.10 * hw_l1[0]), l1
    assert all(lv.status != "cache" for lv in levels if lv.hwloc_size is None), levels
    # Every level has its plateau's latency and its read bandwidth; the
    # placement of every buffer is recorded.
    assert all(lv.latency_cycles > 0 and lv.latency_ns > 0 and lv.bandwidth > 0 for lv in levels)
    # An ordering, which holds on a busy machine: L1 against the last level found (several times slower).
    assert len(levels) < 2 or (levels[0].latency_cycles < levels[-1].latency_cycles
                               and levels[0].bandwidth > levels[-1].bandwidth)
    assert rec.derived.placement.kind in ("contiguous", "random", "unknown") and rec.raw.placements
    assert "cache levels on" in proc.stdout and "results written to" in proc.stdout


@pytest.fixture(scope="module")
def node_run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("node") / "r.json")
    proc = cli("run", "shared-caches", "memory", "-o", out, *SMALL, "--memory-size", "16MiB",
               "--memory-reps", "3", "--rounds", "3")
    return proc, out


def test_node_benchmarks_give_partitions_of_the_cores(node_run):
    proc, out = node_run
    assert proc.returncode == 0, proc.stderr
    res = hpcbench.load(out)
    pus = sorted(Topology.load().pu_indexes)
    shared = res.get("shared-caches")
    assert shared["parameters"]["levels_from"] == "cache sweep run by shared-caches"
    assert shared["derived"]["levels"]
    for lv in shared["derived"]["levels"]:
        if lv["decidable"]:
            assert sorted(c for g in lv["groups"] for c in g) == pus
        assert sorted(c for g in lv["hwloc_groups"] for c in g) == pus
        assert all(r["ratio"] > 0 for r in lv["ratios"])
    # Whether the measured L1 groups match hwloc's is this machine's figure
    # (a co-run ratio against a threshold, noisy on a shared machine: it
    # once read 2.01 over 1.87): assert only that a disagreement is said.
    l1 = shared["derived"]["levels"][0]
    if l1["level"] == 1 and l1["decidable"] and l1["groups"] != l1["hwloc_groups"]:
        assert any(d.startswith("L1:") and "but hwloc says" in d for d in l1["disagreements"]), l1
    raw = shared["raw"]["levels"][0]
    assert len(raw["alone"]) == len(raw["pairs"]) and len(raw["alone"][0]) == 3   # (pairs, rounds, ...)
    memory = res.get("memory")
    assert memory["parameters"]["array_bytes"] == 16 << 20
    assert memory["derived"]["overhead"]["reference"] > 0
    node = memory["derived"]["scalability"][-1]
    assert node["group"] == "node" and [p["cores"] for p in node["points"]] == list(range(1, len(pus) + 1))
    assert all(p["aggregate"] > 0 for p in node["points"]) and all(p["aggregate"] for p in memory["derived"]["pairs"])
    raw_node = memory["raw"]["scalability"][-1]
    assert [np.shape(x) for x in raw_node["start_ns"]] == [np.shape(x) for x in raw_node["bandwidth"]]
    assert np.shape(memory["raw"]["together_end_ns"]) == np.shape(memory["raw"]["together"])
    assert record_from_dict(memory.to_dict(), "memory").to_dict() == memory.to_dict()
    assert "shared caches on" in proc.stdout and "memory access on" in proc.stdout
    assert "GB/s per core/aggregate" in proc.stdout


def test_show_prints_the_summary(small_run):
    _, out = small_run
    proc = cli("show", out)
    assert proc.returncode == 0
    assert "L1" in proc.stdout and "hwloc" in proc.stdout


def test_list():
    proc = cli("list")
    assert proc.returncode == 0 and "cache" in proc.stdout


def test_help_everywhere():
    for args in ([], ["run"], ["show"], ["list"]):
        proc = cli(*args, "--help")
        assert proc.returncode == 0 and "usage:" in proc.stdout


@pytest.mark.parametrize("args,message", [
    (["show", "/nonexistent/results.json"], "results file not found"),
    (["run", "--cache-max", "-5"], "a size is a number"),
    (["run", "--cache-stride", "3"], "--cache-stride must be a positive multiple of sizeof(void *) (8 bytes), got 3"),
    (["run", "--cache-min", "1500"], "--cache-min must be a positive multiple of stride"),
    (["run", "memory", "--memory-size", "100"], "--memory-size must be a positive multiple of 64 bytes"),
    (["run", "memory", "--memory-reps", "0"], "--memory-reps must be in 1..1000, got 0"),
    (["run", "--cache-min", "64KiB", "--cache-max", "32KiB"], "must not be below min_size"),
    (["run", "--cache-max", "100000GiB"], "available memory"),
    (["run", "--cache-passes", "0"], "--cache-passes must be in 1..100, got 0"),
    (["run", "--cache-pu", "100000"], "--cache-pu must be one of"),
    (["run", "nosuchbench"], "unknown benchmark 'nosuchbench'"),
    (["run", "cache", "-o", "/nonexistent-dir/r.json", "--cache-max", "1MiB"],
     "the folder of the results file does not exist: /nonexistent-dir"),
    (["frobnicate"], "invalid choice"),
    (["run", "comm"], "comm needs at least 2 MPI ranks"),
    (["run", "distance", "--net-size", "0"], "--net-size must be in 1 B..1 GiB, got 0 B"),
    (["run", "distance", "--net-nodes", "1"], "--net-nodes must be in 2..1048576, got 1"),
    (["advise", "grid", "--rows", "4", "--cols", "4", "--row-volume", "1MiB", "--col-volume", "1MiB",
      "--ratdist", "1,x"], "comma-separated list of numbers"),
    (["advise", "grid", "--rows", "0", "--cols", "4", "--row-volume", "1MiB", "--col-volume", "1MiB",
      "--ratdist", "1"], "rows must be a positive integer"),
    (["advise", "grid", "--rows", "2", "--cols", "2", "--row-volume", "1", "--col-volume", "1",
      "--results", "/nonexistent.json"], "results file not found"),
    (["degr", "/nonexistent.json"], "results file not found"),
    (["config"], "ask for --cflags, --libs or both"),
    (["run", "multibsp", "--mbsp-hmax", "0"], "--mbsp-hmax must be in 1..65536, got 0"),
    (["run", "multibsp", "--mbsp-niters", "-3"], "--mbsp-niters must be in 1..100000, got -3"),
    (["run", "multibsp", "--mbsp-niters", "0"], "--mbsp-niters must be in 1..100000, got 0"),
    (["run", "multibsp", "--mbsp-max-vector", "40"], "--mbsp-max-vector must be in 8..28, got 40"),
    (["run", "memory", "--cores", "0,0"], "--cores must not list a PU twice"),
    (["run", "memory", "--memory-cores", "0,0"], "--memory-cores must not list a PU twice"),
    (["run", "memory", "--cores", "0,100000"], "must be PUs this process may use"),
    (["run", "shared-caches", "--cores", "0"], "--cores must hold at least two PUs"),
    (["run", "memory", "--cores", "1-0"], "must not run backwards"),
    (["run", "memory", "--memory-size", "100000GiB"], "--memory-size must let"),
    (["run", "memory", "--memory-tolerance", "2"], "--memory-tolerance must be in (0, 1), got 2"),
    (["run", "shared-caches", "--share-threshold", "0.5"], "--share-threshold must be in (1, 100], got 0.5"),
    (["run", "shared-caches", "--shared-threshold", "inf"], "--shared-threshold must be in (1, 100], got inf"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    proc = cli(*args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_show_damaged_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = cli("show", str(bad))
    assert proc.returncode == 2 and "damaged or truncated" in proc.stderr


def test_failed_benchmark_keeps_earlier_results(tmp_path, monkeypatch):
    """A benchmark that fails becomes a 'failed' record; the file still holds
    the context and every finished record."""
    from mpi4py import MPI

    from hpcbench import _registry, _runner
    from hpcbench.cache import CacheOptions

    class Broken(hpcbench.Benchmark):
        name, title, scope, group, options_type = "broken", "fails", "node", "broken", CacheOptions

        def run(self, ctx):
            raise RuntimeError("simulated failure")

    monkeypatch.setitem(_registry._BY_NAME, "broken", Broken())
    out = str(tmp_path / "r.json")
    opts = {"cache": CacheOptions(max_size=1 << 20, passes=1, samples=1, refine=False), "broken": CacheOptions()}
    _runner.run_suite(["cache", "broken"], opts, out, MPI.COMM_WORLD, Topology.load(), quiet=True)
    data = json.loads(Path(out).read_text())
    assert [b["status"] for b in data["benchmarks"]] == ["ok", "failed"]
    assert "simulated failure" in data["benchmarks"][1]["error"]


def _run_alone(name, topology):
    """One benchmark of the registry on a (fake) topology, outside MPI."""
    from hpcbench import _registry, _runner
    from hpcbench._timer import calibration
    bench = _registry.get(name)
    ctx = hpcbench.Context(topology=topology, options=bench.options_type(), timer=calibration())
    return _runner.run_benchmark(bench, ctx)


@pytest.mark.parametrize("name", ["shared-caches", "memory"])
def test_pair_benchmarks_skip_on_a_one_core_machine(name):
    from hpcbench._show import summary

    one_core = Topology.from_synthetic("pack:1 l2:1(size=1MiB) l1:1(size=32KiB) core:1 pu:1")
    record = _run_alone(name, one_core)
    assert record.status == "skipped"
    assert "pair tests need two cores" in record.reason
    results = hpcbench.Results({}, [record])
    assert f"{name} on" in summary(results) and "skipped: pair tests need two cores" in summary(results)


def test_network_benchmarks_skip_on_one_node(tmp_path):
    out = str(tmp_path / "r.json")
    proc = cli("run", "distance", "network-access", "-q", "-o", out)
    assert proc.returncode == 0, proc.stderr
    recs = json.loads(Path(out).read_text())["benchmarks"]
    assert [r["status"] for r in recs] == ["skipped", "skipped"]
    assert "at least 2 nodes" in recs[0]["reason"] and "skipped" in proc.stdout


def test_advise_grid_prints_both_costs_and_the_choice():
    proc = cli("advise", "grid", "--rows", "4", "--cols", "4", "--row-volume", "1GiB", "--col-volume", "100MiB",
               "--ratdist", "1,1.25,1.5,1.7,1.9,2.1,2.3,2.5")
    assert proc.returncode == 0, proc.stderr
    assert "row-ordered" in proc.stdout and "column-ordered" in proc.stdout
    assert "use the row-ordered grid" in proc.stdout


def test_config_flags_point_at_the_library():
    proc = cli("config", "--cflags", "--libs")
    assert proc.returncode == 0
    flags = proc.stdout.split()
    include = next(f[2:] for f in flags if f.startswith("-I"))
    lib = next(f[2:] for f in flags if f.startswith("-L"))
    assert os.path.isfile(os.path.join(include, "hpcb_degr.h"))
    assert os.path.isfile(os.path.join(lib, "libhpcbdegr.so")) and "-lhpcbdegr" in flags


def test_multibsp_skips_on_one_pu():
    record = _run_alone("multibsp", Topology.from_synthetic("pack:1 core:1 pu:1"))
    assert record.status == "skipped" and "nothing to measure" in record.reason


def test_multibsp_end_to_end(tmp_path):
    out = str(tmp_path / "m.json")
    proc = cli("run", "multibsp", "-q", "-o", out, "--mbsp-hmax", "32", "--mbsp-niters", "20",
               "--mbsp-max-vector", "14")
    assert proc.returncode == 0, proc.stderr
    rec = hpcbench.load(out).get("multibsp")
    d = rec["derived"]
    assert d["levels"] and all(lv["g"] > 0 for lv in d["levels"])
    assert [v["n"] for v in d["inner_product"]] == [1 << e for e in range(8, 15)]
    assert all(v["predicted_s"] > 0 and v["measured_s"] > 0 for v in d["inner_product"])
    assert len(rec["raw"]["levels"][0][0]["ticks_per_superstep"]) == 33
    assert "MultiBSP tree of" in proc.stdout and "<p=" in proc.stdout
