"""The point-to-point and one-sided micro-benchmark kernels (micro_p2p.c,
micro_rma.c) under mpiexec at 2 and 4 ranks: tests/mpi_micro_p2p_check.py
runs every test at 1 B to 4 MiB and checks which ranks time themselves,
the payload checks, rma_available and the parameter errors."""
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


# The timeout catches a hang, never a slow run: the check takes 1 to 2 s here at 2 and 4 ranks.
def mpirun(n, *args, timeout=300):
    # A PYTHONPATH given (a build of the extension outside the tree) comes before the checkout.
    paths = [p for p in (os.environ.get("PYTHONPATH", ""), ROOT) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), OMPI_MCA_rmaps_base_oversubscribe="1")
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


@pytest.mark.parametrize("n", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_point_to_point_and_one_sided_kernels(n):
    proc = mpirun(n, os.path.join(ROOT, "tests", "mpi_micro_p2p_check.py"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout
