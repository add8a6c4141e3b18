"""The plug-and-play wavefront model (hpcbench/predict/_model.py, Table 2 of
Hammond et al. 2009) on arrays small enough to work out by hand: 1x1, 1xn,
nx1, 2x2 and 3x4, with one class and with two; r2b against the longest
path through the array found by enumerating every path; properties; errors.

Every expected number is derived here from the equations, never read from
the implementation. Times in microseconds (US) for readability.

The one-class profile: latency 1 us, bandwidth 32 MB/s, so a 32-byte face
costs its sender 2 us (1 + 1) and its receiver 1 us; Total_comm = 3 us.
Grid cells per process 4 x 4 (16), one angle, H_tile 1: both faces are
8 x 1 x 4 = 32 bytes. W_g = 1 us per cell, so W = 16 us; Nz = 5 tiles.
"""
import itertools

import numpy as np
import pytest

from hpcbench.predict import NetworkProfile, Placement, PlacementError, ProfileError, Region, WavefrontParams
from hpcbench.predict._model import wavefront

US = 1e-6
ONE = NetworkProfile({"other node": [Region(0, 1 * US, 32e6)]}, "one class")
# Two classes for 32-byte faces: same cache sends in 1 us, receives in 0.5;
# other node sends in 4 us, receives in 2.
TWO = NetworkProfile({"same cache": [Region(0, 0.5 * US, 64e6)],
                      "other node": [Region(0, 2 * US, 16e6)]}, "two classes")


def us(rows):
    """Microseconds (a number or nested lists) as an approx of seconds."""
    return pytest.approx(np.array(rows, dtype=float) * US)


def params(m, n, **kw):
    """4 x 4 cells per process, 5 tiles, one angle: 32-byte faces, W = 16 us."""
    base = dict(nx=4 * n, ny=4 * m, nz=5, m=m, n=n, wg=1 * US, angles=1)
    base.update(kw)
    return WavefrontParams(**base)


def everywhere(m, n):
    return Placement.uniform(m * n, "other node")


def rows_on_nodes(m, n):
    """Each row of the array on its own node, sharing one cache: E/W pairs
    are same cache, N/S pairs other node."""
    row = np.repeat(np.arange(m), n)
    return Placement(node=row, package=row, cache=row, bound=np.ones(m * n, bool))


# -- hand-worked arrays ------------------------------------------------------

def test_1x1_is_compute_alone():
    """No neighbours: fills are W_pre, the stack (W + W_pre) x 5 - W_pre.
    W = 16, W_pre = 0.5 x 16 = 8: stack = 24 x 5 - 8 = 112; time = 2 x 8 +
    4 x 8 + 8 x 112 = 944 us, all of it compute."""
    p = wavefront(params(1, 1, wg_pre=0.5 * US), ONE, everywhere(1, 1))
    assert p.w == pytest.approx(16 * US) and p.w_pre == pytest.approx(8 * US)
    assert p.t_diagfill == pytest.approx(8 * US) and p.t_fullfill == pytest.approx(8 * US)
    assert p.t_stack == pytest.approx(112 * US)
    assert p.time == pytest.approx(944 * US)
    assert p.compute == pytest.approx(944 * US) and p.communication == pytest.approx(0, abs=1e-15)


def test_1x3_row():
    """Start P_{2,1} = W + Total_comm_E (3) + Receive_N (0: no row below) =
    19; P_{3,1} = 38. T_diagfill = Start P_{1,1} = 0; T_fullfill = 38.
    Stacks: P_1 (16 + Send_E 2) x 5 = 90, P_2 (Receive_W 1 + 16 + 2) x 5 =
    95, P_3 (1 + 16) x 5 = 85: T_stack = 95 (rank 1). time = 4 x 38 + 8 x 95
    = 912; compute = 4 x (2 x 16) + 8 x (5 x 16) = 768; communication 144."""
    p = wavefront(params(1, 3), ONE, everywhere(1, 3))
    assert p.start == us([[0, 19, 38]])
    assert p.t_diagfill == 0 and p.t_fullfill == pytest.approx(38 * US)
    assert p.stacks == us([[90, 95, 85]])
    assert p.t_stack == pytest.approx(95 * US) and p.stack_rank == 1
    assert p.time == pytest.approx(912 * US)
    assert p.compute == pytest.approx(768 * US) and p.communication == pytest.approx(144 * US)


def test_3x1_column():
    """Start P_{1,2} = W + Send_E (0: no column to the east) + Total_comm_S
    (3) = 19; P_{1,3} = 38 = T_diagfill = T_fullfill. Stacks 90, 95, 85 as
    the row's. time = 2 x 38 + 4 x 38 + 8 x 95 = 988."""
    p = wavefront(params(3, 1), ONE, everywhere(3, 1))
    assert p.start.ravel().tolist() == pytest.approx([0, 19 * US, 38 * US])
    assert p.t_diagfill == pytest.approx(38 * US) and p.t_fullfill == pytest.approx(38 * US)
    assert p.t_stack == pytest.approx(95 * US)
    assert p.time == pytest.approx(988 * US)


def test_a_face_past_a_region_edge_pays_that_region():
    """1x2 with 256 cells along y: the E/W face is 8 x 256 = 2048 bytes, the
    first size of the second region (3 us, 2.048 GB/s: 1 us of transfer):
    Total_comm_E = 3 + 1 + 1 = 5; Start P_{2,1} = W + 5 = 4 x 256 + 5."""
    profile = NetworkProfile({"other node": [Region(0, 1 * US, 1e9), Region(2048, 3 * US, 2.048e9)]})
    p = wavefront(WavefrontParams(nx=8, ny=256, nz=1, m=1, n=2, wg=1 * US, angles=1), profile, everywhere(1, 2))
    assert p.start[0, 1] == pytest.approx((4 * 256 + 5) * US)


def test_2x2_one_class():
    """P_{2,1} = 16 + 3 + 0 = 19. P_{1,2} = 16 + Send_E of P_{1,1} (2) +
    Total_comm_S (3) = 21. P_{2,2} = max(21 + 16 + 3 + Receive_N 1 = 41,
    19 + 16 + Send_E 0 + 3 = 38) = 41. T_diagfill = Start P_{1,2} = 21,
    T_fullfill = 41. Stacks: P_{1,1} (16 + 2 + 2) x 5 = 100, P_{2,1}
    (1 + 16 + 2) x 5 = 95, P_{1,2} 95, P_{2,2} (1 + 1 + 16) x 5 = 90.
    time = 2 x 21 + 4 x 41 + 8 x 100 = 1006; compute = 2 x 16 + 4 x 32 +
    8 x 80 = 800."""
    p = wavefront(params(2, 2), ONE, everywhere(2, 2))
    assert p.start == us([[0, 19], [21, 41]])
    assert p.t_diagfill == pytest.approx(21 * US) and p.t_fullfill == pytest.approx(41 * US)
    assert p.stacks == us([[100, 95], [95, 90]])
    assert p.t_stack == pytest.approx(100 * US) and p.stack_rank == 0
    assert p.time == pytest.approx(1006 * US)
    assert p.compute == pytest.approx(800 * US) and p.communication == pytest.approx(206 * US)


def test_2x2_two_classes():
    """Rows on their own nodes: E/W pairs same cache (send 1, receive 0.5,
    Total_comm 1.5), N/S pairs other node (send 4, receive 2, total 6).
    P_{2,1} = 16 + 1.5 = 17.5. P_{1,2} = 16 + Send_E 1 + 6 = 23.
    P_{2,2} = max(23 + 16 + 1.5 + Receive_N 2 = 42.5, 17.5 + 16 + 0 + 6 =
    39.5) = 42.5. Stacks: P_{1,1} (16 + 1 + 4) x 5 = 105, P_{2,1}
    (0.5 + 16 + 4) x 5 = 102.5, P_{1,2} (2 + 16 + 1) x 5 = 95, P_{2,2}
    (0.5 + 2 + 16) x 5 = 92.5. time = 2 x 23 + 4 x 42.5 + 8 x 105 = 1056."""
    p = wavefront(params(2, 2), TWO, rows_on_nodes(2, 2))
    assert p.start == us([[0, 17.5], [23, 42.5]])
    assert p.stacks == us([[105, 102.5], [95, 92.5]])
    assert p.t_stack == pytest.approx(105 * US) and p.stack_rank == 0
    assert p.time == pytest.approx(1056 * US)


def test_3x4_one_class():
    """Steps: east into row 1 cost W + 3 = 19, east into a higher row
    W + 3 + Receive_N 1 = 20; north into columns 1..3 W + Send_E 2 + 3 = 21,
    into column 4 W + 0 + 3 = 19. To P_{4,3} (3 east, 2 north) the longest
    path goes north first in column 1 (2 x 21) then east along row 3
    (3 x 20): T_fullfill = 102. T_diagfill = Start P_{1,3} = 42. An interior
    process (columns 2..3, row 2) has all four terms: (1 + 1 + 16 + 2 + 2) x
    5 = 110 = T_stack. time = 2 x 42 + 4 x 102 + 8 x 110 = 1372."""
    p = wavefront(params(3, 4), ONE, everywhere(3, 4))
    assert p.t_diagfill == pytest.approx(42 * US) and p.t_fullfill == pytest.approx(102 * US)
    assert p.t_stack == pytest.approx(110 * US)
    assert p.time == pytest.approx(1372 * US)
    assert p.compute == pytest.approx((2 * 32 + 4 * 80 + 8 * 80) * US)


def test_3x4_two_classes():
    """Rows on nodes: east into row 1 costs 16 + 1.5 = 17.5, into a higher
    row 16 + 1.5 + 2 = 19.5; north into columns 1..3 16 + 1 + 6 = 23, into
    column 4 16 + 6 = 22. T_fullfill = 2 x 23 + 3 x 19.5 = 104.5,
    T_diagfill = 46. Interior stack (0.5 + 2 + 16 + 1 + 4) x 5 = 117.5.
    time = 2 x 46 + 4 x 104.5 + 8 x 117.5 = 1450."""
    p = wavefront(params(3, 4), TWO, rows_on_nodes(3, 4))
    assert p.t_diagfill == pytest.approx(46 * US) and p.t_fullfill == pytest.approx(104.5 * US)
    assert p.t_stack == pytest.approx(117.5 * US)
    assert p.time == pytest.approx(1450 * US)


# -- r2b against every path ----------------------------------------------------

def brute_force_start(prm, profile, placement):
    """Start P_{i,j} = W_pre + the longest monotone path from P_{1,1}, by
    enumerating every path; step costs from the profile pair by pair."""
    m, n = prm.m, prm.n
    w = prm.wg * prm.h_tile * prm.cells_x * prm.cells_y
    w_pre = prm.wg_pre * prm.h_tile * prm.cells_x * prm.cells_y

    def rank(i, j):          # 1-based column i, row j
        return (j - 1) * n + (i - 1)

    def send(a, b, size):
        return float(profile.t_send(size, placement.class_name(a, b)))

    def recv(a, b, size):
        return float(profile.t_recv(size, placement.class_name(a, b)))

    ew, ns = prm.message_ew, prm.message_ns

    def east_step(i, j):     # from P_{i-1,j} into P_{i,j}
        a, b = rank(i - 1, j), rank(i, j)
        cost = w + send(a, b, ew) + recv(a, b, ew)
        if j > 1:
            cost += recv(rank(i, j - 1), b, ns)
        return cost

    def north_step(i, j):    # from P_{i,j-1} into P_{i,j}
        a, b = rank(i, j - 1), rank(i, j)
        cost = w + send(a, b, ns) + recv(a, b, ns)
        if i < n:
            cost += send(a, rank(i + 1, j - 1), ew)
        return cost

    out = np.zeros((m, n))
    for j in range(1, m + 1):
        for i in range(1, n + 1):
            steps = (i - 1) + (j - 1)
            best = 0.0
            for norths in itertools.combinations(range(steps), j - 1):
                ci, cj, total = 1, 1, 0.0
                for s in range(steps):
                    if s in norths:
                        cj += 1
                        total += north_step(ci, cj)
                    else:
                        ci += 1
                        total += east_step(ci, cj)
                best = max(best, total)
            out[j - 1, i - 1] = w_pre + best
    return out


def random_placement(nranks, rng):
    """Ranks scattered over 3 nodes, 2 packages each, 2 caches each."""
    node = rng.integers(0, 3, nranks)
    package = node * 2 + rng.integers(0, 2, nranks)
    cache = package * 2 + rng.integers(0, 2, nranks)
    return Placement(node=node, package=package, cache=cache, bound=np.ones(nranks, bool))


THREE = NetworkProfile({"same cache": [Region(0, 0.3 * US, 3e9)],
                        "same package": [Region(0, 0.5 * US, 2e9)],
                        "other package": [Region(0, 0.7 * US, 2.8e9), Region(40, 0.9 * US, 3.8e9)],
                        "other node": [Region(0, 2.6 * US, 0.46e9), Region(40, 3.6 * US, 0.73e9)]})


@pytest.mark.parametrize("shape", [(1, 1), (1, 5), (5, 1), (2, 2), (3, 4), (4, 3), (2, 6), (4, 4)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_r2b_is_the_longest_path(shape, seed):
    m, n = shape
    rng = np.random.default_rng(seed)
    prm = WavefrontParams(nx=5 * n, ny=3 * m, nz=4, m=m, n=n, wg=rng.uniform(0.1, 2) * US,
                          wg_pre=rng.uniform(0, 1) * US, angles=2)
    placement = random_placement(m * n, rng)
    p = wavefront(prm, THREE, placement)
    assert p.start == pytest.approx(brute_force_start(prm, THREE, placement), rel=1e-12, abs=1e-18)
    assert p.t_diagfill == p.start[m - 1, 0] and p.t_fullfill == p.start[m - 1, n - 1]


# -- properties ---------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_more_latency_is_never_faster(seed):
    rng = np.random.default_rng(seed)
    m, n = rng.integers(1, 7, 2)
    prm = WavefrontParams(nx=6 * n, ny=6 * m, nz=6, m=m, n=n, wg=rng.uniform(0.01, 1) * US)
    placement = random_placement(m * n, rng)
    base = wavefront(prm, THREE, placement)
    slower = wavefront(prm, THREE.scaled(latency=1.5), placement)
    assert slower.time >= base.time
    assert np.all(slower.start >= base.start) and slower.t_stack >= base.t_stack


@pytest.mark.parametrize("placement", ["uniform", "rows"])
def test_doubling_wg_doubles_the_compute_term(placement):
    """compute = n_diag (m-1) W + n_full (m+n-2) W + n_sweeps tiles W with
    W_pre = 0: linear in W_g. With one class the communication on the
    critical path does not move."""
    where = everywhere(3, 4) if placement == "uniform" else rows_on_nodes(3, 4)
    profile = ONE if placement == "uniform" else TWO
    a = wavefront(params(3, 4), profile, where)
    b = wavefront(params(3, 4, wg=2 * US), profile, where)
    assert b.compute == pytest.approx(2 * a.compute)
    assert a.compute == pytest.approx((2 * 2 + 4 * 5 + 8 * 5) * 16 * US)
    if placement == "uniform":
        assert b.communication == pytest.approx(a.communication)


def test_an_edge_with_no_neighbour_pays_nothing():
    """On a 3x4 array with one class: the corner P_{1,1} has no receives
    ((16 + 2 + 2) x 5), P_{4,3} no sends ((1 + 1 + 16) x 5), the east column
    no Send_E, the top row no Send_S, the bottom row no Receive_N. Start:
    row 1 steps east for 19 (no Receive_N), higher rows for 20; a step north
    costs 21 (Send_E 2 of the process below), 19 into column 4 (no Send_E):
    row 2 = 21, max(41, 19 + 21), max(61, 38 + 21), max(81, 57 + 19);
    row 3 = 42, max(62, 41 + 21), max(82, 61 + 21), max(102, 81 + 19)."""
    p = wavefront(params(3, 4), ONE, everywhere(3, 4))
    s = p.stacks / US
    assert s[0, 0] == pytest.approx(100) and s[2, 3] == pytest.approx(90)
    assert s[1, 3] == pytest.approx((1 + 1 + 16 + 2) * 5) and s[2, 1] == pytest.approx((1 + 1 + 16 + 2) * 5)
    assert s[0, 1] == pytest.approx((1 + 16 + 2 + 2) * 5)
    assert p.start == us([[0, 19, 38, 57], [21, 41, 61, 81], [42, 62, 82, 102]])


def test_the_start_matrix_is_read_only():
    p = wavefront(params(2, 2), ONE, everywhere(2, 2))
    with pytest.raises(ValueError):
        p.start[0, 0] = 1.0


# -- errors --------------------------------------------------------------------

def test_a_placement_of_the_wrong_size_is_one_line():
    with pytest.raises(PlacementError) as e:
        wavefront(params(2, 2), ONE, everywhere(3, 1))
    assert str(e.value) == "the placement has 3 ranks, the 2x2 process array needs 4"


def test_a_profile_without_a_class_the_placement_needs_is_one_line():
    with pytest.raises(ProfileError) as e:
        wavefront(params(2, 2), ONE, rows_on_nodes(2, 2))
    text = str(e.value)
    assert "\n" not in text and "'same cache'" in text
    assert isinstance(e.value, ValueError)
