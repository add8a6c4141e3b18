"""LogP's split of a message into CPU overheads and wire time, for
transports that move data beside the CPU (TCP's eager sends): the overhead
table's reading rule, MessageCosts with and without the split, the model's
link-bound stack and the replay's link queue, each worked out by hand.

Times in microseconds (US) for readability; every expected number comes
from the rules in hpcbench/predict/_profile.py, _model.py and _replay.py,
never from the implementation.
"""
import numpy as np
import pytest

from hpcbench.predict import (
    NetworkProfile,
    Placement,
    ProfileError,
    Region,
    WavefrontParams,
    simulate,
    wavefront,
    wavefront_program,
)
from hpcbench.predict._classes import CLASSES
from hpcbench.predict._profile import OverheadTable
from hpcbench.predict._program import Program
from hpcbench.predict._replay import replay

US = 1e-6
NODE = CLASSES.index("other node")


def table(sizes, send, recv, gap):
    return OverheadTable(np.array(sizes, float), np.array(send) * US, np.array(recv) * US, np.array(gap) * US)


# -- the table's reading rule --------------------------------------------------

def test_table_reads_a_message_in_the_regime_of_the_smaller_size():
    """Measured at 0, 1024, 4096, 65536 B. Send 1, 2, 3, 100 us: at 2048 B
    the point 1024 (2 us) plus 1024 B x the growth of the segment below it
    (1 us per 1024 B) = 3 us; at 30000 B, 3 + 25904 x 1/3072 = 11.43 us (the
    step to 100 us at 65536, a protocol change, is not drawn across); beyond
    65536 the last segment's growth; below the first segment, its slope."""
    t = table([0, 1024, 4096, 65536], [1, 2, 3, 100], [1, 1, 1, 1], [0, 10, 40, 640])
    send, recv, gap = t.at(np.array([0, 512, 1024, 2048, 4096, 30000, 65536, 131072]))
    assert send / US == pytest.approx([1, 1.5, 2, 3, 3, 3 + 25904 / 3072, 100, 100 + 65536 * 97 / 61440])
    assert recv / US == pytest.approx([1] * 8)
    assert gap / US == pytest.approx([0, 5, 10, 20, 40, 40 + 25904 * 30 / 3072, 640, 1280])


def test_table_never_gives_a_negative_time_and_rejects_nonsense():
    t = table([0, 100], [5, 1], [0, 0], [0, 0])    # falling: the growth is taken as none
    assert t.at(1000)[0] / US == pytest.approx(1)
    for bad in ([[0, 0], [1, 1], [1, 1], [1, 1]], [[0, 10], [1, -1], [1, 1], [1, 1]],
                [[0, 10], [1, 1], [1], [1, 1]], [[], [], [], []], [[0, 10], [1, 1], [1, np.nan], [1, 1]]):
        with pytest.raises(ProfileError):
            OverheadTable(*(np.array(v, float) for v in bad))


# -- what a message costs -------------------------------------------------------

def split_profile():
    """One class, other node: n_l 50 us, B 12.5 MB/s (100 Mbit/s); o_s 5,
    o_r 7, g 300 us at 0 and 4096 B (flat)."""
    return NetworkProfile({"other node": [Region(0, 50 * US, 12.5e6)]}, "split",
                          {"other node": table([0, 4096], [5, 5], [7, 7], [300, 300])})


def test_costs_without_overheads_are_hammonds():
    """t_send = x/B + n_l = 2500 / 12.5e6 + 50 us = 250 us; t_recv = 200 us;
    total = 450; no wire time: Table 2 exactly."""
    p = NetworkProfile({"other node": [Region(0, 50 * US, 12.5e6)]})
    c = p.message_costs(np.array([2500.0]), np.array([NODE]))
    assert (c.send / US, c.recv / US, c.total / US, c.wire / US) == (
        pytest.approx([250]), pytest.approx([200]), pytest.approx([450]), pytest.approx([0]))


def test_costs_with_overheads_split_cpu_and_wire():
    """send = o_s 5, recv = o_r 7, total = max(n_l + x/B, o_s + o_r) = 250,
    wire = g = 300 us (a stream's time per message, not the echo's x/B)."""
    c = split_profile().message_costs(np.array([2500.0]), np.array([NODE]))
    assert (c.send / US, c.recv / US, c.total / US, c.wire / US) == (
        pytest.approx([5]), pytest.approx([7]), pytest.approx([250]), pytest.approx([300]))


def test_table_round_trip_and_bad_tables():
    p = split_profile()
    again = NetworkProfile.from_table(p.to_dict())
    assert again.overheads["other node"].gap / US == pytest.approx([300, 300])
    with pytest.raises(ProfileError, match="gap_us"):
        NetworkProfile.from_table({"classes": {"other node": [{"latency_us": 1, "bandwidth_GBps": 1}]},
                                   "overheads": {"other node": {"sizes": [0], "send_us": [1], "recv_us": [1]}}})
    with pytest.raises(ProfileError, match="no regions"):
        NetworkProfile({"other node": [Region(0, 1 * US, 1e9)]}, overheads={"same cache": p.overheads["other node"]})


def test_bandwidth_what_if_scales_the_gap_not_the_overheads():
    half = split_profile().scaled(bandwidth=0.5)
    c = half.message_costs(np.array([2500.0]), np.array([NODE]))
    assert c.wire / US == pytest.approx([600]) and c.send / US == pytest.approx([5])


# -- the model ------------------------------------------------------------------

def params_1x2(wg_us, nz=10):
    """1 x 2 array, 4 x 4 cells per process, one angle: EW faces 32 B, W = 16 wg."""
    return WavefrontParams(nx=8, ny=4, nz=nz, m=1, n=2, wg=wg_us * US, angles=1)


def test_link_bound_stack_is_the_wire_per_tile():
    """W = 16 us, o_s 5, o_r 7: rank 0's stack (W + Send_E) x 10 = 210 us,
    rank 1's (W + Receive_W) x 10 = 230 us; the link carries one face per
    tile for g = 300 us: 3000 us. T_stack = 3000. T_fullfill = W + Total_comm
    = 16 + max(50 + 32/12.5e6 s, 12) = 16 + 52.56 us; T_diagfill = W_pre = 0
    (m = 1). Time = 2 x 0 + 4 x 68.56 + 8 x 3000 us."""
    pred = wavefront(params_1x2(1), split_profile(), Placement.uniform(2, "other node"))
    assert pred.link_stack / US == pytest.approx(3000)
    assert pred.t_stack / US == pytest.approx(3000)
    assert pred.stacks.ravel() / US == pytest.approx([210, 230])
    assert pred.t_fullfill / US == pytest.approx(16 + 50 + 2.56)
    assert pred.time / US == pytest.approx(4 * 68.56 + 8 * 3000)


def test_compute_bound_stack_is_the_slowest_process():
    """W_g 40 us: W = 640 us; rank 1's stack (640 + 7) x 10 = 6470 us >
    the link's 3000."""
    pred = wavefront(params_1x2(40), split_profile(), Placement.uniform(2, "other node"))
    assert pred.t_stack / US == pytest.approx(6470) and pred.stack_rank == 1


def test_without_overheads_the_link_never_binds():
    p = NetworkProfile({"other node": [Region(0, 50 * US, 12.5e6)]})
    pred = wavefront(params_1x2(1), p, Placement.uniform(2, "other node"))
    assert pred.link_stack == 0 and pred.t_stack == pytest.approx(pred.stacks.max())


# -- the replay's link queue -----------------------------------------------------

def three_sends():
    """Rank 0 sends three messages to rank 1, which receives them."""
    kind = np.array([1, 1, 1, 2, 2, 2], dtype=np.uint8)       # SEND x 3, RECV x 3
    peer = np.array([1, 1, 1, 0, 0, 0])
    return Program(offsets=np.array([0, 3, 6]), kind=kind, peer=peer, value=np.array([8.0] * 6))


def test_messages_queue_on_their_link():
    """o_s 0.5, o_r 0.25, wire 2, flight 3: sends end at 0.5, 1.0, 1.5; the
    link takes them at 0.5, 2.5, 4.5 (one at a time), they arrive 3 later:
    3.5, 5.5, 7.5; the receiver finishes 3.75, 5.75, 7.75."""
    p = three_sends()
    d = np.array([0.5] * 3 + [0.25] * 3)
    r = replay(p, d, sends="eager", wire=np.array([2.0] * 3 + [0.0] * 3), flight=np.array([3.0] * 3 + [0.0] * 3))
    assert r.finish.tolist() == pytest.approx([1.5, 7.75])
    assert r.idle[1] == pytest.approx(3.5 + 1.75 + 1.75)


def test_without_wire_a_message_arrives_when_its_send_ends():
    p = three_sends()
    r = replay(p, np.array([0.5] * 3 + [0.25] * 3), sends="eager")
    assert r.finish.tolist() == pytest.approx([1.5, 1.75])


def test_wire_times_are_for_eager_sends_only():
    p = three_sends()
    with pytest.raises(ValueError, match="eager"):
        replay(p, np.ones(6), sends="blocking", wire=np.zeros(6))
    with pytest.raises(ValueError, match="wire"):
        replay(p, np.ones(6), sends="eager", wire=-np.ones(6))


def test_simulation_agrees_with_the_model_on_a_split_profile():
    """Link-bound and compute-bound 1x2, 2x2 and 2x3 wavefronts of 40 tiles:
    the replay with link queues and the model's max(process, link) stack
    within 5 %. (r5 adds whole fills to whole stacks, where a pipeline
    overlaps a sweep's drain with the next one's fill by about a tile: a
    difference near 1/tiles: up to 10 % at 10 tiles on 2x3, 1.2 to 2.6 %
    at 40 on 2x2 and 2x3.)"""
    for wg_us in (1, 40):
        for m, n in ((1, 2), (2, 2), (2, 3)):
            params = WavefrontParams(nx=4 * n, ny=4 * m, nz=40, m=m, n=n, wg=wg_us * US, angles=1)
            place = Placement.uniform(m * n, "other node")
            model = wavefront(params, split_profile(), place).time
            sim = simulate(wavefront_program(params), split_profile(), place).total
            assert sim == pytest.approx(model, rel=0.05), (wg_us, m, n)
