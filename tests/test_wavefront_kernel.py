"""The real wavefront kernel on one process: the 1 x 1 run ends with the
serial evaluation's checksum, the state carries from iteration to
iteration, the times add up, W_g grows linearly with `work`, and every C
rule is one line naming its parameter. The decompositions and the injected
faults run under mpiexec (test_wavefront_mpi.py)."""
import numpy as np
import pytest
from mpi4py import MPI

from hpcbench import _core
from hpcbench._collective import CommError
from hpcbench._errors import OptionError
from hpcbench.predict import WavefrontParams
from hpcbench.predict._kernel import WARMUP, measure_wg, run_wavefront, serial_checksum, wg_samples

SMALL = WavefrontParams(12, 8, 6, m=1, n=1, h_tile=2, angles=4)


def core_args(**changes):
    args = dict(nx=12, ny=8, nz=6, m=1, n=1, h_tile=2, angles=4, work=2, warmup=1, iterations=1)
    args.update(changes)
    return args


def test_a_one_process_run_ends_with_the_serial_evaluation():
    times = run_wavefront(SMALL, MPI.COMM_SELF, work=3, iterations=2)
    assert times.verified
    assert (times.checksum, times.total) == serial_checksum(SMALL, work=3, iterations=WARMUP + 2)
    # Without verify the kernel still checksums the grid, and finds the same state.
    again = run_wavefront(SMALL, MPI.COMM_SELF, work=3, iterations=2, verify=False)
    assert not again.verified and again.checksum == times.checksum


def test_the_result_does_not_depend_on_h_tile():
    sums = {run_wavefront(SMALL.with_(h_tile=h), MPI.COMM_SELF, work=2, iterations=1).checksum for h in (1, 2, 3, 6)}
    assert len(sums) == 1


def test_the_state_carries_over_and_every_input_matters():
    base = serial_checksum(SMALL, work=2, iterations=1)[0]
    others = [serial_checksum(SMALL, work=2, iterations=2)[0], serial_checksum(SMALL, work=3, iterations=1)[0],
              serial_checksum(SMALL.with_(angles=5), work=2, iterations=1)[0],
              serial_checksum(SMALL.with_(nz=12), work=2, iterations=1)[0]]
    assert len({base, *others}) == 5
    assert serial_checksum(SMALL, work=2, iterations=1)[0] == base     # deterministic


def test_the_flux_stays_bounded():
    # Every cell's flux is below 4 whatever the iterations (wavefront_solve.h).
    cells = SMALL.nx * SMALL.ny * SMALL.nz
    for iterations in (1, 10):
        total = serial_checksum(SMALL, work=50, iterations=iterations)[1]
        assert 0 < total < 4 * cells


def test_times_of_a_run_add_up():
    times = run_wavefront(SMALL, MPI.COMM_SELF, work=2, iterations=3)
    assert times.per_rank.shape == times.compute.shape == (1, 3) and times.samples.shape == (3,)
    assert np.all(times.samples > 0) and np.array_equal(times.samples, times.per_rank[0])
    assert np.all(times.send == 0) and np.all(times.recv == 0)      # one rank: no neighbours
    assert times.sent_messages.tolist() == times.sent_bytes.tolist() == [0]
    assert np.all(times.compute <= times.per_rank)
    split = times.split()
    assert set(split) == {"compute", "send", "recv", "other"} and split["compute"] > 0
    assert times.median == pytest.approx(float(np.median(times.samples)))
    assert times.compute_per_cell() > 0


def test_wg_grows_linearly_with_work():
    """A trend, not a time: generous bounds, the best of three tries."""
    p = WavefrontParams(16, 16, 8, m=1, n=1, angles=6)

    def wg(work):
        return min(float(np.min(wg_samples(p, work=work, repetitions=40))) for _ in range(3))

    low, mid, high = wg(8), wg(32), wg(128)
    assert low < mid < high
    # Linear in work: the middle point near the straight line through the ends.
    line = low + (high - low) * (32 - 8) / (128 - 8)
    assert 0.6 * line < mid < 1.5 * line, (low, mid, high)
    # and far from constant: 16 times the rounds cost well over twice the time.
    assert high > 2.5 * low


def test_measure_wg_takes_params_or_cells():
    assert measure_wg(SMALL, work=2, repetitions=5) > 0
    assert measure_wg(64, work=2, repetitions=5) > 0
    assert measure_wg(64, work=2) > 0           # repetitions from the probe
    samples = wg_samples(SMALL, work=2, repetitions=7)
    assert samples.shape == (7,) and np.all(samples > 0)
    with pytest.raises(OptionError, match="^cells must be a whole number of at least 1, got 0$"):
        measure_wg(0)
    with pytest.raises(OptionError, match="^work "):
        measure_wg(SMALL, work=0)


@pytest.mark.parametrize("changes, parameter, words", [
    (dict(nx=13, n=2), "nx", "must be a multiple of n = 2 process columns (the 1 x 2 array divides the grid), got 13"),
    (dict(ny=9, m=2), "ny", "must be a multiple of m = 2 process rows (the 2 x 1 array divides the grid), got 9"),
    (dict(h_tile=4), "h_tile", "must divide nz = 6 (whole tiles of planes), got 4"),
    (dict(nx=0), "nx", "must be between 1 and"),
    (dict(m=0), "m", "must be between 1 and 2147483647 process rows, got 0"),
    (dict(angles=0), "angles", "must be between 1 and 4096, got 0"),
    (dict(work=0), "work", "must be between 1 and 1073741824 rounds, got 0"),
    (dict(iterations=0), "iterations", "must be between 1 and 100000000, got 0"),
    (dict(nx=2 ** 40, ny=2 ** 40, nz=8, h_tile=1), "nz", "must keep the grid's cells"),
    (dict(nx=2 ** 31, angles=2, nz=1, h_tile=1), "h_tile", "within one MPI message"),
    (dict(m=2 ** 20, n=2 ** 20, nx=2 ** 20, ny=2 ** 20), "n", "must keep m x n within an MPI communicator"),
    (dict(fault=9), "fault", "must be WAVEFRONT_FAULT_NONE (0), WAVEFRONT_FAULT_CORRUPT (1)"),
    (dict(fault=1, fault_sweep=8), "fault_sweep", "must be at most 7, got 8"),
    (dict(fault=1, fault_rank=2, n=2), "fault_rank", "must be at most 1 (a rank of the m x n array), got 2"),
    (dict(fault=1, fault_rank=0, fault_sweep=0, n=2), "fault_rank", "must receive a face in sweep 0"),
    (dict(fault=1, fault_rank=0), "fault_rank", "must receive a face in sweep 0"),
    (dict(nz=-1), "nz", "must not be negative"),
])
def test_every_rule_is_one_line_naming_its_parameter(changes, parameter, words):
    with pytest.raises(_core.ParameterError) as info:
        _core.wavefront_check(**core_args(**changes))
    assert info.value.parameter == parameter and words in info.value.rule, str(info.value)
    assert str(info.value) == f"{parameter} {info.value.rule}" and "\n" not in str(info.value)
    # The timed kernel applies the same check before any message.
    with pytest.raises(_core.ParameterError, match=f"^{parameter} "):
        _core.wavefront_times(MPI.COMM_SELF, **core_args(**changes))


def test_a_fault_on_a_rank_that_receives_is_accepted():
    assert _core.wavefront_check(**core_args(n=2, fault=_core.WAVEFRONT_FAULT_STALE, fault_rank=1)) is None
    # Sweep 1 starts north-east: on a 1 x 2 array rank 0 receives there.
    assert _core.wavefront_check(**core_args(n=2, fault=1, fault_rank=0, fault_sweep=1)) is None


def test_the_communicator_must_hold_the_array():
    with pytest.raises(CommError, match="m x n must be the number of ranks of comm .1., got a 1 x 2 array"):
        run_wavefront(SMALL.with_(n=2), MPI.COMM_SELF)
    with pytest.raises(_core.ParameterError, match="^comm must be a valid communicator"):
        _core.wavefront_times(MPI.COMM_NULL, **core_args())


def test_python_arguments_are_checked():
    with pytest.raises(OptionError, match="^params must be an hpcbench.predict.WavefrontParams"):
        run_wavefront((12, 8, 6), MPI.COMM_SELF)
    with pytest.raises(OptionError, match="^iterations must be a whole number of at least 1"):
        run_wavefront(SMALL, MPI.COMM_SELF, iterations=0)
    with pytest.raises(OptionError, match="^fault must be None or .kind, rank, sweep."):
        run_wavefront(SMALL, MPI.COMM_SELF, fault=("flip", 0, 0))
    with pytest.raises(_core.ParameterError, match="^fault_rank must receive a face"):
        run_wavefront(SMALL, MPI.COMM_SELF, fault=("corrupt", 0, 0))
    with pytest.raises(_core.ParameterError, match="^repetitions must be between 1"):
        _core.wavefront_wg(4, 4, 4, repetitions=0)
    with pytest.raises(_core.ParameterError, match="^h_tile must divide nz = 4"):
        _core.wavefront_wg(4, 4, 4, h_tile=3)
