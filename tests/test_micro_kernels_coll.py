"""The micro-benchmark kernel's collectives (csrc/kernels/micro_coll.c) under
mpiexec at 2, 3 and 4 ranks: every collective in every mode, payloads
verified by the kernel, bad parameters refused on every rank
(tests/mpi_micro_coll_check.py does the checking)."""
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


# The timeout catches a hang, never a slow run: the script takes about a second at 4 ranks on an idle
# machine, so 300 s leaves room for a loaded one.
def mpirun(n, *args, timeout=300):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMPI_MCA_rmaps_base_oversubscribe="1")
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [MPIEXEC, "-n", str(n)]
    if n > (os.cpu_count() or 1):
        # More ranks than cores: only an MPI whose idle ranks yield the CPU (Open MPI does when
        # oversubscribed) finishes in reasonable time.
        if not is_open_mpi():
            pytest.skip(f"{n} ranks on {os.cpu_count()} cores need an MPI that yields when idle (Open MPI)")
        cmd.append("--oversubscribe")
    try:
        return subprocess.run(cmd + [sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"mpiexec -n {n} timed out after {timeout}s: {e.stderr}")


@pytest.mark.parametrize("n", [2, pytest.param(3, marks=pytest.mark.slow), pytest.param(4, marks=pytest.mark.slow)])
def test_every_collective_in_every_mode(n):
    proc = mpirun(n, os.path.join(ROOT, "tests", "mpi_micro_coll_check.py"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout
