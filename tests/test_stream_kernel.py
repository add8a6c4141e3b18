"""The C kernel of the stream benchmark (hpcbench._core.stream_team) and a
short real run under mpiexec: structure only, never a measured figure."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import hpcbench
from hpcbench import _core
from hpcbench.stream import stream_run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_stream_team_times_every_kernel_of_every_member():
    pus = _core.thread_binding()
    start, end, isa = _core.stream_team(pus, 1 << 16, 3, warmup=1)
    assert start.shape == end.shape == (len(pus), 3 * 4)
    assert isa in (_core.ISA_SCALAR, _core.ISA_SSE2, _core.ISA_AVX2, _core.ISA_AVX512) and _core.load_supported(isa)
    assert np.all(start >= 0) and np.all(end >= start)
    # Members start each kernel together (one phase per kernel), so every
    # member's kernel k starts after every member's kernel k-1 ended.
    assert np.all(start[:, 1:].min(axis=0) >= end[:, :-1].max(axis=0))


@pytest.mark.parametrize("isa", ["ISA_SCALAR", "ISA_SSE2", "ISA_AVX2", "ISA_AVX512"])
@pytest.mark.parametrize("stores", ["STREAM_ORDINARY", "STREAM_NONTEMPORAL"])
def test_every_loop_this_cpu_runs_passes_streams_check(isa, stores):
    if not _core.load_supported(getattr(_core, isa)) or (isa, stores) == ("ISA_SCALAR", "STREAM_NONTEMPORAL"):
        pytest.skip("not a loop of this CPU")
    # Many rounds: the check's recurrence must stay within the tolerance (s = sqrt(2) - 1 keeps values near 1).
    _, _, used = _core.stream_team([0], 4096, 2000, warmup=5, isa=getattr(_core, isa), stores=getattr(_core, stores))
    assert used == getattr(_core, isa)


def test_a_planted_fault_fails_the_payload_check():
    with pytest.raises(RuntimeError, match="payload check failed"):
        _core.stream_team([0], 1 << 16, 2, plant_fault=1)


@pytest.mark.parametrize("kwargs, parameter, rule", [
    (dict(array_bytes=100, repetitions=2), "array_bytes", "multiple of 64"),
    (dict(array_bytes=0, repetitions=2), "array_bytes", "multiple of 64"),
    (dict(array_bytes=1 << 41, repetitions=2), "array_bytes", "between 1 and"),
    (dict(array_bytes=4096, repetitions=0), "repetitions", "got 0"),
    (dict(array_bytes=4096, repetitions=10001), "repetitions", "between 1 and 10000"),
    (dict(array_bytes=4096, repetitions=2, warmup=1001), "warmup", "at most 1000"),
    (dict(array_bytes=4096, repetitions=2, isa=9), "isa", "got 9"),
    (dict(array_bytes=4096, repetitions=2, stores=2), "stores", "got 2"),
    (dict(array_bytes=4096, repetitions=2, page_mode=7), "page_mode", "got 7"),
    (dict(array_bytes=4096, repetitions=-1), "repetitions", "must not be negative"),
])
def test_stream_check_refuses_bad_parameters(kwargs, parameter, rule):
    for call in (lambda: _core.stream_check(**kwargs), lambda: _core.stream_team([0], **kwargs)):
        with pytest.raises(_core.ParameterError) as err:
            call()
        assert err.value.parameter == parameter and rule in err.value.rule


def test_non_temporal_stores_need_a_vector_isa():
    with pytest.raises(_core.ParameterError) as err:
        _core.stream_check(4096, 2, isa=_core.ISA_SCALAR, stores=_core.STREAM_NONTEMPORAL)
    assert err.value.parameter == "stores" and "ISA_SSE2 or wider" in err.value.rule


def test_stream_team_refuses_a_pu_twice_and_reports_memory_exhaustion():
    with pytest.raises(_core.ParameterError, match="distinct"):
        _core.stream_team([0, 0], 4096, 2)
    with pytest.raises(MemoryError):
        _core.stream_team([0], 1 << 40, 1)


def test_stream_run_shapes_the_samples_per_member_repetition_and_kernel():
    run = stream_run([0], 1 << 16, 3, "auto", "ordinary")
    assert run.start_ns.shape == run.end_ns.shape == (1, 3, 4)
    assert run.start_ns.min() == 0 and run.isa in ("scalar", "sse2", "avx2", "avx512")


def test_a_short_run_under_mpiexec_writes_a_stream_record(tmp_path):
    out = tmp_path / "r.json"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    proc = subprocess.run(["mpiexec", "-n", "1", sys.executable, "-m", "hpcbench", "run", "stream", "--stream-size",
                           "1MiB", "--stream-reps", "2", "-q", "-o", str(out)], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    record = hpcbench.load(str(out)).get("stream")
    assert record.status == "ok" and record.parameters.array_bytes == 1 << 20
    teams = record.derived.teams
    assert teams[0].group == "one core" and len(teams[0].pus) == 1
    assert all([k.kernel for k in t.kernels] == ["copy", "scale", "add", "triad"] for t in teams)
    assert record.derived.triad == teams[-1].rate("triad").best
    raw = json.loads(out.read_text())["benchmarks"][0]["raw"]["teams"]
    assert [len(t["start_ns"][0]) for t in raw] == [2] * len(teams)


