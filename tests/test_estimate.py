"""run --estimate: the duration models' known answers (hpcbench._estimate), the
time-left and "k of N" words, and the command line. No test asserts a
measured time: the constants were fitted once (docs/slurm.md, "Estimates")."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest

from hpcbench import _estimate, _registry
from hpcbench._protocol import DEFAULT_ESTIMATE_S, Benchmark, Job
from hpcbench.cache._options import CacheOptions
from hpcbench.topology import Topology

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE_LIKE = "pack:1 l3:1(size=32MiB) l2:2(size=1MiB) l1d:1(size=48KiB) core:1 pu:1"
FOUR_X_L3 = "pack:1 l3:1(size=128MiB) l2:2(size=1MiB) l1d:1(size=48KiB) core:1 pu:1"


def _cache(max_size: int, **changes) -> CacheOptions:
    return dataclasses.replace(CacheOptions(), max_size=max_size, stride=64, **changes)


def test_the_fine_grid_has_four_sizes_per_octave_as_the_sweep():
    sizes = _estimate.cache_sizes(1024, 64 << 20, 64)
    assert len(sizes) == 65 and sizes[0] == 1024 and sizes[-1] == 64 << 20     # 16 octaves x 4 + 1
    assert sizes == sorted(set(sizes)) and all(s % 64 == 0 for s in sizes)


def test_the_servet_grid_doubles_then_steps_by_one_mebibyte():
    assert _estimate.cache_sizes(1 << 20, 5 << 20, 64, "servet") == [1 << 20, 2 << 20, 3 << 20, 4 << 20, 5 << 20]


def test_loads_per_pass_follow_the_walk():
    options = _cache(64 << 20)
    assert _estimate.cache_loads(4096, options) == 5 * 65536       # samples + warm-up + verifying walk, 2^16 each
    assert _estimate.cache_loads(64 << 20, options) == 2 * (1 << 20)     # a long size: timed once, walked twice


def test_a_four_times_larger_l3_gives_the_larger_sweep_the_model_says():
    here, big = Topology.from_synthetic(HERE_LIKE), Topology.from_synthetic(FOUR_X_L3)
    small_run = _estimate.cache_seconds(_cache(64 << 20), here)         # the default max: twice the L3
    big_run = _estimate.cache_seconds(_cache(256 << 20), big)
    # Known answer, by hand from the constants: the loads of every base size beyond 1 MiB, plus
    # refinement's 24 loads per slot of the largest cache, each at CACHE_LOAD_S.
    options = _cache(256 << 20)
    sizes = _estimate.cache_sizes(1024, 256 << 20, 64)
    far = sum(_estimate.cache_loads(s, options) for s in sizes if s > 1 << 20)
    near = sum(_estimate.cache_loads(s, options) for s in sizes if s <= 1 << 20)
    per_pass = (far + 24 * (128 << 20) // 64) * _estimate.CACHE_LOAD_S + near * _estimate.CACHE_NEAR_LOAD_S \
        + _estimate.CACHE_SIZE_S * len(sizes) * 2.2
    assert big_run == pytest.approx(_estimate.CACHE_START_S + 5 * per_pass)
    assert 3 < big_run / small_run < 4         # sizes of 4x the bytes, but the small ones cost the same


def test_the_cache_estimate_grows_with_sizes_passes_and_refinement():
    topology = Topology.from_synthetic(HERE_LIKE)
    by_max = [_estimate.cache_seconds(_cache(m << 20), topology) for m in (4, 16, 64, 256)]
    assert by_max == sorted(by_max) and len(set(by_max)) == 4
    five = _estimate.cache_seconds(_cache(64 << 20), topology)
    assert _estimate.cache_seconds(_cache(64 << 20, passes=10), topology) > five
    assert _estimate.cache_seconds(_cache(64 << 20, refine=False), topology) < five


def test_comm_grows_with_ranks_and_nodes():
    comm = _registry.get("comm")
    options = comm.options_type()
    seconds = [comm.estimate(options, Topology.from_synthetic(HERE_LIKE), Job(r, n)) for r, n in
               ((2, 1), (4, 1), (16, 1), (16, 4))]
    assert seconds == sorted(seconds) and len(set(seconds)) == 4


def test_every_benchmark_estimates_its_checked_default_options():
    topology = Topology.from_synthetic("pack:1 l3:1(size=32MiB) l2:2(size=1MiB) l1d:1(size=48KiB) core:2 pu:1")
    job = Job(4, 2)
    for bench in _registry.BENCHMARKS:
        options = bench.options_type()
        if bench.name in ("cache", "shared-caches", "comm", "multibsp"):
            options = bench.check(options, topology, job)
        elif bench.name == "memory":
            options = dataclasses.replace(options, size=64 << 20)
        seconds = bench.estimate(options, topology, job)
        assert 0 < seconds < 600, bench.name


def test_a_benchmark_without_a_model_has_the_default():
    class StandIn(Benchmark):
        name = "stand-in"
    assert StandIn().estimate(None, Topology.from_synthetic(HERE_LIKE)) == DEFAULT_ESTIMATE_S


def test_time_left_only_for_long_steps():
    assert _estimate.time_left(20, 5) == ""
    assert _estimate.time_left(100, 40) == "about 60 s left"
    assert _estimate.time_left(600, 60) == "about 9 min left"
    assert _estimate.time_left(100, 150) == ""          # overdue: no promise


def test_a_long_steps_progress_lines_say_the_time_left():
    now = [10.0]
    said: list[str] = []
    say = _estimate.with_time_left(said.append, 100.0, clock=lambda: now[0])
    now[0] = 35.0
    say("cache sweep: pass 1/5 done")
    now[0] = 200.0
    say("cache sweep: pass 5/5 done")
    assert said == ["cache sweep: pass 1/5 done; about 75 s left", "cache sweep: pass 5/5 done"]
    sink = said.append
    assert _estimate.with_time_left(sink, 10.0) is sink        # a short step: the lines as they are


def test_k_of_n():
    assert _estimate.progress_label("cache", 1, 5, 12.0) == "cache (1 of 5)"
    assert _estimate.progress_label("comm", 5, 5, 150.0) == "comm (5 of 5, about 2 min)"


def test_slurm_minutes_have_a_margin_and_round_up():
    assert _estimate.slurm_minutes(100) == 5           # (100 x 1.5 + 120) / 60 = 4.5
    assert _estimate.slurm_minutes(0) == 2
    assert _estimate.slurm_minutes(3600) == 92


def test_the_estimate_lines():
    lines = _estimate.format_estimates([("cache", 18.0), ("memory", 3.25)], Job(2, 1))
    assert lines[0].startswith("estimated duration on 2 rank(s), 1 node(s)")
    assert lines[1:] == ["  cache      18.0 s", "  memory      3.2 s", "  total      21.2 s (21 s)"]


def test_run_estimate_prints_every_benchmark_and_measures_nothing(tmp_path):
    out = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-m", "hpcbench", "run", "cache", "multibsp", "--estimate", "-o", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("estimated duration on 1 rank(s)")
    assert [line.split()[0] for line in lines[1:]] == ["cache", "multibsp", "total"]
    assert not out.exists() and "[hpcbench" not in r.stderr


def test_run_estimate_checks_the_options_first(tmp_path):
    r = subprocess.run([sys.executable, "-m", "hpcbench", "run", "--estimate", "--cache-passes", "0"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env={**os.environ, "PYTHONPATH": ROOT})
    assert r.returncode == 2 and r.stderr.strip() == "hpcbench run: --cache-passes must be in 1..100, got 0"
