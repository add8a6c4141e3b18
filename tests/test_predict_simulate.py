"""The wavefront as a Program (hpcbench/predict/_wavefront_program.py) and
its simulation (_simulate.py), against event lists and times worked out by
hand from the contract in _params.py and section 5.1's t_send / t_recv; the
eager replay on a chain, a ring and a deadlock."""
import numpy as np
import pytest

from hpcbench.predict import Deadlock, ParameterError, PlacementError, ProfileError, ProgramError, SimulationError
from hpcbench.predict._params import WavefrontParams
from hpcbench.predict._placement import Placement
from hpcbench.predict._profile import NetworkProfile, Region
from hpcbench.predict._program import COMPUTE, RECV, SEND, Program
from hpcbench.predict._replay import replay
from hpcbench.predict._simulate import simulate
from hpcbench.predict._wavefront_program import wavefront_program

# One region off node: latency 0.25 s, 64 bytes/s. A 48-byte face: t_send 1.0
# s, t_recv 0.75 s; a 96-byte face: t_send 1.75 s, t_recv 1.5 s (all exact in binary).
LATENCY, BANDWIDTH = 0.25, 64.0
PROFILE = NetworkProfile({"other node": [Region(0, LATENCY, BANDWIDTH)]}, "test")


def params(m, n, nx, ny, nz, **kw):
    return WavefrontParams(nx=nx, ny=ny, nz=nz, m=m, n=n, **kw)


def test_one_rank_only_computes():
    """1x1, 2x2x3 cells, W_g 0.5 s: W = 0.5 x 1 x 2 x 2 = 2 s per tile, 3
    tiles, 8 sweeps: 24 compute events of 2 s and nothing else."""
    p = wavefront_program(params(1, 1, 2, 2, 3, wg=0.5))
    assert p.nranks == 1 and p.events_of(0) == [("compute", 2.0)] * 24


def test_one_row_of_two_ranks():
    """1x2 (one row, two columns; rank 1 east of rank 0). Ny/m = 2 cells, so
    an east-west face is 8 x 1 x 6 angles x 2 = 96 bytes. Sweep 1 starts
    south-west: rank 0 computes then sends east; rank 1 receives, computes.
    Sweep 2 starts north-east: the other way round."""
    W = 1.0 * 2 * 2                 # wg x H_tile x Nx/n x Ny/m
    one = wavefront_program(params(1, 2, 4, 2, 2, wg=1.0, n_sweeps=1))
    assert one.events_of(0) == [("compute", W), ("send", 1, 96.0)] * 2
    assert one.events_of(1) == [("recv", 0, 96.0), ("compute", W)] * 2
    two = wavefront_program(params(1, 2, 4, 2, 2, wg=1.0, n_sweeps=2))
    assert two.events_of(0)[4:] == [("recv", 1, 96.0), ("compute", W)] * 2
    assert two.events_of(1)[4:] == [("compute", W), ("send", 0, 96.0)] * 2
    full = wavefront_program(params(1, 2, 4, 2, 2, wg=1.0))
    assert np.diff(full.offsets).tolist() == [8 * 2 * 2, 8 * 2 * 2]   # sweeps x tiles x 2 events


def test_a_2x2_sweep_rank_by_rank():
    """2x2, Nx = 4, Ny = 2: Nx/n = 2, Ny/m = 1 cell. East-west faces
    8 x 6 x 1 = 48 bytes, north-south 8 x 6 x 2 = 96 bytes. Ranks 0 1 bottom,
    2 3 top. Per tile: recv x, recv y, compute, send x, send y."""
    W = 1.0 * 2 * 1
    p = wavefront_program(params(2, 2, 4, 2, 2, wg=1.0, n_sweeps=1))
    assert p.events_of(0) == [("compute", W), ("send", 1, 48.0), ("send", 2, 96.0)] * 2
    assert p.events_of(1) == [("recv", 0, 48.0), ("compute", W), ("send", 3, 96.0)] * 2
    assert p.events_of(2) == [("recv", 0, 96.0), ("compute", W), ("send", 3, 48.0)] * 2
    assert p.events_of(3) == [("recv", 2, 48.0), ("recv", 1, 96.0), ("compute", W)] * 2
    # Sweep 2 starts at the top right (rank 3): it sends west (to 2), then south (to 1).
    p2 = wavefront_program(params(2, 2, 4, 2, 1, wg=1.0, n_sweeps=2))
    assert p2.events_of(3)[3:] == [("compute", W), ("send", 2, 48.0), ("send", 1, 96.0)]
    assert p2.events_of(0)[3:] == [("recv", 1, 48.0), ("recv", 2, 96.0), ("compute", W)]
    # All eight sweeps: every rank of a 2x2 has one x and one y neighbour: 3 events a tile.
    full = wavefront_program(params(2, 2, 4, 2, 2, wg=1.0))
    assert np.diff(full.offsets).tolist() == [8 * 2 * 3] * 4
    assert int(np.sum(full.kind == SEND)) == int(np.sum(full.kind == RECV)) == 8 * 2 * 4


def test_w_pre_before_each_tile_and_the_non_wavefront_time_after_each_iteration():
    p = wavefront_program(params(1, 2, 2, 2, 2, wg=1.0, wg_pre=0.5, t_nonwavefront=7.0, n_sweeps=1),
                          iterations=2)
    W, pre = 1.0 * 1 * 2, 0.5 * 1 * 2
    tile0 = [("compute", pre), ("compute", W), ("send", 1, 96.0)]
    tile1 = [("compute", pre), ("recv", 0, 96.0), ("compute", W)]
    assert p.events_of(0) == (tile0 * 2 + [("compute", 7.0)]) * 2
    assert p.events_of(1) == (tile1 * 2 + [("compute", 7.0)]) * 2


def test_bad_iterations_is_one_line():
    with pytest.raises(ParameterError, match="iterations must be a positive whole number, got 0"):
        wavefront_program(params(1, 1, 1, 1, 1), iterations=0)


def test_a_2x2_one_tile_sweep_is_the_hand_worked_pipeline():
    """Eager sends (the contract): W = 2 s. Rank 0 computes 0-2, sends east
    2-3 (arrives 3), north 3-4.75 (arrives 4.75). Rank 1 receives 3-3.75,
    computes to 5.75, sends north 5.75-7.5. Rank 2 receives 4.75-6.25,
    computes to 8.25, sends east 8.25-9.25. Rank 3 receives from the west
    9.25-10, from the south (there since 7.5) 10-11.5, computes to 13.5.
    Table 2 agrees: Start P(2,1) = W + Total_comm_E = 3.75; Start P(1,2) =
    W + Send_E + Total_comm_S = 6.25; Start P(2,2) = max(6.25 + W +
    Total_comm_E + Receive_N, 3.75 + W + Total_comm_S) = 11.5; + W = 13.5."""
    p = wavefront_program(params(2, 2, 4, 2, 1, wg=1.0, n_sweeps=1))
    s = simulate(p, PROFILE, Placement.uniform(4, "other node"))
    assert s.total == 13.5
    assert s.finish.tolist() == [4.75, 7.5, 9.25, 13.5]
    assert s.compute.tolist() == [2.0] * 4
    assert s.send.tolist() == [2.75, 1.75, 1.0, 0.0]
    assert s.recv.tolist() == [0.0, 0.75, 1.5, 2.25]
    assert s.idle.tolist() == [0.0, 3.0, 4.75, 9.25]


def test_a_2x2_two_tile_pipeline():
    """The second tiles: rank 0 sends east 6.75-7.75 and north 7.75-9.5;
    rank 1 receives 7.75-8.5, computes to 10.5, sends north to 12.25; rank 2
    receives 9.5-11, computes to 13, sends east 13-14; rank 3 (done with
    tile 1 at 13.5) receives from the west 14-14.75, from the south
    14.75-16.25, computes to 18.25."""
    p = wavefront_program(params(2, 2, 4, 2, 2, wg=1.0, n_sweeps=1))
    s = simulate(p, PROFILE, Placement.uniform(4, "other node"))
    assert s.finish.tolist() == [9.5, 12.25, 14.0, 18.25] and s.total == 18.25


def test_blocking_sends_keep_the_latency_off_the_receivers_path():
    """WARPP's rendezvous on the one-tile 2x2: rank 0 sends east 2-3 (rank
    1 receives 2-2.75), north 3-4.75 (rank 2 receives 3-4.5). Rank 1
    computes 2.75-4.75 and must wait for rank 3, which first receives from
    rank 2: rank 2 computes 4.5-6.5, sends 6.5-7.5 (rank 3 receives
    6.5-7.25); then rank 1's send 7.25-9 (rank 3 receives 7.25-8.75);
    rank 3 computes to 10.75."""
    p = wavefront_program(params(2, 2, 4, 2, 1, wg=1.0, n_sweeps=1))
    s = simulate(p, PROFILE, Placement.uniform(4, "other node"), sends="blocking")
    assert s.finish.tolist() == [4.75, 9.0, 7.5, 10.75] and s.sends == "blocking"


def test_core_speed_divides_compute_and_to_dict_is_plain():
    p = wavefront_program(params(2, 2, 4, 2, 1, wg=1.0, n_sweeps=1))
    s = simulate(p, PROFILE, Placement.uniform(4, "other node"), core_speed=2.0)
    assert s.compute.tolist() == [1.0] * 4
    # The critical path runs through the computes of ranks 0, 2 and 3 (rank 1's
    # message waits at rank 3): each 1 s shorter.
    assert s.total == 13.5 - 3 * 1.0
    d = s.to_dict()
    assert d["total_s"] == s.total and d["per_rank_s"]["idle"] == s.idle.tolist()
    assert d["placement"]["node"] == [0, 1, 2, 3] and d["sends"] == "eager"


def test_the_pair_class_picks_the_region():
    """Ranks 0 and 1 share a cache (latency 0, 96 bytes/s), 0-2 and 1-3 cross
    nodes: the 1x2 row's message pays the on-chip rate."""
    profile = NetworkProfile({"same cache": [Region(0, 0.0, 96.0)], "other node": [Region(0, LATENCY, BANDWIDTH)]})
    p = wavefront_program(params(1, 2, 4, 2, 1, wg=1.0, n_sweeps=1))        # one 96-byte message
    s = simulate(p, profile, Placement.uniform(2, "same cache"))
    # 0: compute 0-4, send 4-5; 1: receive 5-6, compute 6-10.
    assert s.finish.tolist() == [5.0, 10.0]


def test_eager_chain_ring_and_deadlock():
    t_send, t_recv = 0.5, 0.25
    chain = Program.from_lists([[("compute", 1.0), ("send", 1, 8)],
                                [("recv", 0, 8), ("compute", 2.0), ("send", 2, 8)], [("recv", 1, 8)]])
    d = np.select([chain.kind == COMPUTE, chain.kind == SEND], [chain.value, t_send], t_recv)
    # 0: 1 s, send to 1.5; 1: receive 1.5-1.75, compute to 3.75, send to 4.25; 2: receive 4.25-4.5.
    assert replay(chain, d, sends="eager").finish.tolist() == [1.5, 4.25, 4.5]
    n = 5
    ring = Program.from_lists([[("send", 1, 8), ("recv", n - 1, 8)]] +
                              [[("recv", i - 1, 8), ("send", (i + 1) % n, 8)] for i in range(1, n)])
    d = np.where(ring.kind == SEND, t_send, t_recv)
    r = replay(ring, d, sends="eager")
    # Each hop costs t_send + t_recv = 0.75 s: rank k has received at 0.75 k.
    assert r.finish.tolist() == pytest.approx([n * 0.75] + [k * 0.75 + t_send for k in range(1, n)])
    # Both sending first cannot deadlock eager sends; both receiving first can.
    swap = Program.from_lists([[("send", 1, 8), ("recv", 1, 8)], [("send", 0, 8), ("recv", 0, 8)]])
    assert replay(swap, np.where(swap.kind == SEND, t_send, t_recv), sends="eager").total == 0.75
    stuck = Program.from_lists([[("recv", 1, 8), ("send", 1, 8)], [("recv", 0, 8), ("send", 0, 8)],
                                [("compute", 1.0)]])
    with pytest.raises(Deadlock) as err:
        replay(stuck, np.ones(stuck.nevents), sends="eager")
    assert str(err.value) == ("deadlock: 2 rank(s) wait for each other: rank 0 waits to receive from rank 1 "
                              "(its event 0); rank 1 waits to receive from rank 0 (its event 0)")


def test_a_receive_nobody_sends_is_one_line():
    with pytest.raises(ProgramError) as err:
        Program.from_lists([[("recv", 1, 8)], [("compute", 1.0)]])
    assert "\n" not in str(err.value) and "every receive needs its send" in str(err.value)


@pytest.mark.parametrize("call,error,message", [
    (lambda p: simulate(p, PROFILE, Placement.uniform(3, "other node")), PlacementError,
     "the placement has 3 ranks, the program 4"),
    (lambda p: simulate(p, PROFILE, Placement.uniform(4, "same cache")), ProfileError,
     "has no 'same cache' class, which the placement needs"),
    (lambda p: simulate(p, PROFILE, Placement.uniform(4, "other node"), core_speed=0.0), SimulationError,
     "core_speed must be a finite number > 0"),
    (lambda p: simulate(p, PROFILE, Placement.uniform(4, "other node"), sends="lazy"), SimulationError,
     "sends must be one of blocking, eager"),
])
def test_simulation_errors_are_one_line(call, error, message):
    p = wavefront_program(params(2, 2, 4, 2, 1, wg=1.0, n_sweeps=1))
    with pytest.raises(error, match=message) as err:
        call(p)
    assert "\n" not in str(err.value)


def test_halo_exchange_example():
    """docs/simulate.md's halo exchange (4 ranks in a ring, 1 ms of compute,
    64 KiB to each neighbour, even ranks send first), blocking sends, all
    pairs off node on Table 3. By hand, with ts = 3.63 us + 65536 B / 0.73
    GB/s and tr = 65536 B / 0.73 GB/s: in each step the exchange partner of
    a rank that just sent becomes free ts - tr after it, so each round the
    odd ranks end 4 ts after their start and the even ranks wait ts - tr at
    two of their four steps (and once more, round 2, for the odd ranks
    that started late): total 2 ms + 8 ts; rank 0 idles 3 (ts - tr)."""
    table = {"classes": {"off-node": [{"from_bytes": 0, "latency_us": 2.64, "bandwidth_GBps": 0.46},
                                      {"from_bytes": 2048, "latency_us": 3.63, "bandwidth_GBps": 0.73}]}}
    P, halo = 4, 65536
    ranks = []
    for r in range(P):
        left, right = (r - 1) % P, (r + 1) % P
        exchange = [("send", right, halo), ("recv", left, halo), ("send", left, halo), ("recv", right, halo)]
        if r % 2:
            exchange = [("recv", left, halo), ("send", right, halo), ("recv", right, halo), ("send", left, halo)]
        ranks.append(([("compute", 1e-3)] + exchange) * 2)
    run = simulate(Program.from_lists(ranks), NetworkProfile.from_table(table), Placement.uniform(P, "other node"),
                   sends="blocking")
    tr = halo / 0.73e9
    ts = tr + 3.63e-6
    assert run.total == pytest.approx(2e-3 + 8 * ts, rel=1e-12)
    assert np.allclose(run.compute, 2e-3)
    assert run.idle[0] == pytest.approx(3 * (ts - tr), rel=1e-9)
