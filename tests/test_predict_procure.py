"""The procurement answers of Hammond et al. (2009, section 6) as outputs
of `predict wavefront` and `study` (hpcbench/predict/_procure.py,
_questions.py): the process count where parallel efficiency falls below
a level (Figure 4) and the count on a second network that matches the
time on the first (Figure 5). Known answers: time curves given as
formulas, and the model with free messages, where efficiency is a ratio
of fill and stack steps worked out by hand."""
import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout

import pytest

from hpcbench.cli import main
from hpcbench.predict import NetworkProfile, PredictError, Region, StudyInputs, study
from hpcbench.predict._procure import efficiency_answer, match_answer, near_square_counts

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE3 = os.path.join(ROOT, "hpcbench", "examples", "francesca-profile.json")
#: Messages cost nothing (latency 0, bandwidth 1e300 bytes/s): one class, one core a node.
FREE = NetworkProfile({"other node": [Region(0, 0.0, 1e300)]}, "free")
#: A 720 x 720 x 10 grid, which 8, 9 and 16 divide: the fills and stacks of the text below.
FREE_STUDY = {"grid": "720x720x10", "procs": "8x8", "profile": FREE, "machine": "64x1x1", "wg": 1e-6}


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["predict", "wavefront", *argv])
    return status, out.getvalue(), err.getvalue()


def test_near_square_counts():
    assert near_square_counts(1, 20) == [1, 2, 4, 6, 9, 12, 16, 20]
    assert near_square_counts(129, 255) == [132, 144, 156, 169, 182, 196, 210, 225, 240]


def test_efficiency_of_a_known_curve():
    """T(P) = 1000/P + 1: E(P) = 1001 / (1000 + P), 50 % at P = 1002. The
    powers of two bracket it (512: 66.2 %, 1024: 49.5 %), the near-square
    counts between them put it after 992 = 31 x 32 (50.25 %)."""
    a = efficiency_answer(lambda p: 1000 / p + 1, 0.5, 1 << 20)
    assert (a.crossing, a.below) == (992, 1024)
    eff = dict(a.tried)
    assert eff[992] == pytest.approx(1001 / 1992) and eff[1024] == pytest.approx(1001 / 2024)
    assert "falls below 50 % after 992 processes" in a.line()
    never = efficiency_answer(lambda p: 1.0 / p, 0.5, 64)         # perfect scaling
    assert (never.crossing, never.below) == (64, None) and "stays at or above" in never.line()


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5, -0.2, True, float("nan")])
def test_a_level_outside_0_1_is_one_line(level):
    with pytest.raises(PredictError, match="--efficiency is a level between 0 and 1"):
        efficiency_answer(lambda p: 1.0, level, 16)


def test_match_of_a_known_curve():
    """The second network: T(P) = 2000/P + 1. 10 s needs P >= 222.2: 256
    is the first power of two, and of the near-square counts below it 225
    (9.89 s) is the first as fast; 210 takes 10.52 s."""
    m = match_answer([64], lambda p: 10.0, lambda p: 2000 / p + 1, "B", 1 << 20)
    (row,) = m.rows
    assert (row.count, row.matched, row.factor) == (64, 225, pytest.approx(225 / 64))
    assert "take 225 on B" in m.lines()[0]
    slow = match_answer([4], lambda p: 0.5, lambda p: 1.0, "B", 64)   # never as fast
    assert slow.rows[0].matched is None and "no count up to 64" in slow.lines()[0]


def test_efficiency_of_the_model_by_hand():
    """Free messages, an m x n array, Nz = 10 tiles: r5 = (2 (m - 1) + 4 (m
    + n - 2) + 8 x 10) W with W = W_g 720^2 / (m n), so E = 80 / (80 + 2 (m
    - 1) + 4 (m + n - 2)): 64 (8 x 8) 53.3 %, 72 (8 x 9) 80/154 = 51.9 %,
    81 (9 x 9) 50 %. At 51 % the answer is 72."""
    s = study(StudyInputs(**FREE_STUDY, efficiency=0.51))
    eff = dict(s.efficiency.tried)
    assert eff[64] == pytest.approx(80 / 150, rel=1e-9)
    assert eff[72] == pytest.approx(80 / 154, rel=1e-9)
    assert eff[81] == pytest.approx(0.5, rel=1e-9)
    assert (s.efficiency.crossing, s.efficiency.below) == (72, 81)
    assert s.to_dict()["efficiency"]["crossing"] == 72
    assert any("falls below 51 % after 72 processes" in line for line in s.lines())


def test_the_same_network_matches_itself():
    """On the same network every count is its own match (the grid divides
    each array, so fewer processes are always slower)."""
    s = study(StudyInputs(**FREE_STUDY, sweep="16,36", match_profile=FREE))
    assert [(r.count, r.matched) for r in s.match.rows] == [(16, 16), (36, 36), (64, 64)]
    assert [r["matched_procs"] for r in s.to_dict()["match"]["rows"]] == [16, 36, 64]


def test_a_slower_network_needs_more_processes():
    """Table 3 against the same network with 4x the latency and a quarter
    of the bandwidth everywhere: more processes for the same time, never
    fewer."""
    slow = NetworkProfile.from_table(TABLE3).scaled(latency=4.0, bandwidth=0.25)
    s = study(StudyInputs(grid="240", procs="8x8", profile=TABLE3, machine="16x2x2", wg=9.4e-8, sweep="256",
                          match_profile=slow))
    for row in s.match.rows:
        assert row.matched is not None and row.matched > row.count
        assert row.matched_seconds <= row.seconds


def test_another_message_size_range_is_one_line(tmp_path):
    """A second network measured up to 1024 bytes cannot price the 4320
    byte faces of 8 x 8 on 720^2 (8 x 6 angles x 90 cells)."""
    table = {"classes": {"other node": [{"from_bytes": 0, "latency_us": 2.0, "bandwidth_GBps": 1.0}]},
             "overheads": {"other node": {"sizes": [0, 1024], "send_us": [1.0, 2.0], "recv_us": [1.0, 2.0],
                                          "gap_us": [0.5, 1.0]}}}
    path = tmp_path / "short.json"
    path.write_text(json.dumps(table))
    with pytest.raises(PredictError, match="measured up to 1024 bytes, the faces to compare are up to 4320"):
        study(StudyInputs(**FREE_STUDY, match_profile=str(path)))
    status, out, err = cli("--grid", "720x720x10", "--procs", "8x8", "--profile", TABLE3, "--machine", "16x2x2",
                           "--wg", "1e-6", "--match-profile", str(path))
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and "measured up to 1024" in err


@pytest.mark.parametrize("extra, message", [
    (["--efficiency", "50"], "--efficiency is a level between 0 and 1"),
    (["--match-profile", TABLE3, "--match-results", TABLE3], "give the second network once"),
    (["--plot", "/tmp"], "--plot draws the simulation, the sweep, the efficiency or the match"),
])
def test_bad_procurement_input_is_one_line(extra, message):
    status, out, err = cli("--grid", "48x48x24", "--procs", "4x4", "--profile", TABLE3, "--machine", "8x2x2",
                           "--wg", "3e-7", *extra)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_the_cli_answers_and_draws(tmp_path):
    """--sweep past the machine, --efficiency and --match-profile together:
    the answers printed and written, and one figure each."""
    pytest.importorskip("matplotlib")
    plots, path = tmp_path / "plots", str(tmp_path / "p.json")
    status, out, err = cli("--grid", "240", "--procs", "16x16", "--profile", TABLE3, "--machine", "64x2x2",
                           "--wg", "9.4e-8", "--sweep", "64,1024", "--efficiency", "0.5",
                           "--match-profile", TABLE3, "-o", path, "--plot", str(plots))
    assert status == 0, err
    assert "machine grown to 256x2x2" in out and "parallel efficiency falls below 50 %" in out
    assert "the same time on" in out
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    assert {"sweep", "efficiency", "match"} <= set(data)
    assert sorted(p.name for p in plots.iterdir()) == ["wavefront-efficiency.png", "wavefront-match.png",
                                                        "wavefront-sweep.png"]


def test_a_second_results_file_brings_its_own_ratnc():
    """--match-results: the second network is priced with that file's own
    measured ratNC (its network-access record), as the first network is."""
    from types import SimpleNamespace

    import hpcbench.examples
    from hpcbench.predict import AccessContention, StudyInputs
    from hpcbench.predict._questions import second_profile
    path = hpcbench.examples.path("mapping-example.json")           # comm and network-access records
    inputs = StudyInputs(grid="16", procs="2x2", match_results=path)
    second = second_profile(SimpleNamespace(inputs=inputs))
    assert second.access is not None and second.access == AccessContention.from_results(path)
    without = hpcbench.examples.path("comm-example.json")           # comm only: no ratNC to apply
    assert second_profile(SimpleNamespace(inputs=StudyInputs(grid="16", procs="2x2",
                                                             match_results=without))).access is None
