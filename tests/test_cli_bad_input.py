"""Every bad input at the command line is one line on stderr and a non-zero
exit, before anything is measured; never a traceback, an "internal error" or
a run that goes ahead. The cases are generated from every benchmark's
documented option ranges and written by hand for the rest (about 200).
In-process (main(argv)), so hundreds of cases take seconds; MPI ranks with
different options are tested in test_mpi.py."""
import dataclasses
import io
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout

import pytest

from hpcbench import _registry, _runner
from hpcbench._argtypes import size_arg
from hpcbench.cli import main

HERE = os.path.dirname(os.path.abspath(__file__))
NETWORK = os.path.join(HERE, "..", "hpcbench", "examples", "network-example.json")
CACHE = os.path.join(HERE, "..", "hpcbench", "examples", "cache-example.json")


def range_cases():
    """For every option with a documented range: values below, above, not
    finite, not a number."""
    cases = []
    seen = set()
    for bench in _registry.BENCHMARKS:
        for f in dataclasses.fields(bench.options_type):
            spec = f.metadata.get("cli")
            if spec is None or spec.range is None or spec.flag in seen:
                continue
            seen.add(spec.flag)
            r = spec.range
            lo = r.lo - 1 if not r.lo_open else r.lo
            hi = r.hi + 1 if not r.hi_open else r.hi
            integral = isinstance(f.default, int) or spec.size

            def as_text(v, integral=integral):
                return str(int(v)) if integral else str(v)
            # `run cache`: a range is checked whichever benchmarks run (comm would first want 2 ranks)
            for value in {as_text(lo), as_text(hi * 10 if hi else 1) if hi >= 1 else as_text(hi)}:
                expected = "" if spec.type is size_arg and value.startswith("-") else "must be in"   # "-1" is no size
                cases.append(pytest.param(["run", "cache", spec.flag, value], expected, id=f"{spec.flag}={value}"))
            for value in (["nan", "inf", "-inf"] if not isinstance(f.default, int) and not spec.size else []) + \
                    ["x", "", "1,5"]:
                cases.append(pytest.param(["run", "cache", spec.flag, value], "", id=f"{spec.flag}={value!r}"))
    return cases


def choice_cases():
    cases = []
    for bench in _registry.BENCHMARKS:
        for spec in bench.flags().values():
            if spec.choices:        # a choice of numbers refuses 'bogus' as no number, in one line too
                message = "invalid int value" if spec.type is int else "invalid choice"
                cases.append(pytest.param(["run", bench.name, spec.flag, "bogus"], message,
                                          id=f"{spec.flag}=bogus"))
    return cases


HAND = [
    (["run", "nosuchbench"], "unknown benchmark"),
    (["run", "comm"], "comm needs at least 2 MPI ranks"),
    (["run", "matrix"], "matrix needs at least 4 MPI ranks"),
    (["run", "cache", "--matrix-dims", "64,x"], "dimensions are whole numbers separated by commas"),
    (["run", "cache", "--matrix-dims", "0"], "dimensions must be between 1 and"),
    (["run", "cache", "--matrix-mesh", "2by2"], "a mesh is ROWSxCOLS (e.g. 2x4) or auto"),
    (["run", "cache", "--matrix-kernels", "shift_south"], "a shift goes north or east"),
    (["run", "cache", "--cache-stride", "3"], "--cache-stride must be a positive multiple of sizeof(void *)"),
    (["run", "cache", "--cache-stride", "0"], "--cache-stride must be a positive multiple"),
    (["run", "cache", "--cache-min", "1500"], "--cache-min must be a positive multiple of stride"),
    (["run", "cache", "--cache-min", "64KiB", "--cache-max", "32KiB"], "must not be below min_size"),
    (["run", "cache", "--cache-max", "100000GiB"], "available memory"),
    (["run", "cache", "--cache-max", "-5"], "a size is a number"),
    (["run", "cache", "--cache-max", "1.5"], "whole number of bytes"),
    (["run", "cache", "--cache-max", "5 parsecs"], "a size is a number"),
    (["run", "cache", "--cache-min", "8", "--cache-max", "16", "--cache-stride", "8"],
     "--cache-max must leave at least 3"),
    (["run", "cache", "--cache-pu", "100000"], "--cache-pu must be one of"),
    (["run", "cache", "--cache-pu", "-1"], "--cache-pu must be one of"),
    (["run", "cache", "--cache-passes", "99999999999"], "must be in 1..100"),
    (["run", "cache", "--cache-window", "3"], "unrecognized arguments"),
    (["run", "memory", "--cores", "0,0"], "--cores must not list a PU twice"),
    (["run", "memory", "--memory-cores", "0,0"], "--memory-cores must not list a PU twice"),
    (["run", "memory", "--cores", "0,100000"], "must be PUs this process may use"),
    (["run", "shared-caches", "--cores", "0"], "--cores must hold at least two PUs"),
    (["run", "memory", "--cores", "1-0"], "must not run backwards"),
    (["run", "memory", "--cores", "0-99999999999"], "a core is a PU OS index up to"),
    (["run", "memory", "--cores", "0-70000"], "at most 65536 PUs"),
    (["run", "memory", "--cores", "a-b"], "a core list is numbers and ranges"),
    (["run", "memory", "--cores", ""], "a core list is numbers and ranges"),
    (["run", "memory", "--cores", "0,,1"], "a core list is numbers and ranges"),
    (["run", "memory", "--cores", "١,٢"], "a core list is numbers and ranges"),
    (["run", "memory", "--memory-size", "100000GiB"], "--memory-size must let"),
    (["run", "memory", "--memory-size", "100"], "--memory-size must be a positive multiple of 64 bytes"),
    (["run", "memory", "--memory-size", "0"], "--memory-size must be a positive multiple of 64 bytes"),
    (["run", "shared-caches", "--share-threshold", "0.5"], "--share-threshold must be in"),
    (["run", "shared-caches", "--shared-threshold", "inf"], "--shared-threshold must be in"),
    (["run", "shared-caches", "--rounds", "0"], "--rounds must be in"),
    (["run", "multibsp", "--mbsp-hmax", "0"], "--mbsp-hmax must be in"),
    (["run", "multibsp", "--mbsp-niters", "-3"], "--mbsp-niters must be in"),
    (["run", "multibsp", "--mbsp-niters", "99999999999"], "--mbsp-niters must be in"),
    (["run", "multibsp", "--mbsp-hmax", "65536", "--mbsp-niters", "100000"], "must keep the supersteps"),
    (["run", "distance", "--net-nodes", "1"], "--net-nodes must be in"),
    (["run", "distance", "--net-nodes", "9"], "--net-nodes must not exceed the 1 node(s)"),
    (["run", "distance", "--net-size", "0"], "--net-size must be in"),
    (["run", "distance", "--net-size", "2GiB"], "--net-size must be in"),
    (["run", "cache", "--comm-probe", "2GiB"], "--comm-probe must be in"),
    (["run", "cache", "--comm-max", "0"], "--comm-max must be in"),
    (["run", "cache", "--comm-cap", "nan"], "--comm-cap must be in"),     # checked even when comm does not run
    (["run", "cache", "-o", ""], "must not be empty"),
    (["run", "cache", "-o", "x.json/"], "not a directory"),
    (["run", "cache", "-o", "/"], "not a directory"),
    (["run", "cache", "-o", "/nonexistent-dir/r.json"], "does not exist"),
    (["run", "cache", "-o", __file__], "not an hpcbench results file"),
    (["run", "cache", "--quiet=yes"], "ignored explicit argument"),
    (["run", "--cache-passes"], "expected one argument"),
    (["show"], "required"),
    (["show", "/nonexistent/results.json"], "results file not found"),
    (["show", "/"], "results path is a directory"),
    (["show", "/dev/zero"], "not a regular file"),
    (["show", __file__], "damaged or truncated"),
    (["show", CACHE, "extra"], "unrecognized arguments"),
    (["degr", "/nonexistent.json"], "results file not found"),
    (["degr", NETWORK, "-o", ""], "the degradation file name must not be empty"),
    (["degr", CACHE], "neither a distance nor a network-access"),
    (["degr", NETWORK, "-o", "/nonexistent-dir/x.degr"], "does not exist"),
    (["degr"], "required"),
    # issue 24: devices, endless files and absurd sizes (FIFOs and planted files: tests/test_hostile.py)
    (["degr", NETWORK, "-o", "/dev/null"], "is a character device; it is never replaced"),
    (["degr", NETWORK, "-o", "/dev/null", "--force"], "is a character device; it is never replaced"),
    (["degr", NETWORK, "-o", __file__], "is not an hpcbench degradation file"),
    (["map", NETWORK, "-n", "2", "--kind", "memory", "--format", "rankfile", "-o", "/dev/null"],
     "is a character device"),
    (["map", NETWORK, "-n", "2", "--kind", "memory", "--format", "rankfile", "-o", __file__],
     "is not a launcher file hpcbench map wrote"),
    (["map", NETWORK, "-n", "2", "--kind", "memory", "--format", "rankfile", "--hosts=-Fevilcfg,b"],
     "is not a host name"),
    (["map", NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "--topology", "/dev/zero"],
     "is a character device, not a regular file"),
    (["report", CACHE, "-o", "/dev/null"], "is a character device; it is never replaced"),
    (["report", CACHE, "-o", __file__], "is not an hpcbench report"),
    (["report", "/dev/zero"], "not a regular file"),
    (["predict", "wavefront", "--profile", "/dev/zero", "--grid", "64", "--procs", "1x2", "--machine", "1x1x2"],
     "is a character device, not a regular file"),
    (["predict", "wavefront", "--profile", "/dev/urandom", "--grid", "64", "--procs", "1x2", "--machine", "1x1x2"],
     "is a character device, not a regular file"),
    (["predict", "wavefront", "--profile", "example:francesca-profile", "--grid", "1000000", "--procs",
      "1000x1000", "--machine", "250000x1x4", "--simulate"], "memory"),
    (["predict", "wavefront", "--profile", "example:francesca-profile", "--grid", "64", "--procs", "1x2",
      "--machine", "1x1x2", "-o", __file__], "is not an hpcbench prediction"),
    (["advise", "grid", "--rows", "4", "--cols", "4", "--row-volume", "1", "--col-volume", "1", "--ratdist",
      "1e308,1e308"], "overflow"),
    (["config"], "ask for --cflags, --libs or both"),
    (["config", "--bogus"], "unrecognized arguments"),
    (["list", "extra"], "unrecognized arguments"),
    (["frobnicate"], "invalid choice"),
    (["--bogus"], "unrecognized arguments"),
    (["advise"], "choose a topic"),
    (["advise", "mapping"], "invalid choice"),
    (["advise", "grid"], "required"),
    (["advise", "grid", "--rows", "2", "--cols", "2", "--row-volume", "1", "--col-volume", "1"], "required"),
    (["advise", "grid", "--rows", "2", "--cols", "2", "--row-volume", "1", "--col-volume", "1", "--ratdist", "1",
      "--results", NETWORK], "not allowed with argument"),
    (["advise", "grid", "--rows", "2", "--cols", "2", "--row-volume", "1", "--col-volume", "1",
      "--results", CACHE], "has no distance benchmark that finished"),
    (["advise", "grid", "--rows", "2", "--cols", "2", "--row-volume", "1", "--col-volume", "1",
      "--results", "/nonexistent.json"], "results file not found"),
]
for rows, cols in (("0", "4"), ("-1", "4"), ("4", "0"), ("x", "4"), ("4", "1.5"), ("1000", "1000")):
    HAND.append((["advise", "grid", "--rows", rows, "--cols", cols, "--row-volume", "1MiB", "--col-volume", "1MiB",
                  "--ratdist", "1"], ""))
for volume in ("x", "-1", "1.5", "inf", ""):
    HAND.append((["advise", "grid", "--rows", "2", "--cols", "2", "--row-volume", volume, "--col-volume", "1",
                  "--ratdist", "1"], ""))
for ratdist in ("1,x", "1,inf", "1,nan", "1,0", "1,-2", "", ",,", "1;2", "inf"):
    HAND.append((["advise", "grid", "--rows", "2", "--cols", "2", "--row-volume", "1", "--col-volume", "1",
                  "--ratdist", ratdist], ""))
for ppn in ("0", "-3", "x", "1.5"):
    HAND.append((["advise", "grid", "--rows", "2", "--cols", "2", "--row-volume", "1", "--col-volume", "1",
                  "--ratdist", "1", "--procs-per-node", ppn], ""))

CASES = range_cases() + choice_cases() + [pytest.param(a, m, id=" ".join(a)[:60]) for a, m in HAND]


@pytest.fixture(autouse=True)
def nothing_is_measured(monkeypatch, tmp_path):
    def measured(*args, **kwargs):
        raise AssertionError("a benchmark ran although the command line was bad")
    monkeypatch.setattr(_runner, "run_benchmark", measured)
    monkeypatch.chdir(tmp_path)          # a run that went ahead would write here, not in the repository


def test_there_are_at_least_150_cases():
    assert len(CASES) >= 150


@pytest.mark.parametrize("argv, message", CASES)
def test_bad_input_is_one_line_and_a_non_zero_exit(argv, message):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    lines = err.getvalue().strip().splitlines()
    assert status != 0, (argv, out.getvalue())
    assert len(lines) == 1, err.getvalue()
    assert message in lines[0], lines[0]
    assert "internal error" not in lines[0] and "Traceback" not in err.getvalue()


def test_a_bad_thread_level_is_one_line(monkeypatch):
    monkeypatch.setenv("HPCBENCH_MPI_THREAD_LEVEL", "sometimes")
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        assert main(["run", "cache"]) == 2
    assert err.getvalue().count("\n") == 1 and "HPCBENCH_MPI_THREAD_LEVEL" in err.getvalue()


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        assert main(["show", str(fifo)]) == 2
    assert "not a regular file" in err.getvalue()
    assert shutil.which("mkfifo") or True


def test_a_bad_output_path_is_the_one_line_even_with_a_deprecated_flag():
    """The output is checked with the options, before any deprecation note
    is printed: a bad command line gets one line, the error."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["run", "shared-caches", "--pairs", "all", "-o", "/nonexistent-dir/r.json"])
    assert status == 2 and err.getvalue().count("\n") == 1 and "does not exist" in err.getvalue()


@pytest.mark.parametrize("task, lines", [("0", 1), ("1", 0)])
def test_srun_without_a_working_mpi_plugin_is_one_line_from_task_0(task, lines):
    """Under srun without the plugin its MPI needs, every task is an MPI
    job of its own: task 0 says which plugin to use, every task exits 2."""
    import subprocess
    import sys
    env = dict(os.environ, SLURM_STEP_ID="0", SLURM_STEP_NUM_TASKS="2", SLURM_PROCID=task,
               PYTHONPATH=os.path.dirname(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "hpcbench", "run", "cache", "-o", "/nonexistent-dir/r.json"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == lines
    if lines:
        assert "srun started 2 tasks but MPI sees each as a job of its own: run srun --mpi=" in done.stderr
