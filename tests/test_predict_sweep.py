"""`predict wavefront --sweep` past the machine given (issue 23): a count
that needs more cores than --machine has runs on the same nodes grown in
number to the smallest that holds it (packages per node and cores per
package kept), and its row says so; counts that fit are unchanged."""
import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout

import pytest

from hpcbench.cli import main
from hpcbench.predict import Machine, NetworkProfile, WavefrontParams, allocate, wavefront
from hpcbench.predict._whatif import machine_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE3 = os.path.join(ROOT, "hpcbench", "examples", "francesca-profile.json")
#: docs/predict.md's example, which exited 2 ("1024 ranks do not fit the 256 cores").
ISSUE = ["wavefront", "--profile", TABLE3, "--grid", "240", "--procs", "16x16", "--machine", "64x2x2",
         "--wg", "3.3e-7", "--what-if", "latency=+50%", "--sweep", "64,256,1024"]


def _load(path) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["predict", *argv])
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("count, machine, want", [
    (256, Machine(64, 2, 2), Machine(64, 2, 2)),     # fits exactly: unchanged
    (1, Machine(64, 2, 2), Machine(64, 2, 2)),
    (257, Machine(64, 2, 2), Machine(65, 2, 2)),     # one core more: one node more (4 cores per node)
    (1024, Machine(64, 2, 2), Machine(256, 2, 2)),   # 1024 / 4
    (1000, Machine(64, 2, 2), Machine(250, 2, 2)),   # 1000 / 4
    (1001, Machine(64, 2, 2), Machine(251, 2, 2)),   # ceil(1001 / 4)
    (7, Machine(1, 1, 1), Machine(7, 1, 1)),
    (4096, Machine(240, 2, 2), Machine(1024, 2, 2)),  # Figure 4's 4096 cores on Francesca's nodes
    (13, Machine(2, 3, 2), Machine(3, 3, 2)),         # 6 cores per node: ceil(13 / 6)
])
def test_machine_for_grows_in_nodes_only(count, machine, want):
    grown = machine_for(count, machine)
    assert grown == want
    assert grown.cores >= count and (grown.nodes - 1) * grown.cores_per_node < count or grown is machine


def test_the_issues_example_runs_and_says_which_rows_grew(tmp_path):
    path = str(tmp_path / "s.json")
    status, out, err = cli(*ISSUE, "-o", path)
    assert status == 0, err
    rows = _load(path)["sweep"]
    assert [(r["procs"], r["array"], r["machine"], r["machine_grown"]) for r in rows] == [
        (64, "8x8", "64x2x2", False), (256, "16x16", "64x2x2", False), (1024, "32x32", "256x2x2", True)]
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if "procs  array" in line)
    row_of = {int(line.split()[0]): line for line in lines[header + 1:]}
    assert "machine grown to 256x2x2" in row_of[1024]
    assert "grown" not in row_of[64] and "grown" not in row_of[256]


def test_a_grown_row_is_the_model_on_the_grown_machine(tmp_path):
    path = str(tmp_path / "s.json")
    assert cli(*ISSUE, "-o", path)[0] == 0
    rows = {r["procs"]: r for r in _load(path)["sweep"]}
    table3 = NetworkProfile.from_table(TABLE3)
    projected = table3.scaled(latency=1.5)
    # 1024 ranks: a 32 x 32 array, the 240 grid split into blocks of 8 and 7 cells, on 256 nodes of 2 x 2.
    params = WavefrontParams(240, 240, 240, m=32, n=32, wg=3.3e-7)
    placement = allocate(1024, Machine(256, 2, 2), "node-fill")
    t = wavefront(params, projected, placement).time
    assert rows[1024]["time_s"] == pytest.approx(t, rel=1e-12)
    # The change compares with the machine as measured, grown alike.
    assert rows[1024]["change"] == pytest.approx(t / wavefront(params, table3, placement).time - 1, rel=1e-9)
    # Counts that fit keep the machine given: 256 ranks are the prediction itself.
    data = _load(path)
    assert rows[256]["time_s"] == pytest.approx(data["model"]["time_s"], rel=1e-12)
    assert rows[1024]["efficiency"] == pytest.approx(rows[64]["time_s"] * 64 / (t * 1024), rel=1e-12)


def test_grown_nodes_talk_off_node(tmp_path):
    # One core per node: 2 ranks need 2 nodes, so their pair is "other node",
    # the only class of this profile; on one node of 2 cores it would need
    # "same cache" and fail with one line.
    table = tmp_path / "off-node.json"
    table.write_text(json.dumps({"classes": {"off-node": [{"from_bytes": 0, "latency_us": 5.0,
                                                           "bandwidth_GBps": 1.0}]}}))
    path = str(tmp_path / "s.json")
    status, out, err = cli("wavefront", "--profile", str(table), "--grid", "8", "--procs", "1x1", "--machine",
                           "1x1x1", "--wg", "1e-7", "--sweep", "1,2,3", "-o", path)
    assert status == 0, err
    rows = _load(path)["sweep"]
    assert [(r["machine"], r["machine_grown"]) for r in rows] == [("1x1x1", False), ("2x1x1", True),
                                                                 ("3x1x1", True)]
    status, _, err = cli("wavefront", "--profile", str(table), "--grid", "8", "--procs", "1x2", "--machine", "1x1x2",
                         "--wg", "1e-7")
    assert status == 2 and "same cache" in err


def test_the_prediction_itself_still_needs_a_machine_that_holds_it():
    status, _, err = cli("wavefront", "--profile", TABLE3, "--grid", "256", "--procs", "32x32", "--machine", "64x2x2",
                         "--wg", "3.3e-7")
    assert status == 2 and "1024 ranks do not fit the 256 cores" in err and len(err.strip().splitlines()) == 1
