"""The history's rule for "this figure moved" (hpcbench.history._moves), on
series with known answers: steps, one-run outliers, the latest run, noise."""
import numpy as np
import pytest

from hpcbench.history import find_moves
from hpcbench.history._sparkline import ASCII, sparkline


def _runs(moves, kind=None):
    return [m.run for m in moves if kind is None or m.kind == kind]


def test_a_steady_series_never_moves():
    assert find_moves([100.0] * 12) == []


def test_a_step_is_one_move_at_its_first_run():
    values = [100.0] * 5 + [70.0] * 5
    moves = find_moves(values)
    assert [(m.run, m.kind, m.side) for m in moves] == [(5, "move", "lower")]
    d = moves[0].deviation
    assert d.value == 70.0 and d.median == 100.0 and d.spread == 0.0 and moves[0].level == 5
    assert moves[0].direction("higher") == "worse" and moves[0].direction("lower") == "better"
    assert moves[0].direction(None) == "lower"


def test_a_step_up_then_back_down_is_two_moves():
    values = [10.0] * 4 + [20.0] * 4 + [10.0] * 4
    assert [(m.run, m.kind, m.side) for m in find_moves(values)] == [(4, "move", "higher"), (8, "move", "lower")]


def test_one_bad_run_is_an_outlier_and_does_not_shift_the_level():
    values = [100.0] * 6 + [50.0] + [100.0] * 5
    moves = find_moves(values)
    assert [(m.run, m.kind) for m in moves] == [(6, "one run")]


def test_the_latest_run_out_of_line_is_said_unconfirmed():
    values = [100.0] * 6 + [60.0]
    assert [(m.run, m.kind) for m in find_moves(values)] == [(6, "latest")]


def test_a_change_below_the_floor_is_no_move():
    # 10 % is below the rule's 15 % floor, however steady the runs before were.
    assert find_moves([100.0] * 5 + [90.0] * 5) == []


def test_the_first_runs_and_the_first_after_a_move_are_not_judged():
    # Two runs are no population: run 2 is not flagged, and neither is the
    # second run after the move (the new level has one run).
    assert find_moves([100.0, 50.0, 100.0, 100.0]) == []
    values = [100.0] * 4 + [50.0, 100.0, 100.0, 100.0]
    assert [(m.run, m.kind) for m in find_moves(values)] == [(4, "one run")]


def test_missing_values_are_skipped_not_judged():
    values = [100.0, None, 100.0, 100.0, None, 60.0, 60.0, None, 60.0]
    assert [(m.run, m.kind) for m in find_moves(values)] == [(5, "move")]


@pytest.mark.parametrize("seed", range(5))
def test_noisy_series_with_a_step_moves_once_where_the_step_is(seed):
    rng = np.random.default_rng(seed)
    before = 50e9 * (1 + 0.01 * rng.standard_normal(10))     # 1 % noise
    after = 35e9 * (1 + 0.01 * rng.standard_normal(10))      # 30 % lower
    moves = find_moves([float(v) for v in np.concatenate([before, after])])
    assert [(m.run, m.kind) for m in moves] == [(10, "move")]


@pytest.mark.parametrize("seed", range(5))
def test_noisy_series_without_a_step_never_moves(seed):
    rng = np.random.default_rng(100 + seed)
    values = 50e9 * (1 + 0.02 * rng.standard_normal(30))
    assert find_moves([float(v) for v in values]) == []


def test_sparkline_heights_from_zero_and_blanks_for_missing_runs():
    line = sparkline([10.0, 10.0, 7.0, None], ASCII)
    assert line[0] == line[1] == "#" and line[2] == ASCII[round(7 * 0.7)] and line[3] == " "
    assert sparkline([-1.0, 1.0], ASCII) == "_#"
    assert sparkline([5.0] * 100, ASCII, width=60).startswith("<") and len(sparkline([5.0] * 100, ASCII)) == 61
