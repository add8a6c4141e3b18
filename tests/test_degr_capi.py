"""The C degradation API (libhpcbdegr): a C program compiled with the flags
`python -m hpcbench config --cflags --libs` prints, and reads real files."""
import os
import shutil
import subprocess
import sys

import pytest

from hpcbench.network import write_degradation_file

HERE = os.path.dirname(os.path.abspath(__file__))
CC = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler")


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    flags = subprocess.run([sys.executable, "-m", "hpcbench", "config", "--cflags", "--libs"],
                           capture_output=True, text=True, check=True).stdout.split()
    exe = str(tmp_path_factory.mktemp("capi") / "degr_check")
    subprocess.run([CC, "-std=c99", "-Wall", "-Werror", os.path.join(HERE, "degr_check.c"), "-o", exe, *flags],
                   check=True)
    return exe


def run(program, path, dist, nprocs, env=None, cwd=None):
    out = subprocess.run([program, path, str(dist), str(nprocs)], capture_output=True, text=True, check=True,
                         env=env, cwd=cwd).stdout
    return dict(line.split(" ", 1) for line in out.strip().splitlines())


def test_reads_what_python_wrote(program, tmp_path):
    path = str(tmp_path / "r.degr")
    write_degradation_file(path, {1: 1.0, 2: 1.9, 3: 2.75}, {1: 1.0, 2: 1.6}, ["test"])
    got = run(program, path, 3, 2)
    assert got["load"].startswith("0 ")
    assert float(got["dist"]) == pytest.approx(2.75) and float(got["access"]) == pytest.approx(1.6)
    assert float(got["null"]) == -5 and float(got["released"]) == -3


def test_out_of_range_arguments(program, tmp_path):
    path = str(tmp_path / "r.degr")
    write_degradation_file(path, {1: 1.0, 2: 1.9}, {1: 1.0}, [])
    got = run(program, path, 3, 0)
    assert float(got["dist"]) == -3 and float(got["access"]) == -3


def test_missing_and_damaged_files(program, tmp_path):
    got = run(program, str(tmp_path / "missing.degr"), 1, 1)
    assert got["load"].startswith("-1 ") and "not found" in got["load"]
    assert float(got["dist"]) == -3                      # nothing loaded
    damaged = tmp_path / "bad.degr"
    for text in ("garbage\n", "hpcbench-degradation 1\nratDist 2 1.0\nratNC 0\n",
                 "hpcbench-degradation 1\nratDist 1 1.0\n", "hpcbench-degradation 1\nratDist 1 x\nratNC 0\n"):
        damaged.write_text(text)
        got = run(program, str(damaged), 1, 1)
        assert got["load"].startswith("-2 "), text


def test_default_path_and_environment(program, tmp_path):
    write_degradation_file(str(tmp_path / "hpcbench-results.degr"), {1: 1.0}, {1: 1.0, 2: 1.3}, [])
    got = run(program, "-", 1, 2, cwd=str(tmp_path))
    assert float(got["access"]) == pytest.approx(1.3)
    other = str(tmp_path / "elsewhere.degr")
    write_degradation_file(other, {1: 1.0, 2: 4.0}, {1: 1.0}, [])
    got = run(program, "-", 2, 1, env=dict(os.environ, HPCBENCH_DEGR_FILE=other))
    assert float(got["dist"]) == pytest.approx(4.0)
