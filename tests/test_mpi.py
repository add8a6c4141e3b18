"""hpcbench under mpiexec: node-local benchmarks run once per node, errors
are printed once, and the C kernels work on any communicator."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPIEXEC = shutil.which("mpiexec")
pytestmark = [pytest.mark.mpi, pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH")]


def is_open_mpi() -> bool:
    version = subprocess.run([MPIEXEC, "--version"], capture_output=True, text=True).stdout
    return "Open MPI" in version or "OpenRTE" in version


# Timeouts catch a hang, never a slow run: several times what a run takes with a CPU hog on both cores
# (`run comm` with 4 ranks: 2 s on an idle machine, 160 s beside stress-ng --cpu 2).
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


@pytest.mark.parametrize("n", [2, pytest.param(4, marks=pytest.mark.slow)])
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
    data = json.loads(Path(out).read_text())
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


@pytest.mark.slow       # every comm kernel and layer: 5 s with 2 ranks here
@pytest.mark.parametrize("n", [2, 4])
def test_comm_kernels_and_layers(n):
    proc = mpirun(n, os.path.join(ROOT, "tests", "mpi_comm_check.py"), timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout


@pytest.mark.parametrize("n", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_comm_benchmark_end_to_end(tmp_path, n):
    out = str(tmp_path / "r.json")
    proc = mpirun(n, "-m", "hpcbench", "run", "comm", "-o", out, "--comm-max", "64KiB", "--comm-cap", "0.02",
                  timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(Path(out).read_text())
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
    lines = [line for line in proc.stderr.splitlines() if "--comm-cap must be in (0, 60] s, got 0" in line]
    assert len(lines) == 1, proc.stderr


def mpmd(*commands, timeout=120):
    """An MPMD launch: one rank per command line (as a site wrapper or a
    mistaken launch may produce); the result must come well before the timeout."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [MPIEXEC]
    for i, args in enumerate(commands):
        cmd += ([":"] if i else []) + ["-n", "1", sys.executable, "-m", "hpcbench", *args]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the MPMD job hung (no answer in {timeout}s): {e.stderr}")


@pytest.mark.parametrize("rank0, rank1, line", [
    (["--cache-passes", "3"], ["--cache-passes", "5"],
     "every rank must get the same command line; rank 1 has --cache-passes 5, rank 0 has 3"),
    ([], ["--cache-stride", "3"], "every rank must get the same command line; rank 1 has --cache-stride 3"),
    ([], ["--cache-passes", "x"], "on rank 1: argument --cache-passes: invalid int value"),
    (["--cache-passes", "0"], ["--cache-passes", "0"], "--cache-passes must be in 1..100, got 0"),
    (["memory"], ["cache"], "every rank must get the same command line; rank 1 has the benchmarks ['cache'], "
                            "rank 0 has ['memory']"),
    (["--rounds", "2"], ["--shared-rounds", "2"], "every rank must get the same command line"),
])
def test_ranks_with_different_options_end_with_one_line(tmp_path, rank0, rank1, line):
    if not is_open_mpi():
        pytest.skip("MPMD launches use Open MPI's ':' syntax")
    out = str(tmp_path / "r.json")
    base = ["run", "-q", "-o", out]
    first = base + rank0 + ([] if any(a in ("memory", "cache") for a in rank0) else ["cache"])
    second = base + rank1 + ([] if any(a in ("memory", "cache") for a in rank1) else ["cache"])
    proc = mpmd(first, second)
    assert proc.returncode != 0
    ours = [ln for ln in proc.stderr.splitlines() if ln.startswith("hpcbench")]
    assert ours == [next(ln for ln in ours if line in ln)], proc.stderr      # one line, from rank 0
    assert not os.path.exists(out)                                           # nothing measured, nothing written


def test_an_environment_that_differs_between_ranks_is_refused(tmp_path):
    if not is_open_mpi():
        pytest.skip("MPMD launches use Open MPI's ':' syntax")
    env = dict(os.environ, PYTHONPATH=ROOT, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [MPIEXEC, "-n", "1", "-x", "HPCBENCH_MPI_THREAD_LEVEL=single", sys.executable, "-m", "hpcbench", "run",
           "cache", "-q", "-o", str(tmp_path / "r.json"), ":", "-n", "1", "-x", "HPCBENCH_MPI_THREAD_LEVEL=funneled",
           sys.executable, "-m", "hpcbench", "run", "cache", "-q", "-o", str(tmp_path / "r.json")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode != 0
    ours = [ln for ln in proc.stderr.splitlines() if ln.startswith("hpcbench")]
    assert len(ours) == 1 and "MPI thread level funneled" in ours[0], proc.stderr


@pytest.mark.slow       # a run of comm with up to ten 1 s stops in it: about a minute
def test_a_stalled_rank_is_a_warning_not_a_silent_hole(tmp_path):
    """Rank 1 is stopped (SIGSTOP) for a second, again and again while `run comm`
    measures: the record says a sample took about a second and kept it."""
    if not is_open_mpi():
        pytest.skip("the launch below uses Open MPI's options")
    import signal
    import time
    out = str(tmp_path / "stall.json")
    env = dict(os.environ, PYTHONPATH=ROOT, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    proc = subprocess.Popen([MPIEXEC, "-n", "2", sys.executable, "-m", "hpcbench", "run", "comm", "-q", "-o", out,
                             "--comm-max", "64KiB", "--comm-cap", "0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        ranks = []
        for _ in range(100):
            ranks = [int(p) for p in subprocess.run(["pgrep", "-f", "--", f"-o {out}"], capture_output=True,
                                                   text=True).stdout.split() if int(p) != proc.pid]
            ranks = [p for p in ranks if Path(f"/proc/{p}/cmdline").read_bytes().startswith(sys.executable.encode())]
            if len(ranks) == 2:
                break
            time.sleep(0.1)
        victim = max(ranks)
        # A stop every 1.5 s until the run ends (at most ten), so that some
        # land in timed samples however long the run takes on a busy machine
        # (a stop during setup or between sweeps times nothing).
        for pause in [1.0] + [0.5] * 9:
            time.sleep(pause)
            if proc.poll() is not None:
                break
            try:
                os.kill(victim, signal.SIGSTOP)
                time.sleep(1.0)
                os.kill(victim, signal.SIGCONT)
            except ProcessLookupError:       # the run ended meanwhile
                break
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    warnings = json.loads(Path(out).read_text())["benchmarks"][0]["warnings"]
    stalls = [w for w in warnings if "a sample took" in w and "stalled rank" in w]
    assert stalls, warnings
