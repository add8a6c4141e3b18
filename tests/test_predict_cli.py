"""`python -m hpcbench predict wavefront`: the prediction printed and
written, the simulation and the sweep beside it, and every bad input as one
line with exit status 2 (in-process, main(argv)); under mpiexec, --measure
runs the real kernel and a bad input stops every rank with one line."""
import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from hpcbench.cli import main
from hpcbench.predict import Machine, NetworkProfile, WavefrontParams, allocate, wavefront

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLES = os.path.join(ROOT, "hpcbench", "examples")
TABLE3 = os.path.join(EXAMPLES, "francesca-profile.json")
COMM = os.path.join(EXAMPLES, "comm-example.json")
CACHE = os.path.join(EXAMPLES, "cache-example.json")
BASE = ["--profile", TABLE3, "--grid", "48x48x24", "--procs", "4x4", "--machine", "8x2x2", "--wg", "3e-7"]


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["predict", *argv])
    return status, out.getvalue(), err.getvalue()


def test_prints_the_models_terms_and_writes_them(tmp_path):
    path = str(tmp_path / "p.json")
    status, out, err = cli("wavefront", *BASE, "-o", path)
    assert status == 0, err
    # The same prediction from the API, placed as the CLI says (node fill on 8 nodes of 2 x 2).
    params = WavefrontParams(48, 48, 24, m=4, n=4, wg=3e-7)
    want = wavefront(params, NetworkProfile.from_table(TABLE3), allocate(16, Machine(8, 2, 2), "node-fill"))
    data = json.loads(Path(path).read_text())
    assert data["model"]["time_s"] == pytest.approx(want.time, rel=1e-12)
    assert f"predicted time per iteration: {want.time * 1e3:.3f} ms" in out
    assert "node-fill allocation on 8x2x2" in out
    assert data["params"]["message_ew_bytes"] == 8 * 6 * 12 and data["params"]["wg_how"] == "given (--wg)"


def test_simulation_agrees_with_the_model_and_draws_heat_maps(tmp_path):
    path, plots = str(tmp_path / "p.json"), str(tmp_path / "plots")
    status, out, err = cli("wavefront", *BASE, "--simulate", "-o", path, "--plot", plots)
    assert status == 0, err
    data = json.loads(Path(path).read_text())
    model, sim = data["model"]["time_s"], data["simulation"]["total_s"]
    assert abs(sim / model - 1) < 0.05
    per_rank = data["simulation"]["per_rank_s"]
    assert len(per_rank["idle"]) == 16 and min(per_rank["compute"]) > 0
    assert sorted(os.listdir(plots)) == ["wavefront-communication.png", "wavefront-idle.png"]
    assert all(os.path.getsize(os.path.join(plots, f)) > 1000 for f in os.listdir(plots))


def test_what_if_latency_up_is_never_faster_and_zero_changes_nothing(tmp_path):
    times = {}
    for change in ("latency=+0%", "latency=+50%", "core-speed=x2"):
        path = str(tmp_path / f"{change}.json")
        assert cli("wavefront", *BASE, "--what-if", change, "-o", path)[0] == 0
        times[change] = json.loads(Path(path).read_text())["model"]
    base_path = str(tmp_path / "base.json")
    cli("wavefront", *BASE, "-o", base_path)
    base = json.loads(Path(base_path).read_text())["model"]
    assert times["latency=+0%"]["time_s"] == base["time_s"]
    assert times["latency=+50%"]["time_s"] > base["time_s"]
    assert times["core-speed=x2"]["compute_s"] == pytest.approx(base["compute_s"] / 2, rel=1e-12)


def test_sweep_gives_efficiency_against_the_first_count(tmp_path):
    path = str(tmp_path / "s.json")
    status, out, _ = cli("wavefront", *BASE, "--sweep", "1,4,16", "-o", path)
    assert status == 0
    rows = json.loads(Path(path).read_text())["sweep"]
    assert [r["procs"] for r in rows] == [1, 4, 16] and [r["array"] for r in rows] == ["1x1", "2x2", "4x4"]
    assert rows[0]["efficiency"] == 1.0 and rows[0]["change"] == 0.0
    # Efficiency is T(1) / (P T(P)), by definition.
    assert rows[2]["efficiency"] == pytest.approx(rows[0]["time_s"] / (16 * rows[2]["time_s"]))
    assert all(0 < r["efficiency"] <= 1.0 + 1e-12 for r in rows)


def test_sweep_changes_are_against_the_machine_as_measured(tmp_path):
    path = str(tmp_path / "w.json")
    assert cli("wavefront", *BASE, "--sweep", "1,4,16", "--what-if", "core-speed=x2", "-o", path)[0] == 0
    rows = json.loads(Path(path).read_text())["sweep"]
    # One process sends nothing: twice the speed is half the time, exactly.
    assert rows[0]["change"] == pytest.approx(-0.5, abs=1e-12)
    # With messages, the network's share does not shrink: less than half off.
    assert all(-0.5 < r["change"] < 0 for r in rows[1:])
    assert cli("wavefront", *BASE, "--sweep", "1,4,16", "--what-if", "latency=+50%", "-o", path, "--simulate")[0] == 0
    rows = json.loads(Path(path).read_text())["sweep"]
    assert rows[0]["change"] == 0.0 and all(r["change"] > 0 for r in rows[1:])


def test_profile_from_a_comm_results_file():
    # The shipped comm example ran on the emulated cluster: every rank on its
    # own node, so "other node" is what a round-robin allocation needs.
    status, out, err = cli("wavefront", "--results", COMM, "--grid", "32", "--procs", "2x2", "--machine", "4x1x1",
                           "--wg", "5e-8")
    assert status == 0, err
    assert "neighbour pairs: other node 4" in out


@pytest.mark.parametrize("argv, message", [
    (["--grid", "48x48x24", "--procs", "64x4"], "Ny = 48 cells cannot be cut over m = 64 rows"),
    (["--grid", "0x48x24", "--procs", "4x4"], "three positive whole numbers"),
    (["--grid", "48x48x24", "--procs", "4x4", "--h-tile", "5"], "H_tile = 5 does not divide Nz = 24"),
    (["--grid", "48x48x24", "--procs", "4x4", "--what-if", "speed=+5%"], "unknown what-if key 'speed'"),
    (["--grid", "48x48x24", "--procs", "4x4", "--what-if", "bandwidth=-100%"], "bandwidth <= 0"),
    (["--grid", "48x48x24", "--procs", "4x4", "--alloc", "random"], "unknown allocation strategy 'random'"),
    (["--grid", "48x48x24", "--procs", "8x8"], "64 ranks do not fit the 32 cores"),
    (["--grid", "48x48x24", "--procs", "4x4", "--wg", "-1"], "--wg must be a positive"),
    (["--grid", "48x48x24", "--procs", "4x4", "--plot", "/tmp"], "--plot draws the simulation"),
    (["--grid", "48x48x24", "--procs", "4x4", "--measure"], "--measure runs the kernel on this job's ranks"),
    (["--grid", "48x48x24", "--procs", "4x4", "-o", "/no/such/dir/p.json"], "does not exist"),
])
def test_bad_input_is_one_line(argv, message):
    status, out, err = cli("wavefront", "--profile", TABLE3, "--machine", "8x2x2", "--wg", "3e-7", *argv)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_a_profile_without_the_class_the_placement_needs(tmp_path):
    table = tmp_path / "t.json"
    table.write_text(json.dumps({"classes": {"other node": [{"latency_us": 3, "bandwidth_GBps": 0.5}]}}))
    status, _, err = cli("wavefront", "--profile", str(table), "--machine", "2x1x2", "--grid", "8", "--procs",
                         "2x2", "--wg", "1e-7")
    assert status == 2 and "has no 'same cache' class" in err and len(err.strip().splitlines()) == 1


def test_results_without_comm_records_and_no_network_at_all():
    status, _, err = cli("wavefront", "--results", CACHE, "--grid", "8", "--procs", "1x2", "--machine", "1x2",
                         "--wg", "1e-7")
    assert status == 2 and "has no comm layers" in err
    status, _, err = cli("wavefront", "--grid", "8", "--procs", "1x2", "--machine", "1x2", "--wg", "1e-7")
    assert status == 2 and "give --results" in err
    status, _, err = cli()
    assert status == 2 and "name the code to predict" in err


def _mpiexec(n, *argv, timeout=300):
    env = dict(os.environ, PYTHONPATH=ROOT, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return subprocess.run(["mpiexec", "-n", str(n), sys.executable, "-m", "hpcbench", "predict", "wavefront",
                           *argv], capture_output=True, text=True, env=env, timeout=timeout)


@pytest.mark.mpi
def test_measure_runs_the_real_kernel_beside_the_prediction(tmp_path):
    path = str(tmp_path / "m.json")
    proc = _mpiexec(2, "--profile", TABLE3, "--grid", "16x16x8", "--procs", "1x2", "--measure", "--simulate",
                    "--iterations", "2", "-o", path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(Path(path).read_text())
    measured = data["measured"]
    assert measured["verified"] and len(measured["samples_s"]) == 2 and measured["median_s"] > 0
    assert measured["model_error"] == pytest.approx((data["model"]["time_s"] - measured["median_s"])
                                                    / measured["median_s"])
    assert "every rank at once just before and after" in data["params"]["wg_how"]
    assert proc.stdout.count("measured (the real kernel") == 1          # rank 0 alone prints


@pytest.mark.mpi
@pytest.mark.slow       # 4 s here
def test_bad_input_under_mpiexec_is_one_line_on_every_rank():
    proc = _mpiexec(2, "--profile", TABLE3, "--grid", "16x16x8", "--procs", "1x4", "--measure", timeout=120)
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.startswith("hpcbench")]
    assert lines == ["hpcbench predict: --measure runs the kernel on this job's ranks: the 1x4 array needs "
                     "mpiexec -n 4, this job has 2"]
