"""The network map and bisection under mpiexec: the flow kernel's two
completions, the benchmarks' records on one machine (members = ranks), and
the one-line refusal of a job too small for a map."""
import json
import os

import pytest
from test_mpi import MPIEXEC, ROOT, mpirun

from hpcbench._results import load

pytestmark = [pytest.mark.mpi, pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH")]


def test_flow_kernel_times_each_end_on_its_own():
    proc = mpirun(2, os.path.join(ROOT, "tests", "mpi_flow_check.py"), timeout=120)
    assert proc.returncode == 0, proc.stderr
    sender, receiver = json.loads(proc.stdout)
    for rank in (sender, receiver):
        assert rank["ring_shape"] == [2, 3] and rank["ring_finite"] and rank["ring_positive"]
        assert "dest must be a rank of comm (0..1) other than this rank" in rank["refused"]
    assert sender["alone_send"] == [True, True] and sender["alone_recv"] == [False, False]
    assert receiver["alone_send"] == [False, False] and receiver["alone_recv"] == [True, True]


def _one_line(proc) -> list:
    return [line for line in proc.stderr.splitlines() if line.startswith("hpcbench")]


@pytest.mark.parametrize("name", ["network-map", "bisection"])
def test_fewer_than_three_ranks_is_one_line(tmp_path, name):
    out = tmp_path / "r.json"
    proc = mpirun(2, "-m", "hpcbench", "run", name, "-o", str(out), timeout=120)
    assert proc.returncode == 2
    assert _one_line(proc) == [f"hpcbench run: {name} needs at least 3 MPI ranks; run it under mpiexec -n 3 or more"]
    assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("name, flag", [("network-map", "--map-unit"), ("bisection", "--bisection-unit")])
def test_fewer_than_three_nodes_is_one_line(tmp_path, name, flag):
    out = tmp_path / "r.json"
    proc = mpirun(3, "-m", "hpcbench", "run", name, "-o", str(out), timeout=120)
    assert proc.returncode == 2
    assert _one_line(proc) == [f"hpcbench run: {flag} node: needs at least 3 nodes to judge each against its "
                               f"peers; this job has 1 ({flag} rank maps ranks instead)"]
    assert not out.exists()


@pytest.mark.slow
def test_map_and_bisection_of_three_ranks(tmp_path):
    out = tmp_path / "r.json"
    proc = mpirun(3, "-m", "hpcbench", "run", "network-map", "bisection", "--map-unit", "rank", "--map-size",
                  "64KiB", "--map-latency-iterations", "20", "--bisection-unit", "rank", "--bisection-samples", "4",
                  "--bisection-size", "64KiB", "-o", str(out), timeout=300)
    assert proc.returncode == 0, proc.stderr
    records = {r.name: r for r in load(str(out)).benchmarks}
    netmap, bis = records["network-map"], records["bisection"]
    assert len(netmap.nodes) == 3 and netmap.parameters.alone
    for name in ("bandwidth_loaded", "bandwidth_alone", "latency_loaded", "latency_alone"):
        m = getattr(netmap.derived, name)
        assert [[v is None for v in row] for row in m] == [[i == j for j in range(3)] for i in range(3)]
        assert all(v > 0 for row in m for v in row if v is not None)
    latency = netmap.derived.latency_loaded
    assert all(latency[i][j] == latency[j][i] for i in range(3) for j in range(3))   # a round trip, both cells
    assert len(bis.parameters.members) == 3 and len(bis.raw.pairs) == 4
    assert all(len(pairs) == 1 for pairs in bis.raw.pairs)              # 3 members: one pair, one sits out
    assert all(sum(v is not None for v in row) == 2 for row in bis.pair_samples)
    show = mpirun(1, "-m", "hpcbench", "show", str(out), timeout=120)
    assert "from \\ to" in show.stdout and "effective bisection bandwidth" in show.stdout


@pytest.mark.slow
def test_the_cells_out_of_line_are_measured_again():
    """With the first pass's suspects planted: the shift step, the pair alone
    and the latency pair they are in are measured again, nothing else."""
    proc = mpirun(3, os.path.join(ROOT, "tests", "mpi_netmap_recheck.py"), timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["complete"]
    # step d = 1 holds (0, 1), (1, 2) and (2, 0): the whole step is measured again
    assert out["rechecked"] == {"bandwidth_loaded": [[0, 1], [1, 2], [2, 0]], "bandwidth_alone": [[2, 0]],
                                "latency_alone": [[1, 2], [2, 1]]}
