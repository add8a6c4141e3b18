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


def is_open_mpi() -> bool:
    version = subprocess.run([MPIEXEC, "--version"], capture_output=True, text=True).stdout
    return "Open MPI" in version or "OpenRTE" in version


def mpirun(n, *args, timeout=300):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMPI_MCA_rmaps_base_oversubscribe="1")
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [MPIEXEC, "-n", str(n)]
    if n > (os.cpu_count() or 1):
        # More ranks than cores: only an MPI whose idle ranks yield the CPU
        # (Open MPI does when oversubscribed) finishes in reasonable time;
        # MPICH's ranks spin, and 4 spinning ranks on 2 cores take minutes per step.
        if not is_open_mpi():
            pytest.skip(f"{n} ranks on {os.cpu_count()} cores need an MPI that yields when idle (Open MPI)")
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


@pytest.mark.parametrize("n", [2, 4])
def test_comm_kernels_and_layers(n):
    proc = mpirun(n, os.path.join(ROOT, "tests", "mpi_comm_check.py"), timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout


@pytest.mark.parametrize("n", [2, 4])
def test_comm_benchmark_end_to_end(tmp_path, n):
    out = str(tmp_path / "r.json")
    proc = mpirun(n, "-m", "hpcbench", "run", "comm", "-o", out, "--comm-max", "64KiB", "--comm-cap", "0.02",
                  timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.load(open(out))
    rec = data["benchmarks"][0]
    assert rec["name"] == "comm" and rec["status"] == "ok", rec.get("error")
    d = rec["derived"]
    assert d["echo"]["summary"]["sizes"][0] == 0 and max(d["echo"]["summary"]["sizes"]) == 64 << 10
    assert d["echo"]["regions"] and d["daxpy"]["r_inf"] > 0
    pairs = sorted(tuple(p) for lv in d["layers"] for p in lv["pairs"])
    assert pairs == [(a, b) for a in range(n) for b in range(a + 1, n)]
    assert ("contention" in d) == (n >= 4) and ("hops" in d) == (n >= 4)
    assert "communication over" in proc.stdout and proc.stdout.count("results written to") == 1


def test_comm_usage_errors_once(tmp_path):
    proc = mpirun(2, "-m", "hpcbench", "run", "comm", "--comm-cap", "0", "-o", str(tmp_path / "r.json"))
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if "--comm-cap must be in (0, 60] seconds" in line]
    assert len(lines) == 1, proc.stderr
