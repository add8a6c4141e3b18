"""Measured contention for a node's network access (ratNC) in the model,
the simulator, the what-if and the study: hand-computed values on a
synthetic profile and a synthetic network-access record (_contention.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from hpcbench.predict import (
    Machine,
    NetworkProfile,
    Placement,
    PredictError,
    ProfileError,
    Region,
    StudyInputs,
    WavefrontParams,
    allocate,
    parse_what_if,
    simulate,
    study,
    wavefront,
    wavefront_program,
)
from hpcbench.predict._contention import AccessContention, array_slowdowns, pair_slowdowns
from hpcbench.predict._profile import OverheadTable
from hpcbench.predict._whatif import degrade_off_node

US = 1e-6
#: Synthetic: one cache shared by a node's two cores (1 us, 1 GB/s), nodes
#: 10 us and 100 MB/s apart; ratNC[2] = 2.5.
PROFILE = NetworkProfile({"same cache": [Region(0, 1 * US, 1e9)], "other node": [Region(0, 10 * US, 1e8)]},
                         "synthetic")
RATNC = AccessContention((1.0, 2.5), "synthetic ratNC")
#: 20 x 20 x 10 cells on 2 x 2 processes: 10 x 10 cells a tile (W = 100 us
#: at 1 us a cell), faces of 8 bytes x 1 angle x 10 cells = 80 bytes.
PARAMS = WavefrontParams(20, 20, 10, m=2, n=2, angles=1, wg=1e-6)


def _rows_on_nodes() -> Placement:
    """2 nodes of one package of 2 cores, node fill: row 1 (ranks 0, 1) on
    node 0, row 2 (ranks 2, 3) on node 1; E/W pairs share a cache, N/S pairs
    cross nodes, two ranks of each node at once."""
    return allocate(4, Machine(2, 1, 2), "node-fill")


def test_ratio_table_and_extrapolation():
    a = AccessContention((1.0, 1.8, 2.7), "t")
    assert a.ratio(1) == 1.0 and a.ratio(3) == 2.7
    # Beyond K = 3 measured: ratNC[3] x k / 3.
    assert np.allclose(a.ratio([4, 6]), [2.7 * 4 / 3, 2.7 * 2])
    assert "[2] 1.80" in a.describe() and "from t" in a.describe()


@pytest.mark.parametrize("ratios, message", [
    ((), "needs 1 to"),
    ((2.0, 3.0), "ratNC\\[1\\] is the reference and must be 1"),
    ((1.0, 0.0), "ratNC\\[2\\] must be a finite number > 0"),
    ((1.0, float("nan")), "ratNC\\[2\\] must be"),
])
def test_bad_ratios_are_one_line(ratios, message):
    with pytest.raises(PredictError, match=message) as err:
        AccessContention(ratios)
    assert "\n" not in str(err.value)


def test_mapping_needs_every_count():
    assert AccessContention.from_mapping({"1": 1.0, "2": 2.0}).ratios == (1.0, 2.0)
    with pytest.raises(PredictError, match="one ratio per processes per node"):
        AccessContention.from_mapping({1: 1.0, 3: 2.0})
    with pytest.raises(PredictError, match="ratNC\\[2\\] must be"):
        AccessContention.from_mapping({1: 1.0, 2: True})


def test_sharing_ranks_counted_per_node():
    node = np.array([0, 0, 1, 1])
    # Rows on nodes (2 x 2): the N/S pairs 0-2 and 1-3 cross, two ranks of each node: ratNC[2].
    ew, ns = array_slowdowns(RATNC, node, np.arange(4).reshape(2, 2))
    assert ew is not None and ns is not None
    assert ew.tolist() == [[1.0], [1.0]] and ns.tolist() == [[2.5, 2.5]]
    # 1 x 4 with node fill: only 1-2 crosses, one rank of each node: ratNC[1] = 1.
    ew, ns = array_slowdowns(RATNC, node, np.arange(4).reshape(1, 4))
    assert ew is not None and ew.tolist() == [[1.0, 1.0, 1.0]] and ns is not None and ns.size == 0
    # Directed: two senders of node 0 into one receiver of node 1 are two sharing ranks.
    assert pair_slowdowns(RATNC, node, [0, 1], [2, 2]).tolist() == [2.5, 2.5]
    assert pair_slowdowns(None, node, [0], [2]) is None
    assert pair_slowdowns(RATNC, node, [0, 2], [1, 3]) is None     # nothing leaves its node


def test_message_costs_by_hand():
    x = np.array([80.0, 80.0])
    klass = np.array([3, 3])                # "other node"
    c = PROFILE.message_costs(x, klass, np.array([1.0, 2.5]))
    # t_send = x r / B + n_l, t_recv = x r / B.
    assert np.allclose(c.send, [10.8 * US, 12.0 * US]) and np.allclose(c.recv, [0.8 * US, 2.0 * US])
    assert np.allclose(c.total, [11.6 * US, 14.0 * US]) and np.allclose(c.wire, 0.0)
    # With overheads: the CPU's o_s, o_r stay, the link's g and x / B grow by ratNC.
    split = NetworkProfile(PROFILE.classes, "split", {"other node": OverheadTable(
        np.array([0.0, 1000.0]), np.array([2e-6, 2e-6]), np.array([1e-6, 1e-6]), np.array([4e-6, 4e-6]))})
    c = split.message_costs(x, klass, np.array([1.0, 2.5]))
    assert np.allclose(c.send, 2e-6) and np.allclose(c.recv, 1e-6)
    assert np.allclose(c.wire, [4e-6, 10e-6])
    assert np.allclose(c.total, [10.8 * US, 12.0 * US])     # max(n_l + x r / B, o_s + o_r)


def _by_hand(t_send_ns: float, t_recv_ns: float) -> float:
    """Table 2 on the 2 x 2 array of _rows_on_nodes, in seconds: W 100 us,
    E/W faces within a cache (t_send 1.08 us, t_recv 0.08 us), N/S faces
    between nodes (t_send_ns, t_recv_ns, microseconds), 10 tiles."""
    w, ts_ew, tr_ew = 100.0, 1.08, 0.08
    start_21 = w + ts_ew + tr_ew                         # P(2,1): via the west, row 1 has no Receive_N
    start_12 = w + ts_ew + t_send_ns + t_recv_ns         # P(1,2): via the south, after Send_E
    start_22 = max(start_12 + w + ts_ew + tr_ew + t_recv_ns, start_21 + w + 0.0 + t_send_ns + t_recv_ns)
    stack = 10 * max(w + ts_ew + t_send_ns, tr_ew + w + t_send_ns, t_recv_ns + w + ts_ew, tr_ew + t_recv_ns + w)
    return (2 * start_12 + 4 * start_22 + 8 * stack) * US


def test_model_applies_ratnc_to_the_pairs_that_share_the_access():
    placement = _rows_on_nodes()
    plain = wavefront(PARAMS, PROFILE, placement)
    shared = wavefront(PARAMS, PROFILE.with_access(RATNC), placement)
    assert plain.time == pytest.approx(_by_hand(10.8, 0.8), rel=1e-12)       # 10034.32 us
    assert shared.time == pytest.approx(_by_hand(12.0, 2.0), rel=1e-12)      # 10149.52 us
    assert shared.time == pytest.approx(10149.52 * US, rel=1e-12)
    # Every crossing pair has k = 2 here: the same as the off-node bandwidth / 2.5.
    slower = PROFILE.scaled(bandwidth=1 / 2.5, classes=["other node"])
    assert shared.time == pytest.approx(wavefront(PARAMS, slower, placement).time, rel=1e-12)


def test_one_rank_per_node_pays_nothing():
    params = WavefrontParams(40, 10, 10, m=1, n=4, angles=1, wg=1e-6)
    placement = _rows_on_nodes()                        # ranks 0, 1 | 2, 3: only 1-2 crosses
    assert wavefront(params, PROFILE.with_access(RATNC), placement).time == wavefront(
        params, PROFILE, placement).time


def test_simulation_applies_the_same_ratnc():
    placement = _rows_on_nodes()
    program = wavefront_program(PARAMS)
    shared = simulate(program, PROFILE.with_access(RATNC), placement)
    slower = simulate(program, PROFILE.scaled(bandwidth=1 / 2.5, classes=["other node"]), placement)
    plain = simulate(program, PROFILE, placement)
    assert shared.total == pytest.approx(slower.total, rel=1e-12) and shared.total > plain.total
    assert shared.total == pytest.approx(wavefront(PARAMS, PROFILE.with_access(RATNC), placement).time, rel=0.02)
    blocking = simulate(program, PROFILE.with_access(RATNC), placement, sends="blocking")
    assert blocking.total == pytest.approx(simulate(program, PROFILE.scaled(bandwidth=1 / 2.5, classes=["other node"]),
                                                    placement, sends="blocking").total, rel=1e-12)


def test_a_coupled_face_pays_the_same_ratnc():
    """Faces above the eager limit between nodes (80 bytes > 64) are coupled
    to their receive (_coupling.py): priced with the measured ratNC too, as
    the off-node bandwidth / 2.5, never at the uncontended cost."""
    from dataclasses import replace
    placement = _rows_on_nodes()
    program = wavefront_program(replace(PARAMS, eager_limits=(("other node", 64),)))
    shared = simulate(program, PROFILE.with_access(RATNC), placement)
    slower = simulate(program, PROFILE.scaled(bandwidth=1 / 2.5, classes=["other node"]), placement)
    plain = simulate(program, PROFILE, placement)
    assert shared.total == pytest.approx(slower.total, rel=1e-12) and shared.total > plain.total


def test_cores_per_node_what_if_says_its_source():
    machine = Machine(4, 1, 1)
    measured = PROFILE.with_access(RATNC)
    what = parse_what_if("cores-per-node=x2").resolved(measured)
    assert what.contention == "ratnc" and "measured ratNC [1] 1.00, [2] 2.50" in what.describe()
    proj = what.apply(measured, machine)
    assert proj.profile.access == RATNC and proj.machine == Machine(4, 1, 2)
    # On the projected machine two ranks of a node cross at once: ratNC[2] applies.
    params = WavefrontParams(20, 20, 10, m=2, n=2, angles=1, wg=1e-6)
    placement = allocate(4, proj.machine, "node-fill")
    assert wavefront(params, proj.profile, placement).time == pytest.approx(10149.52 * US, rel=1e-12)
    # Without a measured ratNC: the paper's Table 5 percentages, and said so.
    paper = parse_what_if("cores-per-node=x2").resolved(PROFILE)
    assert paper.contention == "table5" and "the paper's Table 5 percentages, no measured ratNC" in paper.describe()
    assert paper.apply(PROFILE, machine).profile.classes == degrade_off_node(PROFILE).classes
    # Table 5 asked for explicitly: ratNC is not applied on top of it.
    table5 = parse_what_if("cores-per-node=x2,contention=table5").resolved(measured)
    assert table5.apply(measured, machine).profile.access is None
    assert "measured ratNC not used" in table5.describe()
    none = parse_what_if("contention=none").resolved(measured)
    assert none.apply(measured).profile.access is None and none.describe() == "no contention for the network access"
    with pytest.raises(PredictError, match="contention=ratnc .* lacks"):
        parse_what_if("contention=ratnc").apply(PROFILE)


def test_table_carries_access(tmp_path):
    table = PROFILE.with_access(RATNC).to_dict()
    assert table["access"]["rat_nc"] == {"1": 1.0, "2": 2.5}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(table))
    back = NetworkProfile.from_table(str(path))
    assert back.access is not None and back.access.ratios == (1.0, 2.5)
    table["access"] = {"rat_nc": {"1": 1.0, "2": -1}}
    path.write_text(json.dumps(table))
    with pytest.raises(ProfileError, match="access: ratNC\\[2\\] must be a finite number > 0") as err:
        NetworkProfile.from_table(str(path))
    assert "\n" not in str(err.value)


def _access_results(tmp_path, ratios: dict) -> str:
    """A results file with a synthetic network-access record (the shipped
    example's, its ratNC replaced)."""
    from hpcbench import examples
    with open(examples.resolve("example:network-example.json")) as f:
        data = json.load(f)
    for record in data["benchmarks"]:
        if record["name"] == "network-access":
            record["derived"]["rat_nc"] = {str(k): v for k, v in ratios.items()}
    path = tmp_path / "access.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_study_takes_an_access_results_file(tmp_path):
    access = _access_results(tmp_path, {1: 1.0, 2: 2.5})
    inputs = dict(grid="20x20x10", procs="2x2", profile=PROFILE, machine="2x1x2", wg=1e-6, angles=1)
    shared = study(StudyInputs(**inputs, access_results=access))
    assert shared.prediction.time == pytest.approx(10149.52 * US, rel=1e-12)
    assert any("network access shared as measured ratNC [1] 1.00, [2] 2.50" in line for line in shared.lines())
    off = study(StudyInputs(**inputs, access_results=access, what_if="contention=none"))
    assert off.prediction.time == pytest.approx(10034.32 * US, rel=1e-12)
    assert any("what-if: no contention for the network access" in line for line in off.lines())
    plain = study(StudyInputs(**inputs))
    assert plain.prediction.time == pytest.approx(10034.32 * US, rel=1e-12)
    assert shared.to_dict()["profile"]["access"]["rat_nc"]["2"] == 2.5


def test_study_refuses_a_file_without_network_access(tmp_path):
    from hpcbench import examples
    comm = str(examples.resolve("example:comm-example.json"))
    with pytest.raises(PredictError, match="has no finished network-access record") as err:
        study(StudyInputs(grid="20x20x10", procs="2x2", profile=PROFILE, machine="2x1x2", wg=1e-6,
                          access_results=comm))
    assert "\n" not in str(err.value)


def _cli(*argv: str) -> tuple[int, str, str]:
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from hpcbench.cli import main
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["predict", "wavefront", *argv])
    return status, out.getvalue(), err.getvalue()


CLI_BASE = ("--profile", "example:francesca-profile.json", "--grid", "240", "--procs", "16x16", "--machine",
            "64x2x2", "--wg", "9.4e-8")


def test_cli_says_which_contention_it_used(tmp_path):
    access = _access_results(tmp_path, {1: 1.0, 2: 1.5})
    status, out, err = _cli(*CLI_BASE, "--access-results", access, "--what-if", "cores-per-node=x2")
    assert status == 0, err
    assert "what-if: cores per package x2, contention off node from measured ratNC [1] 1.00, [2] 1.50" in out
    status, out, err = _cli(*CLI_BASE, "--what-if", "cores-per-node=x2")
    assert status == 0 and "contention off node from the paper's Table 5 percentages, no measured ratNC" in out


@pytest.mark.parametrize("extra, message", [
    (("--access-results", "/no/such/file.json"), "/no/such/file.json"),
    (("--what-if", "contention=ratnc"), "contention=ratnc prices the network access by the measured ratNC"),
])
def test_cli_bad_contention_input_is_one_line(extra, message):
    status, out, err = _cli(*CLI_BASE, *extra)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and message in err, err
