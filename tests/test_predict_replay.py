"""The discrete-event replay (hpcbench/predict/_replay.py) on hand-built
programs whose times are worked out by hand: a chain, a ring, a 2x2
wavefront, a deadlock; and the program checks."""
import numpy as np
import pytest

from hpcbench.predict import Deadlock, ProgramError
from hpcbench.predict._program import COMPUTE, RECV, SEND, Program
from hpcbench.predict._replay import replay

T_SEND, T_RECV = 0.5, 0.25     # seconds per message, whatever its size, in these tests


def durations(program):
    return np.select([program.kind == COMPUTE, program.kind == SEND, program.kind == RECV],
                     [program.value, T_SEND, T_RECV])


def test_a_chain():
    """0 computes 1 s and sends to 1; 1 computes 2 s after receiving and
    sends to 2. The send starts when both sides are ready; the receiver is
    busy t_recv, the sender t_send."""
    p = Program.from_lists([[("compute", 1.0), ("send", 1, 8)],
                            [("recv", 0, 8), ("compute", 2.0), ("send", 2, 8)],
                            [("recv", 1, 8)]])
    r = replay(p, durations(p))
    assert r.finish.tolist() == [1.5, 1.25 + 2.0 + 0.5, 3.25 + 0.25]
    assert r.idle.tolist() == [0.0, 1.0, 3.25]
    assert r.compute.tolist() == [1.0, 2.0, 0.0]
    assert r.send.tolist() == [0.5, 0.5, 0.0] and r.recv.tolist() == [0.0, 0.25, 0.25]
    assert r.total == 3.75


def test_a_late_receiver_makes_the_sender_wait():
    p = Program.from_lists([[("send", 1, 8)], [("compute", 3.0), ("recv", 0, 8)]])
    r = replay(p, durations(p))
    assert r.idle.tolist() == [3.0, 0.0] and r.finish.tolist() == [3.5, 3.25]


def test_a_ring_passes_a_token_round():
    """n ranks pass a token: rank 0 sends first, every other receives, then
    sends on; rank 0 receives last. Each hop costs t_send on the critical
    path (the next send starts when the receiver is done receiving, t_recv
    after the hop started)."""
    n = 5
    ranks = [[("send", 1, 8), ("recv", n - 1, 8)]]
    ranks += [[("recv", i - 1, 8), ("send", (i + 1) % n, 8)] for i in range(1, n)]
    p = Program.from_lists(ranks)
    r = replay(p, durations(p))
    # Hop k starts at k * t_recv (each receiver passes on as soon as it has received).
    assert r.finish[0] == pytest.approx((n - 1) * T_RECV + T_RECV)
    assert r.finish[1:].tolist() == pytest.approx([k * T_RECV + T_SEND for k in range(1, n)])
    assert r.total == pytest.approx((n - 1) * T_RECV + T_SEND)


def test_a_2x2_wavefront_sweep():
    """Ranks 0 1 / 2 3 (0 bottom left: 1 east of 0, 2 north of 0). One sweep
    from rank 0's corner with compute c per rank: 0 computes, sends east
    then north; 1 and 2 receive, compute, send to 3; 3 receives from west
    (2) then south (1) and computes."""
    c = 1.0
    p = Program.from_lists([
        [("compute", c), ("send", 1, 8), ("send", 2, 8)],
        [("recv", 0, 8), ("compute", c), ("send", 3, 8)],
        [("recv", 0, 8), ("compute", c), ("send", 3, 8)],
        [("recv", 2, 8), ("recv", 1, 8), ("compute", c)],
    ])
    r = replay(p, durations(p))
    # 0: sends to 1 at c (done c+.5), to 2 at c+.5 (done c+1).
    # 1: receives c..c+.25, computes to 2c+.25, sends to 3 when 3 is at that receive.
    # 2: receives c+.5..c+.75, computes to 2c+.75, sends to 3 at 2c+.75 (3 waits on 2 first).
    # 3: receive from 2: 2c+.75..2c+1; receive from 1 (1 waited since 2c+.25): 2c+1..2c+1.25; compute.
    assert r.finish.tolist() == pytest.approx([c + 1.0, 2 * c + 1.5, 2 * c + 1.25, 3 * c + 1.25])
    assert r.idle.tolist() == pytest.approx([0.0, c + 0.75, c + 0.5, 2 * c + 0.75])
    assert r.total == pytest.approx(3 * c + 1.25)
    # Busy + idle is the finish time on every rank.
    assert (r.compute + r.send + r.recv + r.idle).tolist() == pytest.approx(r.finish.tolist())


def test_a_deadlock_is_reported_not_hung():
    p = Program.from_lists([[("send", 1, 8), ("recv", 1, 8)], [("send", 0, 8), ("recv", 0, 8)],
                            [("compute", 1.0)]])
    with pytest.raises(Deadlock, match=r"deadlock: 2 rank\(s\) wait for each other: rank 0 waits to send to rank 1"):
        replay(p, durations(p))


def test_a_receive_nobody_sends_is_one_clear_error():
    with pytest.raises(ProgramError, match="rank 0 sends 0 message.s. to rank 1, which receives 1 from it"):
        Program.from_lists([[("compute", 1.0)], [("recv", 0, 8)]])


@pytest.mark.parametrize("ranks,message", [
    ([[("send", 0, 8)]], "itself"),
    ([[("send", 3, 8)], []], "not in 0..1"),
    ([[("compute", -1.0)]], "not negative"),
    ([[("jump", 1)]], "an event is"),
    ([[("send", 1)]], "an event is"),
    ([], "at least one rank"),
])
def test_bad_programs(ranks, message):
    with pytest.raises(ProgramError, match=message):
        Program.from_lists(ranks)


def test_durations_must_fit_the_program():
    p = Program.from_lists([[("compute", 1.0)]])
    with pytest.raises(ProgramError, match="one duration per event"):
        replay(p, np.zeros(2))
    with pytest.raises(ProgramError, match="finite"):
        replay(p, np.array([np.nan]))


def test_events_read_back_and_interleaved_rows_keep_each_ranks_order():
    rank = np.array([1, 0, 1, 0])
    kind = np.array([RECV, COMPUTE, COMPUTE, SEND])
    peer = np.array([0, -1, -1, 1])
    value = np.array([8.0, 2.0, 3.0, 8.0])
    p = Program.from_arrays(rank, kind, peer, value, 2)
    assert p.events_of(0) == [("compute", 2.0), ("send", 1, 8.0)]
    assert p.events_of(1) == [("recv", 0, 8.0), ("compute", 3.0)]
