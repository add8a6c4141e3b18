"""The real wavefront kernel under mpiexec (tests/mpi_wavefront_check.py):
1 x P, P x 1 and 2 x 2 arrays with several H_tile end with the serial
evaluation's checksum, and a wrong, missing or stale face fails on every
rank instead of passing or hanging."""
import os

import pytest
from test_mpi import MPIEXEC, ROOT, mpirun

pytestmark = [pytest.mark.mpi, pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH")]


@pytest.mark.parametrize("n", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_every_decomposition_matches_the_serial_evaluation(n):
    proc = mpirun(n, os.path.join(ROOT, "tests", "mpi_wavefront_check.py"), timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"OK ({n} ranks)" in proc.stdout
