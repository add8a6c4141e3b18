"""peakflops through the command line: bad input is one line and exit
status 2; a short real run has the record's structure (no measured figure
is asserted)."""
import json
import os
import subprocess
import sys

import pytest

import hpcbench
from hpcbench.flops._isa import cpu_isas

# The hpcbench this test imported (a private build on PYTHONPATH included).
HERE = os.path.dirname(os.path.dirname(hpcbench.__file__))


def cli(*args, timeout=120):
    env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "hpcbench", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.mark.parametrize("args, words", [
    (["--flops-samples", "0"], "--flops-samples"),
    (["--flops-sample-ms", "0"], "--flops-sample-ms"),
    (["--flops-cores", "4096"], "--flops-cores"),
    (["--flops-isa", "avx1024"], "--flops-isa"),
])
def test_bad_options_are_one_line_and_status_2(args, words):
    proc = cli("run", "peakflops", *args)
    assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 2, proc.stderr


def test_an_isa_the_cpu_lacks_names_what_it_has():
    missing = [n for n in ("avx512", "avx2") if n not in cpu_isas()]
    if not missing:
        pytest.skip("this CPU runs every ISA")
    proc = cli("run", "peakflops", "--flops-isa", missing[0])
    assert proc.returncode == 2 and "scalar" in proc.stderr and "Traceback" not in proc.stderr


def test_a_short_run_has_the_records_structure(tmp_path):
    out = str(tmp_path / "f.json")
    proc = cli("run", "peakflops", "--flops-isa", "scalar", "--flops-samples", "2", "--flops-sample-ms", "0.5",
               "--flops-cores", "0", "-o", out)
    assert proc.returncode == 0, proc.stderr
    with open(out) as f:
        data = json.load(f)
    rec = next(r for r in data["benchmarks"] if r["name"] == "peakflops")
    d = rec["derived"]
    assert d["headline_isa"] == "scalar" and d["node_cores"] == 1
    assert [(r["isa"], r["precision"], r["cores"]) for r in d["rates"]] == [("scalar", "double", 1),
                                                                              ("scalar", "single", 1)]
    assert rec["parameters"]["scalar_operation"] in ("fma", "mul+add")
    shown = cli("show", out)
    assert shown.returncode == 0 and "peak FLOP/s" in shown.stdout
    tidy = cli("show", out, "--format", "csv")
    assert tidy.returncode == 0 and "peak_per_core" in tidy.stdout
