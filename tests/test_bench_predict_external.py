"""The pure parts of benchmarks/bench_predict_external.py (SNAP and NAS LU
against the wavefront model): each code's input, the parsing of its output
(runs captured on this machine, tests/data/snap/ and tests/data/lu/), the
mapping of its input onto the model's and the prediction, each against a
hand-computed answer. Nothing runs SNAP or LU; no measured figure is
asserted."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from script_modules import load_benchmark

from hpcbench.predict import NetworkProfile, Placement, Region

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "tests", "data", "snap", "snap-32x32x16-2ranks.out")
LU_SAMPLE = os.path.join(ROOT, "tests", "data", "lu", "lu-32x32x32-2ranks.out")
US = 1e-6


bench = load_benchmark("bench_predict_external")
SnapCase = bench.SnapCase
#: The captured run: 32 x 32 x 16 on 2 x 1 ranks, chunk 2, 8 angles, 4 groups.
SAMPLE_CASE = SnapCase(32, 32, 16, 2, 1, 2, 8, 4)


def _sample() -> str:
    with open(SAMPLE) as f:
        return f.read()


def test_the_input_is_snaps_namelist_with_the_case():
    text = bench.snap_input(SnapCase(40, 24, 48, 1, 2, 4, 4, 2, iitm=3, oitm=1))
    lines = text.splitlines()
    assert lines[1] == "&invar" and lines[-1] == "/"
    values = dict(line.strip().split("=") for line in lines[2:-1])
    assert {k: values[k] for k in ("npey", "npez", "nx", "ny", "nz", "ichunk", "nang", "ng", "iitm", "oitm")} == {
        "npey": "1", "npez": "2", "nx": "40", "ny": "24", "nz": "48", "ichunk": "4", "nang": "4", "ng": "2",
        "iitm": "3", "oitm": "1"}
    # Steady state, one thread, the plain sweeper: the sweep count is then tot_iits / ng.
    assert (values["timedep"], values["nthreads"], values["multiswp"], values["swp_typ"]) == ("0", "1", "0", "0")


def test_the_captured_output_parses_to_its_timers():
    times = bench.parse_snap_output(_sample())
    assert times.solve == 1.0309 and times.sweeps == 0.96713 and times.inner == 0.98359
    assert times.grind_ns == 22.344 and times.group_inners == 44
    assert times.sweep_calls(4) == 11     # 2 outers of 5 inners and the closing one, 4 groups each
    # SNAP's own grind time: Solve over cells x angles x octants x group inner iterations.
    grind = 1.0309e9 / (32 * 32 * 16 * 8 * 8 * 44)
    assert grind == pytest.approx(times.grind_ns, rel=1e-4)


def test_the_echo_names_the_case_it_ran():
    text = _sample()
    assert bench.parse_snap_echo(text) == {"npey": 2, "npez": 1, "ichunk": 2, "nx": 32, "ny": 32, "nz": 16,
                                           "nang": 8, "ng": 4}
    bench.check_echo(text, SAMPLE_CASE)
    with pytest.raises(ValueError, match="SNAP's output ran"):
        bench.check_echo(text, SnapCase(32, 32, 16, 1, 2, 2, 8, 4))


def test_a_truncated_output_is_one_clear_error():
    text = _sample()
    with pytest.raises(ValueError, match="no 'Transport Sweeps' timer"):
        bench.parse_snap_output(text[:text.index("Transport Sweeps")])
    with pytest.raises(ValueError, match="not a SNAP output"):
        bench.parse_snap_echo("garbage")


def test_a_group_that_converged_early_leaves_the_sweep_count_unknown():
    times = bench.SnapTimes(solve=1.0, sweeps=0.9, inner=0.95, grind_ns=1.0, group_inners=43)
    with pytest.raises(ValueError, match="not a multiple of 4 groups"):
        times.sweep_calls(4)


def test_wg_and_the_time_outside_the_sweeps_from_a_serial_run():
    block = SnapCase(32, 16, 16, 1, 1, 2, 8, 4)
    times = bench.SnapTimes(solve=0.66, sweeps=0.55, inner=0.6, grind_ns=0.0, group_inners=44)
    # 11 sweeps of 8 octants x 4 groups x 8192 cells.
    assert bench.wg_per_cell(times, block) == pytest.approx(0.55 / (11 * 8 * 4 * 8192))
    assert bench.outside_sweeps(times, block) == pytest.approx(0.01)
    assert SAMPLE_CASE.block == block and SAMPLE_CASE.ranks == 2


def test_snaps_input_maps_onto_the_models():
    case = SnapCase(40, 24, 48, 2, 3, 4, 6, 5)
    p = bench.snap_params(case, 1e-7, 2e-3, (("same cache", 4096),))
    # Model x, y = SNAP y, z (n = npey columns, m = npez rows); model z = SNAP x, both directions.
    assert (p.nx, p.ny, p.nz, p.m, p.n, p.h_tile, p.angles) == (24, 48, 2 * 40, 3, 2, 4, 6)
    assert (p.groups, p.group_faces, p.tiles) == (5, "each", 5 * 2 * 40 // 4)
    assert (p.wg, p.t_nonwavefront, p.eager_limits) == (1e-7, 2e-3, (("same cache", 4096),))
    # SNAP's faces: psij(nang, ichunk, nz/npez) across y, psik(nang, ichunk, ny/npey) across z, doubles.
    assert p.message_ew == 8 * 6 * 4 * (48 // 3) and p.message_ns == 8 * 6 * 4 * (24 // 2)
    assert bench.face_bytes(case) == 8 * 6 * 4 * 16
    assert bench.face_bytes(SnapCase(8, 4, 4, 1, 1, 2, 2, 1)) == 0


def test_the_fills_follow_snaps_corner_order():
    # npey <= npez: corners (1,1), (2,1), (2,2), (1,2): y, z, y flips and the closing full fill.
    p = bench.snap_params(SnapCase(8, 4, 4, 2, 2, 2, 2, 1), 1e-7, 0.0)
    assert (p.n_sweeps, p.n_col, p.n_diag, p.n_full) == (4, 2, 1, 1)
    # npey > npez: (1,1), (1,2), (2,2), (2,1): z, y, z.
    p = bench.snap_params(SnapCase(8, 6, 4, 3, 2, 2, 2, 1), 1e-7, 0.0)
    assert (p.n_sweeps, p.n_col, p.n_diag, p.n_full) == (4, 1, 2, 1)


def test_the_prediction_on_one_rank_is_the_serial_work():
    one = Placement(node=np.zeros(1, int), package=np.zeros(1, int), cache=np.zeros(1, int), bound=np.ones(1, bool))
    profile = NetworkProfile({"same cache": [Region(0, 1 * US, 1e8)]})
    case = SnapCase(32, 16, 16, 1, 1, 8, 8, 4)
    # 8 octants x 4 groups x 8192 cells at W_g, no fill, plus the time outside.
    assert bench.predict_sweep(case, 1e-7, 5e-4, profile, one) == pytest.approx(8 * 4 * 8192 * 1e-7 + 5e-4)


def test_the_prediction_on_two_ranks_by_hand():
    two = Placement(node=np.zeros(2, int), package=np.zeros(2, int), cache=np.zeros(2, int), bound=np.ones(2, bool))
    profile = NetworkProfile({"same cache": [Region(0, 1 * US, 1e8)]})
    case = SnapCase(8, 4, 2, 2, 1, 2, 2, 1)      # model: 4 x 2 x 16 on 1 x 2, H_tile 2, 8 tiles of 2 x 2 cells
    # W = 1 us x 2 planes x 4 cells = 8 us; a face is 8 x 2 x 2 x 2 = 64 B: send 1.64 us, receive 0.64 us.
    # Stack: rank 0 (W + send) x 8 = 77.12 us; fill to the second column: W + send + receive = 10.28 us.
    # npey > npez: one column fill, two row fills (0 on one row), the full fill (= the column fill).
    expected = 4 * 77.12 * US + 5 * US + 10.28 * US + 10.28 * US
    assert bench.predict_sweep(case, 1 * US, 5 * US, profile, two) == pytest.approx(expected)


def test_a_case_snap_cannot_run_is_refused():
    with pytest.raises(ValueError, match="npey"):
        SnapCase(32, 30, 16, 4, 1, 2, 8, 4)
    with pytest.raises(ValueError, match="positive"):
        SnapCase(32, 32, 16, 2, 1, 2, 0, 4)


def test_a_face_above_the_eager_limit_holds_both_sides_by_hand():
    two = Placement(node=np.zeros(2, int), package=np.zeros(2, int), cache=np.zeros(2, int), bound=np.ones(2, bool))
    profile = NetworkProfile({"same cache": [Region(0, 1 * US, 1e8)]})
    case = SnapCase(8, 4, 2, 2, 1, 2, 2, 1)      # 64-byte faces, above a 32-byte limit
    # Coupled: send = receive = the whole message, 2.28 us; both stacks (8 + 2.28) x 8 = 82.24 us.
    expected = 4 * 82.24 * US + 5 * US + 2 * 10.28 * US
    got = bench.predict_sweep(case, 1 * US, 5 * US, profile, two, (("same cache", 32),))
    assert got == pytest.approx(expected)


def test_the_command_line_gets_the_same_mapping():
    case = SnapCase(40, 24, 48, 1, 2, 4, 4, 2)
    assert bench.octant_words(case) == "NE+,NW+,SW+,SE+"
    assert bench.octant_words(SnapCase(8, 6, 4, 3, 2, 2, 2, 1)) == "NE+,SE+,SW+,NW+"
    assert bench.cli_args(case, 1.5e-7, 2e-3, 4096) == [
        "--grid", "24x48x80", "--procs", "2x1", "--h-tile", "4", "--angles", "4", "--groups", "2",
        "--group-faces", "each", "--octants", "NE+,NW+,SW+,SE+", "--wg", "1.5e-07", "--t-nonwavefront", "0.002",
        "--eager-limit", "4096"]


def _script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "bench_predict_external.py"), *args],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args,says", [
    (["--snap", "/nonexistent/gsnap"], "--snap /nonexistent/gsnap: not an executable file"),
    (["--snap", sys.executable, "--runs", "0"], "--runs must be at least 1, got 0"),
    (["--snap", sys.executable, "--eager-limit", "-1"], "--eager-limit must be a whole number of bytes"),
    pytest.param(["--snap", "/bin/true"], "--snap /bin/true did not run SNAP's input to the end",
                 marks=pytest.mark.skipif(shutil.which("mpiexec") is None or not os.access("/bin/true", os.X_OK),
                                          reason="needs mpiexec and /bin/true")),
])
def test_bad_input_is_one_line_and_exit_2(args, says):
    proc = _script(*args)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bench_predict_external.py: ") and says in lines[0]


# -- NAS LU ------------------------------------------------------------------

LuCase = bench.LuCase


def test_lus_input_has_two_lines_before_every_value():
    lines = bench.lu_input(LuCase(48, 40, 24, 2, itmax=30)).splitlines()
    # read_input.f skips two lines before each of its six reads.
    assert [lines[k].split() for k in (2, 5, 8, 11, 14, 17)] == [
        ["1", "30"], ["30"], ["2.0e+00"], ["1.2"], ["1.0e-08"] * 5, ["48", "40", "24"]]
    assert all(lines[k].startswith("c") for k in range(len(lines)) if k not in (2, 5, 8, 11, 14, 17))


def test_the_captured_lu_output_parses_to_its_slowest_ranks_timers():
    with open(LU_SAMPLE) as f:
        times = bench.parse_lu_output(f.read())
    assert (times.size, times.iterations, times.processes) == ((32, 32, 32), 50, 2)
    # The maximum over the ranks (the second of minimum, maximum, average).
    assert {k: times.timers[k] for k in ("total", "blts", "buts", "lcomm", "ucomm")} == {
        "total": 0.7637, "blts": 0.1311, "buts": 0.1261, "lcomm": 0.3206, "ucomm": 0.1324}
    with pytest.raises(ValueError, match="timer.flag"):
        bench.parse_lu_output("Size: 32x 32x 32\n Iterations: 50\n Total number of processes: 2\n")
    with pytest.raises(ValueError, match="not a finished LU run"):
        bench.parse_lu_output("garbage")


def test_lus_serial_block_and_calibration():
    case = LuCase(32, 32, 32, 2)
    assert (case.xdim, case.block) == (2, LuCase(17, 32, 32, 1))     # interior 15 x 30 x 30, as a rank's
    times = bench.LuTimes({"total": 0.15, "blts": 0.06, "buts": 0.05, "lcomm": 0.001, "ucomm": 0.002},
                          (17, 32, 32), 50, 1)
    assert bench.lu_wg(times, case.block) == pytest.approx(0.11 / (50 * 2 * 15 * 30 * 30))
    assert bench.lu_outside(times) == pytest.approx((0.15 - 0.11 - 0.003) / 50)
    with pytest.raises(ValueError, match="1 or 2 ranks"):
        LuCase(32, 32, 32, 4)
    with pytest.raises(ValueError, match="at least 4 points"):
        LuCase(6, 32, 32, 2)


def test_lu_maps_onto_two_sweeps_from_opposite_corners():
    p = bench.lu_params(LuCase(48, 40, 24, 2), 9e-8, 7e-4)
    assert (p.nx, p.ny, p.nz, p.m, p.n, p.h_tile, p.angles) == (46, 38, 22, 1, 2, 1, 5)
    assert (p.n_sweeps, p.n_full, p.n_diag, p.n_col) == (2, 2, 0, 0)
    assert p.message_ew == 8 * 5 * 38 == bench.lu_face_bytes(LuCase(48, 40, 24, 2))
    assert bench.lu_cli_args(LuCase(48, 40, 24, 2), 9e-8, 7e-4, 4096) == [
        "--grid", "46x38x22", "--procs", "1x2", "--h-tile", "1", "--angles", "5", "--octants", "SW+,NE-",
        "--wg", "9e-08", "--t-nonwavefront", "0.0007", "--eager-limit", "4096"]


def test_the_lu_prediction_on_two_ranks_by_hand():
    two = Placement(node=np.zeros(2, int), package=np.zeros(2, int), cache=np.zeros(2, int), bound=np.ones(2, bool))
    profile = NetworkProfile({"same cache": [Region(0, 1 * US, 1e8)]})
    # Interior 6 x 4 x 4 over 1 x 2: 3 x 4 cells a plane, W = 12 us; a face 8 x 5 x 4 = 160 B:
    # send 2.6 us, receive 1.6 us. Stack (W + send) x 4 planes = 58.4 us; full fill W + 4.2 = 16.2 us, twice.
    got = bench.lu_predict(LuCase(8, 6, 6, 2), 1 * US, 5 * US, profile, two)
    assert got == pytest.approx(2 * 16.2 * US + 2 * 58.4 * US + 5 * US)
