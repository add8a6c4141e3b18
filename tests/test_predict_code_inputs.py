"""The inputs of a sweep code hpcbench did not write (docs/predict.md,
"Predicting a code you did not write"): energy groups, an order of octants
with fills across the columns, uneven blocks, sends above the eager limit,
the time outside the sweeps and the run's iterations; worked out by hand
from the equations, then the simulator against the model on each.

The profile is tests/test_predict_model.py's ONE: latency 1 us, 32 MB/s,
so a 32-byte face costs its sender 2 us and its receiver 1 us (Total_comm
3 us). 4 x 4 cells a process, one angle, W_g 1 us: W = 16 us, 5 tiles.
"""
import io
import os
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

from hpcbench.cli import main
from hpcbench.predict import NetworkProfile, Placement, PredictError, Region, WavefrontParams, simulate, wavefront
from hpcbench.predict._code_inputs import resolved_inputs
from hpcbench.predict._cores import crowded_hosts, crowding_problem
from hpcbench.predict._eager import library_limits
from hpcbench.predict._inputs import StudyInputs
from hpcbench.predict._kernel import run_wavefront
from hpcbench.predict._octants import CHIMAERA, fills, parse_octants
from hpcbench.predict._wavefront_program import wavefront_program

US = 1e-6
ONE = NetworkProfile({"other node": [Region(0, 1 * US, 32e6)]}, "one class")
EVERY_FACE_COUPLED = (("other node", 0),)


def params(m, n, **kw):
    base = dict(nx=4 * n, ny=4 * m, nz=5, m=m, n=n, wg=1 * US, angles=1)
    base.update(kw)
    return WavefrontParams(**base)


def p_counts(order):
    p = params(1, 1, octants=order)
    return p.n_sweeps, p.n_full, p.n_diag, p.n_col


def model_and_simulation(p):
    placement = Placement.uniform(p.nranks, "other node")
    return wavefront(p, ONE, placement), simulate(wavefront_program(p), ONE, placement)


# -- the order of the octants ---------------------------------------------------

def test_chimaeras_order_gives_table_2s_counts():
    counts = fills(CHIMAERA)
    assert (counts.sweeps, counts.full, counts.diag, counts.col) == (8, 4, 2, 0)
    assert parse_octants("chimaera") == CHIMAERA
    assert parse_octants("SW+,NE+,SE+,SE-,NW+,NW-,SW-,NE-") == CHIMAERA


def test_fills_follow_from_the_order():
    """SW -> SE crosses the columns, SE -> NE the rows, NE -> NW the columns;
    the last sweep's full fill ends the iteration. A corner twice: no fill."""
    counts = fills(parse_octants("SW,SE,NE,NW"))
    assert (counts.sweeps, counts.full, counts.diag, counts.col) == (4, 1, 1, 2)
    counts = fills(parse_octants("SW+,SW-"))
    assert (counts.sweeps, counts.full, counts.diag, counts.col) == (2, 1, 0, 0)


def test_an_order_with_column_fills_by_hand():
    """2 x 2, order SW, SE, NE, NW: n_col 2, n_diag 1, n_full 1.
    Start P_{2,1} = W + Total_E = 19 (T_colfill); Start P_{1,2} = W +
    Send_E + Total_S = 16 + 2 + 3 = 21 (T_diagfill); Start P_{2,2} =
    max(21 + 16 + 3 + 1, 19 + 16 + 0 + 3) = 41 (T_fullfill). Stacks: the
    corner (16 + 2 + 2) x 5 = 100 is the largest. Time = 21 + 2 x 19 + 41 +
    4 x 100 = 500 us."""
    p = params(2, 2, octants=parse_octants("SW,SE,NE,NW"))
    r, s = model_and_simulation(p)
    assert (r.t_colfill, r.t_diagfill, r.t_fullfill, r.t_stack) == pytest.approx((19 * US, 21 * US, 41 * US,
                                                                                  100 * US))
    assert r.time == pytest.approx(500 * US)
    assert s.total == pytest.approx(r.time, rel=0.03)


def test_chimaeras_default_is_todays_model():
    """The order given as Chimaera's is the model without one (Table 2)."""
    plain = wavefront(params(3, 4), ONE, Placement.uniform(12, "other node"))
    ordered = wavefront(params(3, 4, octants=CHIMAERA), ONE, Placement.uniform(12, "other node"))
    assert ordered.time == pytest.approx(plain.time, rel=1e-12) and ordered.t_colfill == plain.t_colfill
    assert (ordered.time, p_counts(CHIMAERA)) == (plain.time, (8, 4, 2, 0))


@pytest.mark.parametrize("order, words", [("SW|NE,SE", "concurrent octants"), ("SX", "unsupported sweep"),
                                          ("", "comma-separated"), ("SW,,NE", "comma-separated"),
                                          (",".join(["SW"] * 65), "at most 64")])
def test_an_unsupported_pattern_is_one_line(order, words):
    with pytest.raises(PredictError, match=words) as e:
        parse_octants(order)
    assert "\n" not in str(e.value)


# -- energy groups -----------------------------------------------------------------

def test_groups_passing_one_after_the_other_by_hand():
    """1 x 2, 3 groups each its own pass: 15 tiles a stack. Start P_{2,1} =
    16 + 3 = 19; stacks (16 + 2) x 15 = 270 and (1 + 16) x 15 = 255. Time =
    4 x 19 + 8 x 270 = 2236 us."""
    p = params(1, 2, groups=3)
    r, s = model_and_simulation(p)
    assert p.tiles == 15 and r.time == pytest.approx(2236 * US)
    assert s.total == pytest.approx(r.time, rel=0.02)


def test_groups_in_one_face_by_hand():
    """1 x 2, 3 groups in one face: W = 48 us, 96-byte faces (sender 1 + 3
    = 4 us, receiver 3, Total 7). Start P_{2,1} = 55; stacks (48 + 4) x 5 =
    260 and (3 + 48) x 5 = 255. Time = 4 x 55 + 8 x 260 = 2300 us."""
    p = params(1, 2, groups=3, group_faces="all")
    r, s = model_and_simulation(p)
    assert p.message_ew == 96 and r.time == pytest.approx(2300 * US)
    assert s.total == pytest.approx(r.time, rel=0.02)


# -- uneven blocks -----------------------------------------------------------------

def test_blocks_are_split_as_mpi_splits_them():
    p = WavefrontParams(240, 240, 240, m=64, n=64)
    assert p.blocks_x.tolist() == [4] * 48 + [3] * 16 and p.cells_x == 4 and not p.even
    assert p.split_words() == "x 240 = 48 x 4 + 16 x 3 cells; y 240 = 48 x 4 + 16 x 3 cells"
    with pytest.raises(PredictError, match="at least one cell"):
        WavefrontParams(10, 64, 4, m=1, n=64)


def test_an_uneven_split_by_hand():
    """1 x 2 with Nx = 9: columns of 5 and 4 cells, W = 20 and 16 us; faces
    of 4 cells (32 B). From the west: starts [0, 23], stacks (20 + 2) x 5 =
    110 and (1 + 16) x 5 = 85: T_stack 110. From the east: starts [0, 19],
    stacks (16 + 2) x 5 = 90 and (1 + 20) x 5 = 105: T_stack 105. Chimaera's
    order: 4 sweeps of each, fills 23 + 0 + 19 + 0 + 23 and the last 19:
    time = 440 + 420 + 84 = 944 us (every corner alike, as even blocks are
    taken, would say 4 x 23 + 8 x 110 = 972)."""
    p = params(1, 2, nx=9)
    r, s = model_and_simulation(p)
    assert r.time == pytest.approx(944 * US) and r.w == pytest.approx(20 * US)
    assert s.total == pytest.approx(r.time, rel=0.02)


def test_an_uneven_array_agrees_with_the_simulation():
    r, s = model_and_simulation(params(3, 4, nx=17, ny=13, nz=32))
    assert s.total == pytest.approx(r.time, rel=0.03)


# -- sends above the eager limit -------------------------------------------------

def test_coupled_faces_by_hand():
    """1 x 2, every face coupled: Send_E = Receive_W = Total = 3 us. Start
    P_{2,1} = 19 as before; stacks (16 + 3) x 5 = 95 both. Time = 4 x 19 +
    8 x 95 = 836 us (eager: 4 x 19 + 8 x 90 = 796)."""
    eager, _ = model_and_simulation(params(1, 2))
    r, s = model_and_simulation(params(1, 2, eager_limits=EVERY_FACE_COUPLED))
    assert eager.time == pytest.approx(796 * US) and eager.coupled == 0
    assert r.time == pytest.approx(836 * US) and r.coupled == 1
    assert s.total == pytest.approx(r.time, rel=0.02)


def test_a_coupled_y_face_waits_for_its_receiver_by_hand():
    """2 x 2, every face coupled. P_{2,1} (no east neighbour) sends its y
    face right after computing, but P_{2,2} takes its x face first (3 us):
    a wait of 3 a tile. Its stack: (3 + 16 + 3 + 3) x 5 = 125, the largest."""
    r, s = model_and_simulation(params(2, 2, eager_limits=EVERY_FACE_COUPLED))
    assert r.t_stack == pytest.approx(125 * US) and r.stack_rank == 1
    assert s.total == pytest.approx(r.time, rel=0.05)


def test_faces_below_the_limit_stay_eager():
    plain = wavefront(params(2, 3), ONE, Placement.uniform(6, "other node"))
    limited = wavefront(params(2, 3, eager_limits=(("other node", 32),)), ONE, Placement.uniform(6, "other node"))
    assert limited.time == plain.time and limited.coupled == 0


def test_the_libraries_defaults():
    limits = dict(library_limits("Open MPI v4.1.4, package: Debian OpenMPI"))
    assert limits["same cache"] == 256 and limits["other node"] == 65480
    assert library_limits("MPICH Version: 4.1") == () and library_limits(None) == ()


def test_a_results_file_brings_its_librarys_limits_and_the_flag_overrides_them():
    """comm-example.json ran on Open MPI 4.1.4; a profile table names no library."""
    from hpcbench.predict._code_inputs import code_params
    base = WavefrontParams(8, 8, 8, m=1, n=2)
    comm = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hpcbench", "examples",
                        "comm-example.json")
    assert dict(code_params(StudyInputs(grid="8", procs="1x2", results=comm), base).eager_limits)["other node"] == 65480
    assert code_params(StudyInputs(grid="8", procs="1x2", profile="example:francesca-profile.json"),
                       base).eager_limits == ()
    given = code_params(StudyInputs(grid="8", procs="1x2", results=comm, eager_limit=100), base)
    assert set(dict(given.eager_limits).values()) == {100}


# -- time outside the sweeps, iterations --------------------------------------------

def test_time_outside_the_sweeps_and_the_runs_iterations():
    r, s = model_and_simulation(params(1, 2, t_nonwavefront=7 * US, inners=5, outers=2))
    assert r.time == pytest.approx(803 * US) and r.run_time == pytest.approx(8030 * US)
    assert s.total == pytest.approx(r.time, rel=0.02)


def test_grind_is_wg_over_the_angles():
    inputs = resolved_inputs(StudyInputs(grid="8", procs="1x2", angles=12, grind=2e-9))
    assert inputs.wg == pytest.approx(24e-9) and inputs.grind is None
    with pytest.raises(PredictError, match="give W_g once"):
        resolved_inputs(StudyInputs(grid="8", procs="1x2", wg=1e-7, grind=2e-9))


# -- more ranks than cores, the kernel, the command line ------------------------------

class FakeComm:
    def __init__(self, rows):
        self.rows = rows

    def allgather(self, _mine):
        return self.rows


def test_more_ranks_than_cores_is_refused_with_the_reason():
    crowded = crowded_hosts(FakeComm([("a", (0,)), ("a", (1,)), ("a", (0,)), ("b", (0,))]))
    assert crowded == {"a": (3, 2)}
    line = crowding_problem(crowded)
    assert "3 ranks share the 2 processing units of a" in line and "time-sharing" in line
    assert crowding_problem(crowded_hosts(FakeComm([("a", (0,)), ("a", (1,))]))) is None


def test_the_kernel_refuses_a_code_it_does_not_run():
    from hpcbench import OptionError
    with pytest.raises(OptionError, match="not 2 energy groups"):
        run_wavefront(params(1, 2, groups=2))
    status, out, err = cli("--grid", "16", "--procs", "1x2", "--octants", "SW,NE", "--measure")
    assert status == 2 and "--measure runs the real kernel" in err and "the octants SW+,NE+" in err


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["predict", "wavefront", "--profile", "example:francesca-profile.json", *argv])
    return status, out.getvalue(), err.getvalue()


def test_the_command_line_takes_every_input_and_says_the_split():
    status, out, err = cli("--machine", "1024x2x2", "--grid", "240", "--procs", "64x64", "--wg", "3.3e-7")
    assert status == 0, err
    assert "blocks: x 240 = 48 x 4 + 16 x 3 cells" in out
    status, out, err = cli("--machine", "1x1x2", "--grid", "32x32x16", "--procs", "1x2", "--h-tile", "4",
                           "--angles", "12", "--groups", "4", "--octants", "SW+,SW-,SE+,SE-,NW+,NW-,NE+,NE-",
                           "--inners", "5", "--outers", "2", "--grind", "2.5e-9", "--t-nonwavefront", "1e-3",
                           "--eager-limit", "8192")
    assert status == 0, err
    for words in ("energy groups: 4", "2 column fills", "T_colfill", "predicted run:", "coupled to their receive"):
        assert words in out


@pytest.mark.parametrize("flags, words", [(("--octants", "SW|NE"), "concurrent octants"),
                                          (("--groups", "0"), "--groups"), (("--inners", "-1"), "--inners"),
                                          (("--t-nonwavefront", "nan"), "--t-nonwavefront"),
                                          (("--eager-limit", "-5"), "--eager-limit"),
                                          (("--grind", "1e-9", "--wg", "1e-7"), "W_g once")])
def test_bad_code_inputs_are_one_line_exit_2(flags, words):
    status, out, err = cli("--machine", "1x1x2", "--grid", "16", "--procs", "1x2", *flags)
    assert status == 2 and words in err and err.count("\n") == 1 and out == ""


def test_the_model_and_simulation_see_the_same_faces():
    """Faces of each row's own size: Ny = 11 over 3 rows is 4, 4, 3 cells,
    so row 1 sends 32-byte east-west faces and row 3 24-byte ones."""
    p = params(3, 2, ny=11)
    program = wavefront_program(p)
    rank0 = program.events_of(0)
    assert ("send", 1, 8.0 * 4) in rank0 and p.blocks_y.tolist() == [4, 4, 3]
    rank4 = program.events_of(4)
    assert ("send", 5, 8.0 * 3) in rank4
    assert np.isfinite(wavefront(p, ONE, Placement.uniform(6, "other node")).time)
