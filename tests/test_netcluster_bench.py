"""benchmarks/bench_netmap.py: what the shaping implies for random
bisections (shortest-path routes on netcluster's ring, each flow's max-min
fair share of its links), against hand-worked answers; and bad input is one
line and exit status 2 before anything is made (no root needed)."""
import importlib.util
import os
import random
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARKS = os.path.join(ROOT, "benchmarks")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import netcluster  # noqa: E402

sys.path.insert(0, BENCHMARKS)
_spec = importlib.util.spec_from_file_location("bench_netmap", os.path.join(BENCHMARKS, "bench_netmap.py"))
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_ring_paths_follow_netclusters_routes():
    assert bench.ring_path(0, 2, 4) == [("f", 0), ("f", 1)]            # distance 2 of 4: forward on ties
    assert bench.ring_path(2, 0, 4) == [("f", 2), ("f", 3)]
    assert bench.ring_path(0, 3, 4) == [("b", 3)]                       # backward over link 3 (3 <-> 0)
    assert bench.ring_path(5, 2, 8) == [("b", 4), ("b", 3), ("b", 2)]
    # The same hops as netcluster's routes, for every pair of an 8-ring.
    for a in range(8):
        for b in range(8):
            if a != b:
                assert len(bench.ring_path(a, b, 8)) == min((b - a) % 8, (a - b) % 8)
                assert {line.split()[6] for line in netcluster.plan_routes("ring", 8)[a]
                        if line.startswith(f"route add 10.78.0.{b + 1}/32 ")} == \
                    {f"rn{a}" if bench.ring_path(a, b, 8)[0][0] == "f" else f"rp{a}"}


def test_max_min_shares_by_progressive_filling():
    # y is shared by three flows (a third each); x then gives the rest to the flow alone on it.
    shares = bench.max_min_shares([["x"], ["x", "y"], ["y"], ["y"]], 3.0)
    assert shares == pytest.approx([2.0, 1.0, 1.0, 1.0])
    assert bench.max_min_shares([["x"], ["x"]], 1.0) == pytest.approx([0.5, 0.5])
    assert bench.max_min_shares([["x"], ["y"]], 1.0) == pytest.approx([1.0, 1.0])


def test_ring_bisections_with_known_shares():
    # 4-ring: partners at distance 2 both go forward, two flows per forward link; neighbours get the link.
    assert bench.ring_flow_shares([(0, 2), (1, 3)], 4, 1.0) == pytest.approx([0.5] * 4)
    assert bench.ring_flow_shares([(0, 1), (2, 3)], 4, 1.0) == pytest.approx([1.0] * 4)
    assert bench.ring_flow_shares([(0, 3), (1, 2)], 4, 1.0) == pytest.approx([1.0] * 4)
    # The three matchings of 4 nodes, equally likely: a mean of 5/6 of the link per flow.
    flows = bench.expected_ring(4, 1.0, [[(0, 1), (2, 3)], [(0, 3), (1, 2)], [(0, 2), (1, 3)]])
    assert sum(flows) / len(flows) == pytest.approx(5 / 6)
    # Drawn at random, the mean tends to the same 5/6.
    drawn = bench.expected_ring(4, 1.0, 3000, seed=7)
    assert sum(drawn) / len(drawn) == pytest.approx(5 / 6, abs=0.02)


def test_random_bisections_pair_every_node_once():
    rng = random.Random(3)
    for n in (4, 7, 8):
        pairs = bench.random_bisection(n, rng)
        members = [x for pair in pairs for x in pair]
        assert len(pairs) == n // 2 and len(set(members)) == len(members) and set(members) <= set(range(n))


@pytest.mark.parametrize("args, start", [
    (["--runs", "0"], "--runs must be at least 1, got 0"),
    (["--nodes", "3"], "--nodes must be 4 to 181"),
    (["--only", "link,nope"], "--only takes parts of link,node,clean,bisection,time"),
    (["--link", "2-2"], "--slow-link 2-2:0.5: a link joins two different nodes"),
    (["--link", "2-9"], "--slow-link 2-9:0.5: nodes are numbered 0 to 7"),
    (["--factor", "0"], "factor must be a number above 0 and at most 1"),
    (["--cpu-cap", "2"], "fraction of one CPU must be a number from 0.01"),
    (["--rate", "0"], "the link rate must be a finite number"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, start):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, os.path.join(BENCHMARKS, "bench_netmap.py"), *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert len(lines) == 1 and lines[0].startswith("bench_netmap.py: ") and start in lines[0], proc.stderr
