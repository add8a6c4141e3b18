"""Bad input to the stream benchmark at the command line: one line on stderr,
exit status 2, before anything is measured (tests/test_cli_bad_input.py's
way, in-process)."""
import io
from contextlib import redirect_stderr, redirect_stdout

import pytest

from hpcbench import _runner
from hpcbench.cli import main
from hpcbench.stream import _benchmark


@pytest.fixture(autouse=True)
def nothing_is_measured(monkeypatch, tmp_path):
    def measured(*args, **kwargs):
        raise AssertionError("a benchmark ran although the command line was bad")
    monkeypatch.setattr(_runner, "run_benchmark", measured)
    monkeypatch.chdir(tmp_path)


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, err.getvalue()


@pytest.mark.parametrize("argv, message", [
    (["--stream-size", "1024GiB"], "--stream-size must let 1 core(s) hold three arrays each within the"),
    (["--stream-size", "100"], "--stream-size must be a positive multiple of 64 bytes"),
    (["--stream-size", "0"], "--stream-size must be a positive multiple of 64 bytes"),
    (["--stream-size", "-5"], "a size is a number"),
    (["--stream-reps", "0"], "--stream-reps must be in"),
    (["--stream-reps", "10001"], "--stream-reps must be in"),
    (["--stream-isa", "neon"], "invalid choice"),
    (["--stream-stores", "sometimes"], "invalid choice"),
    (["--stream-stores", "nontemporal", "--stream-isa", "scalar"],
     "--stream-stores nontemporal needs isa sse2 or wider on an x86-64 CPU, got scalar"),
    (["--stream-cores", "0,0"], "--stream-cores must not list a PU twice"),
    (["--stream-cores", "0,100000"], "--stream-cores must be PUs this process may use"),
    (["--stream-cores", "a"], "a core list is numbers and ranges"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message):
    status, err = cli("run", "stream", *(["--stream-cores", "0"] if "--stream-size" in argv else []), *argv)
    assert status == 2 and err.count("\n") == 1, err
    assert message in err and "Traceback" not in err, err


def test_an_isa_the_cpu_lacks_is_one_line_naming_what_it_has(monkeypatch):
    monkeypatch.setattr(_benchmark, "supported_isas", lambda: {"scalar", "sse2"})
    status, err = cli("run", "stream", "--stream-isa", "avx512")
    assert status == 2 and err.count("\n") == 1, err
    assert "--stream-isa avx512 is not an instruction set this CPU runs; it has scalar, sse2" in err, err


@pytest.mark.parametrize("args, start", [(["--no-likwid", "--stream-ref", "/nonexistent/stream_ref"], "--stream-ref"),
                                         (["--likwid-bench", "/nonexistent/likwid-bench"], "/nonexistent/likwid-bench"),
                                         (["--isa", "neon"], "--isa must be"),
                                         (["--size", "100"], "--size must be a multiple of 64")])
def test_the_benchmark_script_refuses_bad_input_in_one_line(args, start, tmp_path):
    import os
    import subprocess
    import sys
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "bench_stream.py")
    proc = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert proc.stderr.startswith(f"bench_stream.py: {start}") and proc.stderr.count("\n") == 1, proc.stderr
