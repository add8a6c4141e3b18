"""hpcbench under mpiexec: node-local benchmarks run once per node, errors
are printed once, and the C kernels work on any communicator."""
import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPIEXEC = shutil.which("mpiexec")
pytestmark = [pytest.mark.mpi, pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH")]


def mpirun(n, *args, timeout=300):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMPI_MCA_rmaps_base_oversubscribe="1")
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [MPIEXEC, "-n", str(n)]
    if "Open MPI" in subprocess.run([MPIEXEC, "--version"], capture_output=True, text=True).stdout:
        cmd.append("--oversubscribe")
    try:
        return subprocess.run(cmd + [sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"mpiexec -n {n} timed out after {timeout}s: {e.stderr}")


@pytest.mark.parametrize("n", [2, 4])
def test_barrier_kernel_on_any_communicator(n):
    proc = mpirun(n, os.path.join(ROOT, "tests", "mpi_barrier_check.py"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout


def test_node_local_benchmark_runs_once_per_node(tmp_path):
    out = str(tmp_path / "r.json")
    proc = mpirun(2, "-m", "hpcbench", "run", "cache", "shared-caches", "memory", "-o", out, "--cache-max", "2MiB",
                  "--cache-passes", "1", "--cache-samples", "2", "--no-cache-refine", "--memory-size", "8MiB",
                  "--memory-reps", "2", "--rounds", "1")
    assert proc.returncode == 0, proc.stderr
    data = json.load(open(out))
    assert data["context"]["mpi"]["ranks"] == 2
    nodes = data["context"]["hosts"]
    for name in ("cache", "shared-caches", "memory"):
        records = [b for b in data["benchmarks"] if b["name"] == name]
        # The node leader's pinned team threads reach every PU of the node,
        # whatever binding mpiexec gave the rank (or the node has one PU).
        assert len(records) == len(nodes) == 1 and records[0]["status"] in ("ok", "skipped"), records
    assert proc.stdout.count("results written to") == 1  # one rank reports


def test_usage_error_is_printed_once(tmp_path):
    proc = mpirun(2, "-m", "hpcbench", "run", "--cache-stride", "3", "-o", str(tmp_path / "r.json"))
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if "stride must be" in line]
    assert len(lines) == 1, proc.stderr
