"""Shared test set-up and the rules of the `slow` marker.

`tools/test.sh --fast` runs `pytest -m "not slow"`. What must be marked slow
is checked here, so a new test cannot quietly make the fast lane long:
- a test that starts mpiexec (or mpirun) with more than 2 ranks in all
  fails at the launch unless it is marked slow (the ranks are counted from
  the command line: -n/-np of every MPMD part);
- a test that uses the emulated cluster (the `cluster` fixture of
  tests/test_network_emulated.py) is refused at collection unless marked slow.
"""
import os
import subprocess
import sys

import pytest

# Make tests/cachesim.py and the other helpers importable as plain modules.
sys.path.insert(0, os.path.dirname(__file__))

#: Ranks a test not marked slow may start in one mpiexec.
FAST_LANE_RANKS = 2
LAUNCHERS = ("mpiexec", "mpirun", "mpiexec.mpich", "mpiexec.hydra", "mpiexec.openmpi", "orterun")
RANK_FLAGS = ("-n", "-np", "--np", "-c")


def ranks_launched(argv) -> int:
    """Ranks an mpiexec command line starts (0 when it is no mpiexec or names
    no count, e.g. a rankfile alone): the -n of every MPMD part, summed."""
    if isinstance(argv, (str, bytes)) or not argv:
        return 0
    words = [os.fsdecode(w) if isinstance(w, bytes) else str(w) for w in argv]
    if os.path.basename(words[0]) not in LAUNCHERS:
        return 0
    total = 0
    for flag, value in zip(words, words[1:]):
        if flag in RANK_FLAGS and value.isdigit():
            total += int(value)
    return total


def pytest_collection_modifyitems(config, items):
    unmarked = [item.nodeid for item in items
                if "cluster" in getattr(item, "fixturenames", ()) and item.get_closest_marker("slow") is None]
    if unmarked:
        raise pytest.UsageError("tests on the emulated cluster must be marked slow: " + ", ".join(unmarked))


class _CountingPopen(subprocess.Popen):
    """subprocess.Popen that refuses an mpiexec of more than FAST_LANE_RANKS
    ranks in a test not marked slow (subprocess.run goes through it too)."""
    current_test = None

    def __init__(self, args, *rest, **kwargs):
        item = _CountingPopen.current_test
        n = ranks_launched(args)
        if item is not None and n > FAST_LANE_RANKS and item.get_closest_marker("slow") is None:
            pytest.fail(f"{item.nodeid} starts mpiexec with {n} ranks: mark it slow (more than "
                        f"{FAST_LANE_RANKS} ranks stay out of tools/test.sh --fast)", pytrace=False)
        super().__init__(args, *rest, **kwargs)


@pytest.fixture(autouse=True)
def _mpi_ranks_follow_the_slow_marker(request, monkeypatch):
    monkeypatch.setattr(subprocess, "Popen", _CountingPopen)
    _CountingPopen.current_test = request.node
    try:
        yield
    finally:
        _CountingPopen.current_test = None
