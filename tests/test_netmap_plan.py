"""The schedules of the network map and the bisections (hpcbench.netmap._plan): known answers."""
import itertools

import pytest

from hpcbench.netmap._plan import partner_in, random_bisections, rounds, shift_partners


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 9, 16])
def test_rounds_cover_every_pair_once_with_disjoint_pairs(n):
    schedule = rounds(n)
    pairs = [pair for rnd in schedule for pair in rnd]
    assert sorted(pairs) == list(itertools.combinations(range(n), 2))
    for rnd in schedule:
        members = [m for pair in rnd for m in pair]
        assert len(members) == len(set(members))
    assert len(schedule) == (n - 1 if n % 2 == 0 else n)


def test_shift_steps_give_every_ordered_pair_once():
    n = 5
    flows = [(i, shift_partners(n, d, i)[0]) for d in range(1, n) for i in range(n)]
    assert sorted(flows) == [(a, b) for a in range(n) for b in range(n) if a != b]
    # the source of i in step d is the member whose destination is i
    assert all(shift_partners(n, d, shift_partners(n, d, i)[1])[0] == i for d in range(1, n) for i in range(n))


def test_partner_in():
    assert partner_in([(0, 3), (1, 2)], 3) == 0
    assert partner_in([(0, 3), (1, 2)], 1) == 2
    assert partner_in([(0, 3)], 5) == -1


@pytest.mark.parametrize("n", [4, 7, 8])
def test_random_bisections_pair_the_two_halves(n):
    plan = random_bisections(n, 50, seed=3)
    assert plan == random_bisections(n, 50, seed=3)            # every rank draws the same
    assert plan != random_bisections(n, 50, seed=4)
    for pairs in plan:
        assert len(pairs) == n // 2
        members = [m for pair in pairs for m in pair]
        assert len(set(members)) == len(members) and set(members) <= set(range(n))
    # every member meets every other one sometime over many draws
    met = {frozenset(pair) for pairs in random_bisections(n, 400, seed=1) for pair in pairs}
    assert len(met) == n * (n - 1) // 2
