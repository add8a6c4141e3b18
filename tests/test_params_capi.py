"""The parameters API (libhpcbdegr's hpcb_params.h and its Fortran module
hpcb_params.f90): programs compiled with the flags `python -m hpcbench
config --cflags --libs` prints read files `python -m hpcbench params` wrote,
from the shipped examples and from a real run made here, and get every
parameter Python reads from the same results."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from params_corpus import c_outcome, c_read, dump_lines

import hpcbench
from hpcbench.network import (
    Parameters,
    ParamLayer,
    ParamMemoryLevel,
    ParamRank,
    parameters_from_results,
    read_parameters_file,
    write_parameters_file,
)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CC = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
FC = shutil.which(os.environ.get("FC", "gfortran"))
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler")
EXAMPLES = ["node-example.json", "mapping-example.json", "comm-example.json", "network-example.json"]


def config(*what: str) -> list[str]:
    return subprocess.run([sys.executable, "-m", "hpcbench", "config", *what], capture_output=True, text=True,
                          check=True).stdout.split()


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    exe = str(tmp_path_factory.mktemp("capi") / "params_check")
    subprocess.run([CC, "-std=c99", "-Wall", "-Werror", os.path.join(HERE, "params_check.c"), "-o", exe,
                    *config("--cflags", "--libs")], check=True)
    return exe


def hpcbench_params(results: str, out: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hpcbench", "params", results, "-o", out, *extra],
                          capture_output=True, text=True)


def api(program: str, path: str, cwd: str | None = None, env: dict | None = None) -> dict:
    out = subprocess.run([program, "--api", path], capture_output=True, text=True, check=True, cwd=cwd,
                         env=env).stdout
    return dict(line.split(" ", 1) if " " in line else (line, "") for line in out.splitlines())


def test_examples_every_parameter_in_c_equals_python(program, tmp_path):
    """`hpcbench params` on each shipped example; the C program's dump (every
    value through the accessors, doubles bit for bit) equals what Python
    makes of the results file's records."""
    paths, expected = [], []
    for name in EXAMPLES:
        results = os.path.join(ROOT, "hpcbench", "examples", name)
        out = str(tmp_path / name.replace(".json", ".params"))
        done = hpcbench_params(results, out)
        assert done.returncode == 0 and "written to" in done.stdout, done.stderr
        paths.append(out)
        expected.append(dump_lines(parameters_from_results(hpcbench.load(results))[0]))
    assert [c_outcome(r) for r in c_read([program, "--dump"], paths)] == expected
    # Known contents of the examples: the comm example's 13 layers, and the node example's cache levels (2 or 3:
    # a level the cache benchmark flags, such as an L3 other tenants hold, is left out of the parameters).
    assert any("layers 13" in lines for lines in expected)
    assert any(line in ("caches 2", "caches 3") for lines in expected for line in lines), expected


def test_accessors_answer_and_refuse(program, tmp_path):
    path = str(tmp_path / "a.params")
    write_parameters_file(path, Parameters(
        caches={1: 32768, 2: 1 << 20}, shared_caches={2: [[0, 1], [2, 3]]}, memory_reference=6e10,
        memory=[ParamMemoryLevel(3e10, 0.5, [[0, 1]])], ranks=[ParamRank(0, [0]), ParamRank(0, [1])],
        layers=[ParamLayer(1e-6, None, [(0, 1)])], rat_dist={1: 1.0, 2: 1.5}))
    got = api(program, path)
    assert got["load"] == "0" and got["message"] == ""
    assert got["cache_size_1"] == "32768" and got["cache_size_0"] == "-3"
    assert (got["share_cache_2_0_1"], got["share_cache_2_0_2"], got["shared_group_9"]) == ("1", "0", "-3")
    assert (got["memory_level_of_0_1"], got["memory_level_of_0_3"]) == ("1", "0")
    assert (got["layer_of_1_0"], got["layer_of_0_99"], got["layer_latency_0"], got["dist_ratio_0"]) == \
        ("1", "-3", "-3", "-3")
    assert (got["null_cache"], got["null_layers"], got["null_load"], got["released_layers"]) == ("-5", "-5", "-5", "0")


def test_message_is_cut_to_the_buffer_and_default_path(program, tmp_path):
    """A 64-byte message buffer holds the start of the line (NUL-terminated);
    with no path, $HPCBENCH_PARAMS_FILE, else hpcbench-results.params here."""
    bad = tmp_path / "b.params"
    bad.write_text("hpcbench-parameters 1\ncache 0 1\nratDist 0\nratNC 0\nend\n")
    got = api(program, str(bad))
    assert got["load"] == "-2" and len(got["message"]) <= 63 and got["message"].startswith(str(bad)[:40])
    write_parameters_file(str(tmp_path / "hpcbench-results.params"), Parameters(caches={1: 4096}))
    assert api(program, "-", cwd=str(tmp_path))["cache_size_1"] == "4096"
    other = str(tmp_path / "other.params")
    write_parameters_file(other, Parameters(caches={1: 8192}))
    env = dict(os.environ, HPCBENCH_PARAMS_FILE=other)
    assert api(program, "-", cwd=str(tmp_path), env=env)["cache_size_1"] == "8192"


def test_cli_bad_input_is_one_line_exit_2(tmp_path):
    example = os.path.join(ROOT, "hpcbench", "examples", "multibsp-example.json")
    done = hpcbench_params(example, str(tmp_path / "x.params"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "none of cache" in done.stderr, done.stderr
    other = tmp_path / "notes.txt"
    other.write_text("mine\n")
    node = os.path.join(ROOT, "hpcbench", "examples", "node-example.json")
    done = hpcbench_params(node, str(other))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and other.read_text() == "mine\n", done.stderr
    assert hpcbench_params(node, str(other), "--force").returncode == 0
    assert read_parameters_file(str(other)).caches


@pytest.mark.parametrize("argv, says", [
    (["/nonexistent.json"], "results file not found"),
    (["example:node", "-o", ""], "must not be empty"),
    (["example:node", "-o", "/nonexistent-dir/x.params"], "does not exist"),
    ([], "required"),
    (["example:node", "-o", "/dev/null"], "is a character device; it is never replaced"),
    (["example:node", "-o", "/dev/null", "--force"], "is a character device; it is never replaced"),
    (["example:multibsp", "-o", "x.params"], "none of cache, shared-caches, memory, comm"),
])
def test_cli_refusals(tmp_path, argv, says):
    done = subprocess.run([sys.executable, "-m", "hpcbench", "params", *argv], capture_output=True, text=True,
                          cwd=str(tmp_path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not os.path.exists(tmp_path / "x.params")


@pytest.mark.skipif(FC is None, reason="no Fortran compiler (gfortran; tools/install.sh installs it)")
def test_fortran_module_reads_what_python_reads(tmp_path):
    """hpcb_params.f90 compiled with a Fortran program and linked with
    `hpcbench config --libs`: the values it prints equal Python's."""
    module = os.path.join(ROOT, "hpcbench", "include", "hpcb_params.f90")
    subprocess.run([FC, "-c", module, "-J", str(tmp_path), "-o", str(tmp_path / "hpcb_params.o")], check=True)
    exe = str(tmp_path / "fcheck")
    subprocess.run([FC, "-I", str(tmp_path), os.path.join(HERE, "params_check.f90"), str(tmp_path / "hpcb_params.o"),
                    "-o", exe, *config("--libs")], check=True)
    path = os.path.join(HERE, "data", "params", "good", "full.params")
    p = read_parameters_file(path)
    out = {}
    for line in subprocess.run([exe, path], capture_output=True, text=True, check=True).stdout.splitlines():
        fields = line.split()
        indexed = ("cache", "overhead", "layer", "ratDist", "ratNC")
        width = 3 if fields[0] == "shared" else 2 if fields[0] in indexed else 1
        out[" ".join(fields[:width])] = " ".join(fields[width:])
    assert out["load"] == "0" and out["out_of_range"] == "-3" and out["released"] == "0"
    assert out["shared 2 2:"] == "2 3" and out["shared 3 1:"] == "0 1 2 3"
    for level, size in p.caches.items():
        assert int(out[f"cache {level}"]) == size
    assert float(out["memory"]) == p.memory_reference
    for i, m in enumerate(p.memory, 1):
        assert [float(v) for v in out[f"overhead {i}"].split()] == [m.bandwidth, m.relative]
    for i, layer in enumerate(p.layers, 1):
        latency, bandwidth, pairs = out[f"layer {i}"].split()
        assert (float(latency), float(bandwidth), int(pairs)) == (layer.latency, layer.bandwidth or 0.0,
                                                                  len(layer.pairs))
    assert [float(out[f"ratDist {d}"]) for d in p.rat_dist] == list(p.rat_dist.values())
    assert out["layer_of_0_1"] == "1"
    bad = subprocess.run([exe, os.path.join(HERE, "data", "params", "bad", "truncated-before-end.params")],
                         capture_output=True, text=True, check=True).stdout
    assert "load -2" in bad and "line 20: the file ends before the end line" in bad


@pytest.mark.slow       # a real run under mpiexec -n 2: about 15 s here
def test_real_run_every_parameter_in_c_equals_python(program, tmp_path):
    """`run cache shared-caches memory comm` with small flags at 2 ranks,
    then `hpcbench params`: the C program reads every parameter and each
    equals what Python reads from the results file's records."""
    mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        pytest.skip("no mpiexec")
    results, out = str(tmp_path / "r.json"), str(tmp_path / "r.params")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [mpiexec, "-n", "2", sys.executable, "-m", "hpcbench", "run", "cache", "shared-caches", "memory", "comm",
           "-q", "-o", results, "--cache-max", "2MiB", "--cache-passes", "1", "--cache-samples", "2",
           "--no-cache-refine", "--memory-size", "8MiB", "--memory-reps", "2", "--shared-rounds", "1",
           "--memory-rounds", "1", "--comm-max", "4KiB", "--comm-cap", "0.05"]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"mpiexec -n 2 timed out: {e.stderr}")
    assert run.returncode == 0, run.stderr
    assert hpcbench_params(results, out).returncode == 0
    p, _ = parameters_from_results(hpcbench.load(results))
    assert p.caches and p.shared_caches and p.memory_reference and len(p.ranks) == 2 and p.layers
    assert c_outcome(c_read([program, "--dump"], [out])[0]) == dump_lines(p)
