"""The OSU/IMB families end to end under mpiexec: every family runs, every
point carries hpcbench's, OSU's and IMB's statistics, `show` prints the
tables; bad input is one line from rank 0 and exit 2 on every rank, with
nothing measured. No measured figure of this machine is asserted."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_mpi import MPIEXEC, ROOT, is_open_mpi, mpirun

pytestmark = [pytest.mark.mpi, pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH")]

QUICK = ["--comm-sizes", "8,4KiB", "--comm-iterations", "20", "--comm-warmup", "2", "--p2p-window", "4"]


def _records(path):
    return {b["name"]: b for b in json.loads(Path(path).read_text())["benchmarks"]}


@pytest.mark.parametrize("n", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_every_family_runs_with_every_statistic(tmp_path, n):
    out = tmp_path / "r.json"
    proc = mpirun(n, "-m", "hpcbench", "run", "p2p", "collectives", "nbc", "rma", "-o", str(out), *QUICK)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    records = _records(out)
    expected = {"p2p": 5, "collectives": 13, "nbc": 13, "rma": 10}       # rma: 5 tests x fence, lock
    for family, count in expected.items():
        record = records[family]
        assert record["status"] == "ok", record
        series = record["derived"]["series"]
        assert len(series) == count
        for s in series:
            sizes = [p["size"] for p in s["points"]]
            # reductions too (both are whole floats); a barrier moves no data: once, at the first size
            assert sizes == ([8] if s["test"].endswith("barrier") else [8, 4096]), s["test"]
            for p in s["points"]:
                assert p["median"] > 0 and p["osu"] > 0 and p["p10"] <= p["median"] <= p["p90"]
                if s["kind"] == "latency":
                    assert p["t_min"] <= p["t_avg"] <= p["t_max"]
                if family == "nbc":
                    assert 0 <= p["overlap_percent"] <= 100 and p["t_pure"] > 0 and p["t_cpu"] > 0
        raw = record["raw"]["series"]
        assert len(raw) == count
        # --comm-iterations counts operations (OSU's -i): samples x inner covers them
        for s in series:
            for p in s["points"]:
                assert p["samples"] * p["inner"] >= 20
    assert {s["sync"] for s in records["rma"]["derived"]["series"]} == {"fence", "lock"}
    mbw = next(s for s in records["p2p"]["derived"]["series"] if s["test"] == "mbw_mr")
    assert mbw["pairs"] == n // 2 and all(p["message_rate"] > 0 for p in mbw["points"])
    if n >= 4:   # the collectives against the number of processes: 2 of 4
        assert {s["procs"] for s in records["collectives"]["derived"]["scaling"]} == {2}
    shown = subprocess.run([sys.executable, "-m", "hpcbench", "show", str(out)], capture_output=True, text=True,
                           cwd=ROOT, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "OSU" in shown.stdout and "allreduce" in shown.stdout and "iallreduce" in shown.stdout


def _one_line_everywhere(proc, words):
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("hpcbench")]
    assert len(lines) == 1 and words in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("args, words", [
    (["p2p", "--p2p-pairs", "2"], "--p2p-pairs must be at most half the ranks"),
    (["p2p", "--p2p-window", "0"], "--p2p-window must be in 1..65536, got 0"),
    (["collectives", "--comm-sizes", "8,0"], "at least 1 byte"),
    (["collectives", "--comm-sizes", "-4"], "must not be negative"),
    (["collectives", "--comm-sizes", "8,x"], "a size is a number"),
    (["collectives", "--coll-procs", "3"], "--coll-procs must not exceed the ranks of the job (2)"),
    (["nbc", "--comm-budget", "0"], "--comm-budget must be in (0, 60] s"),
    (["rma", "--comm-iterations", "0"], "--comm-iterations must be in"),
])
def test_bad_input_is_one_line_and_exit_2_on_every_rank(tmp_path, args, words):
    out = tmp_path / "r.json"
    proc = mpirun(2, "-m", "hpcbench", "run", *args, "-o", str(out), timeout=120)
    _one_line_everywhere(proc, words)
    assert not out.exists()


def test_a_collective_at_one_rank_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "hpcbench", "run", "collectives", "-o", str(tmp_path / "r.json")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    _one_line_everywhere(proc, "collectives needs at least 2 MPI ranks")
    proc = subprocess.run([sys.executable, "-m", "hpcbench", "run", "--comm-suite", "all", "--estimate"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    _one_line_everywhere(proc, "needs at least 2 MPI ranks")


def test_rma_without_one_sided_support_is_one_line(tmp_path, monkeypatch):
    if not is_open_mpi():
        pytest.skip("Open MPI's MCA variables choose the one-sided components")
    # Open MPI without any one-sided component: MPI_Win_allocate fails.
    monkeypatch.setenv("OMPI_MCA_osc", "^pt2pt,ucx,sm,monitoring,rdma")
    out = tmp_path / "r.json"
    proc = mpirun(2, "-m", "hpcbench", "run", "rma", "-o", str(out), timeout=120)
    _one_line_everywhere(proc, "does not create one-sided windows")
    assert not out.exists()


def test_comm_suite_all_adds_the_four_families_to_an_unnamed_run():
    proc = mpirun(2, "-m", "hpcbench", "run", "--estimate", "--comm-suite", "all", timeout=120)
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("  ")]
    assert {"p2p", "collectives", "nbc", "rma"} <= set(names)
    proc = mpirun(2, "-m", "hpcbench", "run", "--estimate", timeout=120)
    names = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("  ")]
    assert {"p2p", "collectives"} <= set(names) and not {"nbc", "rma"} & set(names)
