"""CoMet's matrix layer under mpiexec: the kernels on any communicator
against the NumPy model (tests/mpi_matrix_check.py), `run matrix` end to
end, and bad input ending every rank with one line from rank 0."""
import json
import os
from pathlib import Path

import pytest
from test_mpi import MPIEXEC, ROOT, mpirun

# A matrix mesh needs at least 4 ranks: every test here is slow.
pytestmark = [pytest.mark.mpi, pytest.mark.slow, pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH")]


@pytest.mark.parametrize("n", [4, 6])
def test_matrix_kernels_match_the_model_on_any_communicator(n):
    proc = mpirun(n, os.path.join(ROOT, "tests", "mpi_matrix_check.py"), timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout


def test_matrix_benchmark_end_to_end(tmp_path):
    out = str(tmp_path / "r.json")
    proc = mpirun(4, "-m", "hpcbench", "run", "matrix", "-o", out, "--matrix-dims", "16,32,64,128",
                  "--matrix-cap", "0.02", timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rec = json.loads(Path(out).read_text())["benchmarks"][0]
    assert rec["name"] == "matrix" and rec["status"] == "ok", rec.get("error")
    assert (rec["parameters"]["rows"], rec["parameters"]["cols"]) == (2, 2)
    kernels = rec["derived"]["kernels"]
    assert [k["kernel"] for k in kernels] == ["update_guard", "shift_north", "shift_east", "transpose",
                                              "row_broadcast", "col_broadcast"]
    for k in kernels:
        assert k["dims"] == [16, 32, 64, 128] and all(t > 0 for t in k["median"])
        assert k["growth"]["expected"] in (1, 2) and k["growth"]["verdict"] in ("agrees", "differs", "undecided")
    raw = rec["raw"]["kernels"]
    assert raw[4]["index"] == [12, 24, 48, 96] and "index" not in raw[0]
    assert len(raw[0]["rank_median"][0]) == 4
    assert "matrix kernels on a 2 x 2 mesh of 4 ranks" in proc.stdout and proc.stdout.count("results written") == 1


@pytest.mark.parametrize("ranks, args, line", [
    (5, [], "hpcbench run: --matrix-mesh must be rows x columns processes, both at least 2, using every rank; "
            "5 rank(s) make no such mesh"),
    (4, ["--matrix-mesh", "1x4"], "--matrix-mesh must use every one of the 4 ranks with at least 2 rows and 2 "
                                  "columns: 2x2; got 1x4"),
    (4, ["--matrix-dims", "64,66,7"], "--matrix-dims must be a multiple of both sides of the 2 x 2 mesh"),
    (4, ["--matrix-dims", "1"], "--matrix-dims must be at least the mesh's longer side (2, a 2 x 2 mesh), got 1"),
    (4, ["--matrix-kernels", "shift_west"], "'shift_west' is no matrix kernel"),
])
def test_bad_input_is_one_line_and_every_rank_exits(tmp_path, ranks, args, line):
    out = str(tmp_path / "r.json")
    proc = mpirun(ranks, "-m", "hpcbench", "run", "matrix", "-q", "-o", out, *args, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    ours = [ln for ln in proc.stderr.splitlines() if ln.startswith("hpcbench")]
    assert len(ours) == 1 and line in ours[0], proc.stderr
    assert "Traceback" not in proc.stderr and not os.path.exists(out)
