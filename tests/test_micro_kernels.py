"""The micro-benchmark kernels under mpiexec (the checking is done by the
scripts they run): tests/mpi_micro_coll_check.py runs every collective of
csrc/kernels/micro_coll.c in every mode at 2, 3 and 4 ranks;
tests/mpi_micro_p2p_check.py every point-to-point and one-sided test of
micro_p2p.c and micro_rma.c at 1 B to 4 MiB at 2 and 4 ranks, which ranks
time themselves, rma_available and the parameter errors. Payloads are
verified by the kernels; bad parameters are refused on every rank."""
import os

import pytest
from test_mpi import MPIEXEC, ROOT, mpirun

pytestmark = [pytest.mark.mpi, pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH")]


@pytest.mark.parametrize("n", [2, pytest.param(3, marks=pytest.mark.slow), pytest.param(4, marks=pytest.mark.slow)])
def test_every_collective_in_every_mode(n):
    proc = mpirun(n, os.path.join(ROOT, "tests", "mpi_micro_coll_check.py"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout


@pytest.mark.parametrize("n", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_point_to_point_and_one_sided_kernels(n):
    proc = mpirun(n, os.path.join(ROOT, "tests", "mpi_micro_p2p_check.py"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout
