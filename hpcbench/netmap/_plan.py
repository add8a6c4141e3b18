"""Who talks to whom, and when: the schedules of the network map and of
the random bisections. Pure functions of the number of members (nodes or
ranks) and a seed, so every rank computes the same schedule and tests can
check it by hand.

* shifts (mpiGraph): in step d = 1 .. n-1 every member i sends to
  (i + d) mod n and receives from (i - d) mod n: every ordered pair once,
  every member busy sending and receiving in every step;
* rounds (the circle method of round-robin tournaments): n-1 rounds (n even;
  n rounds with one member idle when n is odd) of disjoint pairs, every
  unordered pair exactly once: the latency pairs, all busy at once;
* random bisections (Netgauge's effective bisection bandwidth): the members
  shuffled, the first half paired with the second, each pair exchanging
  both ways at once; an odd member out sits the bisection out."""
from __future__ import annotations

import random


def shift_partners(n: int, d: int, i: int) -> tuple[int, int]:
    """(destination, source) of member i in shift step d."""
    return (i + d) % n, (i - d) % n


def rounds(n: int) -> list[list[tuple[int, int]]]:
    """Round-robin rounds of disjoint pairs (a, b), a < b, covering every
    unordered pair of 0 .. n-1 exactly once (the circle method: member n-1,
    or a ghost when n is odd, stays put while the others rotate)."""
    if n < 2:
        return []
    size = n if n % 2 == 0 else n + 1         # a ghost member n pads an odd count
    others = list(range(size - 1))
    out = []
    for _ in range(size - 1):
        ring = others + [size - 1]
        pairs = [(ring[k], ring[size - 1 - k]) for k in range(size // 2)]
        out.append([(min(a, b), max(a, b)) for a, b in pairs if a < n and b < n])
        others = others[-1:] + others[:-1]
    return out


def partner_in(pairs: list[tuple[int, int]], i: int) -> int:
    """Member i's partner among `pairs`, -1 if it has none."""
    for a, b in pairs:
        if i in (a, b):
            return b if i == a else a
    return -1


def random_bisections(n: int, count: int, seed: int) -> list[list[tuple[int, int]]]:
    """`count` random bisections of n members: each a list of n // 2 pairs
    (a, b), a from one half and b from the other, as Netgauge draws them."""
    draw = random.Random(seed)
    out = []
    for _ in range(count):
        members = list(range(n))
        draw.shuffle(members)
        half = n // 2
        out.append([(members[k], members[half + k]) for k in range(half)])
    return out
