"""CoMet's matrix layer without MPI: the C setup and verification against
an independent NumPy model on meshes of every shape, the verification
catching every single wrong element, the C rules, the mesh and dimension
rules, the options, the benchmark's checks and the growth fit on synthetic
times with known exponents. The kernels themselves run under mpiexec in
test_matrix_mpi.py."""
import argparse
import math

import numpy as np
import pytest
from matrix_oracle import local_block

from hpcbench import _core
from hpcbench._errors import OptionError
from hpcbench._protocol import Job
from hpcbench.comm import Mesh
from hpcbench.comm.matrix import BENCHMARK, KERNELS, THESIS_EXPONENT, default_dims, fit_growth, matrix_mesh, mesh_shapes
from hpcbench.comm.matrix._layout import broadcast_index, check_dimension, ranks_of
from hpcbench.comm.matrix._options import MatrixOptions, dims_arg, kernels_arg, mesh_arg
from hpcbench.comm.matrix._summary import time_text
from hpcbench.topology import Topology

MESHES = [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (4, 4)]


def core_args(kernel, n, mesh, index=0):
    op, direction = KERNELS[kernel]
    ranks, transposed = ranks_of(mesh)
    return dict(op=op, n=n, rows=mesh.rows, cols=mesh.cols, mesh=ranks, transposed=transposed, direction=direction,
                index=index)


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("shape", MESHES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_state_of_every_rank_matches_the_numpy_model(shape, kernel):
    mesh = Mesh(*shape)
    n = 2 * math.lcm(*shape)
    indexes = [broadcast_index(n, mesh, kernel), 1] if kernel.endswith("broadcast") else [0]
    for index in indexes:
        args = core_args(kernel, n, mesh, index)
        for rank in range(mesh.rows * mesh.cols):
            for k in range(4):          # k = 0 is the setup; transposes alternate between the two meshes
                want = local_block(kernel, n, mesh, rank, k, index)
                got = _core.matrix_expected(rank, applied=k, **args)
                assert got.shape == want.shape and np.array_equal(got, want), (rank, k, index)
                assert _core.matrix_verify(want, rank, applied=k, **args) == (0, "")


def test_the_gray_mesh_puts_neighbours_one_bit_apart():
    mesh = matrix_mesh(16)
    assert (mesh.rows, mesh.cols, mesh.layout) == (4, 4, "gray")
    for rank in range(16):
        assert all(bin(rank ^ other).count("1") == 1 for other in mesh.neighbours(rank).values())


def test_verification_finds_every_single_wrong_element():
    mesh = Mesh(2, 3)
    args = core_args("shift_north", 6, mesh)
    good = _core.matrix_expected(4, applied=1, **args)
    for a in range(good.shape[0]):
        for b in range(good.shape[1]):
            for bad in (good[a, b] + 0.5, np.nan):
                block = good.copy()
                block[a, b] = bad
                wrong, report = _core.matrix_verify(block, 4, applied=1, **args)
                assert wrong == 1 and f"at ({a}, {b}) of its 5 x 4 array" in report
    # The block of the right shape, one application behind: most elements wrong.
    stale = _core.matrix_expected(4, applied=0, **args)
    assert _core.matrix_verify(stale, 4, applied=1, **args)[0] > good.size // 2


def test_the_report_names_the_part_the_position_and_the_values():
    args = core_args("update_guard", 4, Mesh(2, 2))
    block = _core.matrix_expected(0, applied=1, **args)
    block[0, 1] = -1.0          # the north guard: rank 0's top neighbour's last row, A(3, 0) = 13
    block[2, 3] = 99.0
    wrong, report = _core.matrix_verify(block, 0, applied=1, **args)
    assert wrong == 2
    assert report == ("2 of the 16 elements of rank 0's local matrix are wrong; the first, the north guard element "
                      "at (0, 1) of its 4 x 4 array (global (3, 0)), holds -1 instead of 13")
    # Before any update the guards hold -1 and the corners always do.
    setup = _core.matrix_expected(0, applied=0, **args)
    assert np.all(setup[0, :] == -1) and np.all(setup[:, -1] == -1) and setup[1, 1] == 1.0


def test_a_rectangular_mesh_transposes_onto_its_transpose():
    mesh = Mesh(2, 4)
    args = core_args("transpose", 8, mesh)
    assert _core.matrix_expected(1, applied=0, **args).shape == (6, 4)     # 4 x 2 blocks on 2 x 4
    assert _core.matrix_expected(1, applied=1, **args).shape == (4, 6)     # 2 x 4 blocks on 4 x 2


def _check(**change):
    args = core_args("shift_north", 8, Mesh(2, 2))
    args.pop("n")
    values = dict(n=8, iterations=1, **args)
    values.update(change)
    _core.matrix_check(**values)


@pytest.mark.parametrize("change, words", [
    (dict(n=7), "n must be a multiple of both sides of the 2 x 2 mesh (every block the same size), got 7"),
    (dict(n=1), "n must be at least the mesh's longer side (2, a 2 x 2 mesh), got 1"),
    (dict(n=1 << 27, rows=2, cols=2), "n must be at most 67108864"),
    (dict(n=1 << 17), "n must keep a local matrix, wrapper included"),
    (dict(rows=1, mesh=[0, 1], transposed=[0, 1]), "rows must be between 2 and"),
    (dict(op=9), "op must be MATRIX_UPDATE_GUARD (0), MATRIX_SHIFT (1)"),
    (dict(direction=2), "direction must be MATRIX_NORTH (0) or MATRIX_EAST (1), got 2"),
    (dict(op=_core.MATRIX_ROW_BROADCAST, index=8), "index must be a row of the matrix, 0..7, got 8"),
    (dict(op=_core.MATRIX_COL_BROADCAST, index=-1), "index must not be negative"),
    (dict(mesh=[0, 1, 1, 3]), "mesh must hold every rank once, got rank 1 twice"),
    (dict(mesh=[0, 1, 2, 4]), "mesh must hold the ranks 0..3, one per mesh position, got 4 at position 3"),
    (dict(mesh=[0, 1, 2]), "mesh must list rows x cols = 4 ranks, got 3"),
    (dict(transposed=[3, 3, 3, 3]), "transposed must hold every rank once"),
    (dict(iterations=0), "iterations must be between 1 and"),
])
def test_the_c_rules_name_their_parameter(change, words):
    with pytest.raises(_core.ParameterError) as err:
        _check(**change)
    assert words in str(err.value)


def test_a_direction_only_matters_to_the_shift():
    _check(op=_core.MATRIX_TRANSPOSE, direction=7)


def test_expected_and_verify_refuse_a_rank_or_block_that_does_not_fit():
    args = core_args("update_guard", 4, Mesh(2, 2))
    with pytest.raises(_core.ParameterError, match=r"rank must be a rank of the 2 x 2 mesh \(0..3\), got 4"):
        _core.matrix_expected(4, **args)
    with pytest.raises(_core.ParameterError, match="block must be the 4 x 4 local matrix"):
        _core.matrix_verify(np.zeros((3, 4)), 0, applied=0, **args)


# ---- meshes, dimensions, options --------------------------------------------

def test_mesh_shapes_are_the_rectangles_of_at_least_two_by_two():
    assert mesh_shapes(4) == [(2, 2)]
    assert mesh_shapes(12) == [(2, 6), (3, 4), (4, 3), (6, 2)]
    assert all(mesh_shapes(p) == [] for p in (1, 2, 3, 5, 7, 11, 13, 97))


def test_matrix_mesh_picks_the_squarest_and_says_which_shapes_are_allowed():
    assert (matrix_mesh(8).rows, matrix_mesh(8).cols) == (2, 4)
    assert (matrix_mesh(6).rows, matrix_mesh(6).cols, matrix_mesh(6).layout) == (2, 3, "row-major")
    assert (matrix_mesh(8, (4, 2)).rows, matrix_mesh(8, (4, 2)).cols) == (4, 2)
    with pytest.raises(OptionError) as err:
        matrix_mesh(5)
    assert err.value.parameter == "mesh"
    assert "5 rank(s) make no such mesh" in err.value.rule and "4, 6, 8, 9, 10, 12, 14, 15, 16" in err.value.rule
    with pytest.raises(OptionError, match="with at least 2 rows and 2 columns: 2x4 or 4x2; got 3x3"):
        matrix_mesh(8, (3, 3))


def test_default_dimensions_fit_the_mesh():
    assert default_dims(Mesh(2, 2)) == [64, 90, 128, 182, 256, 362, 512, 724, 1024, 1448, 2048]
    for shape in MESHES:
        mesh = Mesh(*shape)
        dims = default_dims(mesh)
        assert len(dims) == 11 and dims == sorted(dims)
        for n in dims:
            check_dimension(n, mesh)          # every default passes the C rules
        assert min(n // max(shape) for n in dims) >= 32


def test_check_dimension_quotes_c_under_the_callers_name():
    with pytest.raises(OptionError) as err:
        check_dimension(100, Mesh(2, 3), names={"n": "dims"})
    assert err.value.parameter == "dims" and "multiple of both sides of the 2 x 3 mesh" in err.value.rule
    with pytest.raises(OptionError, match="must be a whole number"):
        check_dimension(64.0, Mesh(2, 2))
    with pytest.raises(OptionError) as err:
        check_dimension(8, Mesh(2, 2), "row_broadcast", 8, {"index": "row"})
    assert err.value.parameter == "row"


def test_broadcasts_send_the_middle_of_the_last_block_row_or_column():
    assert broadcast_index(8, Mesh(2, 2), "row_broadcast") == 6
    assert broadcast_index(12, Mesh(2, 3), "col_broadcast") == 10
    assert broadcast_index(12, Mesh(2, 3), "row_broadcast") == 9


def test_option_types():
    assert dims_arg("128, 64") == (64, 128)
    assert kernels_arg("transpose,update_guard") == ("update_guard", "transpose")
    assert mesh_arg("2x4") == (2, 4) and mesh_arg("auto") is None
    for fn, text, words in ((dims_arg, "x", "whole numbers"), (dims_arg, "64,64", "must not repeat"),
                            (dims_arg, "0", "between 1 and"), (dims_arg, "", "whole numbers"),
                            (kernels_arg, "shift_west", "a shift goes north or east"),
                            (kernels_arg, "guard", "is no matrix kernel"), (mesh_arg, "2y4", "ROWSxCOLS")):
        with pytest.raises(argparse.ArgumentTypeError, match=words):
            fn(text)


def test_the_benchmark_resolves_the_mesh_and_dimensions():
    topology = Topology.load()
    options = BENCHMARK.check(MatrixOptions(), topology, Job(4, 1))
    assert options.mesh == (2, 2) and options.dims == (64, 90, 128, 182, 256, 362, 512, 724, 1024, 1448, 2048)
    options = BENCHMARK.check(MatrixOptions(mesh=(4, 2)), topology, Job(8, 2))
    assert options.dims[0] == 128
    for job, opts, parameter, words in (
            (Job(5, 1), MatrixOptions(), "mesh", "make no such mesh"),
            (Job(4, 1), MatrixOptions(dims=(64, 7)), "dims", "must be a multiple of both sides"),
            (Job(4, 1), MatrixOptions(dims=(1,)), "dims", "at least the mesh's longer side"),
            (Job(6, 1), MatrixOptions(mesh=(2, 2)), "mesh", "2x3 or 3x2; got 2x2")):
        with pytest.raises(OptionError) as err:
            BENCHMARK.check(opts, topology, job)
        assert err.value.parameter == parameter and words in err.value.rule


def test_the_memory_rule_counts_the_ranks_of_a_node(monkeypatch):
    from hpcbench.comm.matrix import _benchmark
    monkeypatch.setattr(_benchmark, "safe_memory_limit", lambda: 1 << 20)
    with pytest.raises(OptionError, match=r"must let 4 rank\(s\) of a node hold their blocks"):
        BENCHMARK.check(MatrixOptions(dims=(256,)), Topology.load(), Job(4, 1))
    BENCHMARK.check(MatrixOptions(dims=(64,)), Topology.load(), Job(4, 1))


@pytest.mark.parametrize("ranks, included", [(2, False), (3, False), (4, True), (5, False), (6, True), (7, False),
                                             (9, True)])
def test_the_default_suite_has_matrix_where_the_ranks_make_a_mesh(ranks, included):
    from hpcbench import default_suite
    assert ("matrix" in default_suite(ranks)) == included


# ---- growth ------------------------------------------------------------------

DIMS = np.array([64, 128, 256, 512, 1024, 2048, 4096], dtype=float)


def noisy(times, seed=3, spread=0.03):
    return times * np.random.default_rng(seed).lognormal(0, spread, np.size(times))


@pytest.mark.parametrize("exponent, t0, c", [(1, 3e-6, 2e-9), (2, 5e-6, 1e-10), (1, 0.0, 1e-8), (2, 2e-5, 3e-11)])
def test_growth_recovers_a_known_exponent(exponent, t0, c):
    g = fit_growth(DIMS, noisy(t0 + c * DIMS ** exponent), exponent)
    assert abs(g.exponent - exponent) <= 0.15 and g.low <= exponent <= g.high
    assert g.verdict == "agrees"
    assert np.allclose(g.predict(DIMS), t0 + c * DIMS ** exponent, rtol=0.15)


def test_growth_that_is_not_the_thesis_differs():
    g = fit_growth(DIMS, noisy(5e-6 + 1e-10 * DIMS ** 2), 1)
    assert g.verdict == "differs" and g.low > 1.5


def test_a_constant_time_hides_the_growth():
    g = fit_growth(DIMS, noisy(np.full(DIMS.size, 1e-5), spread=0.02), 1)
    assert g.verdict == "undecided" and g.low <= 1 and g.high >= 2


def test_too_few_dimensions():
    assert fit_growth([64, 128], [1e-6, 2e-6], 1).verdict == "too few dimensions"
    g = fit_growth([64, 128, 256], [1e-6, 2e-6, 4e-6], 1)
    assert g.exponent is not None and g.low is None and g.verdict == "too few dimensions"
    assert np.all(np.isnan(fit_growth([1, 2], [1, 2], 1).predict([3])))


def test_the_thesis_exponents():
    assert THESIS_EXPONENT == {"update_guard": 1, "shift_north": 2, "shift_east": 2, "transpose": 2,
                               "row_broadcast": 1, "col_broadcast": 1}
    assert list(THESIS_EXPONENT) == list(KERNELS)


def test_times_read_in_their_unit():
    assert [time_text(t) for t in (5e-6, 1.234e-3, 2.0, None)] == ["5.0 us", "1.23 ms", "2.00 s", "-"]


def test_a_protocol_switch_is_not_growth():
    """Open MPI's eager-to-rendezvous switch changes the constant and the
    cost per element from one size on: read as one power law it would make
    a linear kernel look quadratic."""
    dims = np.array(default_dims(Mesh(2, 2)), dtype=float)          # 64 .. 2048 in steps of sqrt(2)
    times = noisy(np.where(dims >= 1024, 3e-5 + 1e-8 * dims, 9e-6 + 4e-9 * dims), spread=0.01)
    g = fit_growth(dims, times, 1)
    assert g.regime_at == 1024 and g.verdict == "agrees" and abs(g.exponent - 1) <= 0.2
    assert g.t0_after == pytest.approx(3e-5, rel=0.3) and g.coefficient_after == pytest.approx(1e-8, rel=0.3)
    assert np.allclose(g.predict(dims), times, rtol=0.05)
    one = fit_growth(dims[:-1], times[:-1], 1)            # two dimensions after the switch: too few to split
    assert one.regime_at is None


def test_smooth_times_keep_one_regime():
    for exponent, t0, c in ((1, 3e-6, 2e-9), (2, 5e-6, 1e-10)):
        assert fit_growth(DIMS, noisy(t0 + c * DIMS ** exponent), exponent).regime_at is None
