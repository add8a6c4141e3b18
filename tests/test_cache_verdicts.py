"""What a sweep's placement allows, and how measured levels are set beside
hwloc's (pure functions, known answers)."""
from dataclasses import dataclass

import numpy as np
import pytest

from hpcbench.cache._compare import align, judge
from hpcbench.cache._placement import classify, combined, consecutive_share

KIB, MIB = 1 << 10, 1 << 20


@dataclass(frozen=True)
class HwCache:
    level: int
    size: int


ZEN = [HwCache(1, 48 * KIB), HwCache(2, MIB), HwCache(3, 32 * MIB)]


def test_consecutive_share_counts_pairs_of_known_frames():
    assert consecutive_share([10, 11, 12, 13]) == 1.0
    assert consecutive_share([10, 11, 40, 41]) == pytest.approx(2 / 3)
    assert consecutive_share([10, -1, 12, 13]) == 1.0        # only pairs whose frames are both known
    assert consecutive_share([-1, -1, -1]) is None


def test_placement_kinds():
    pages = 256
    run = np.arange(1000, 1000 + pages, dtype=float)
    scattered = np.random.default_rng(0).permutation(pages * 50)[:pages].astype(float)
    assert classify(run, -1, pages * 4096, 4096, None).kind == "contiguous"
    assert classify(scattered, -1, pages * 4096, 4096, None).kind == "random"
    assert classify(np.full(pages, -1.0), -1, pages * 4096, 4096, None).kind == "unknown"
    huge = classify(np.full(pages, -1.0), pages * 4096, pages * 4096, 4096, None)
    assert huge.kind == "contiguous" and huge.huge_share == 1.0 and "huge pages back 100%" in huge.why
    # A guest's frames are the guest's: the host's placement is unknown.
    guest = classify(run, pages * 4096, pages * 4096, 4096, "the CPU reports a hypervisor")
    assert guest.kind == "unknown" and "virtual machine" in guest.why
    assert combined([classify(run, -1, pages * 4096, 4096, None),
                     classify(scattered, -1, pages * 4096, 4096, None)]).kind == "random"


def test_alignment_by_size_keeps_the_order():
    assert align([48 * KIB, MIB, 32 * MIB], [48 * KIB, MIB, 32 * MIB]) == [0, 1, 2]
    assert align([32 * KIB, 1536 * KIB, 32 * MIB], [32 * KIB, 32 * MIB]) == [0, None, 1]
    assert align([32 * KIB], [32 * KIB, 512 * KIB]) == [0]


def test_every_level_that_agrees_is_a_cache():
    verdicts, missing = judge([47 * KIB, MIB, 30 * MIB], ZEN)
    assert [(v.number, v.hwloc_size, v.status) for v in verdicts] == [
        (1, 48 * KIB, "cache"), (2, MIB, "cache"), (3, 32 * MIB, "cache")]
    assert missing == []


def test_a_shared_cache_under_load_is_an_effective_capacity():
    verdicts, missing = judge([48 * KIB, MIB, 6 * MIB], ZEN)
    assert verdicts[2].status == "flagged" and verdicts[2].number == 3
    assert verdicts[2].note.startswith("effective capacity 6 MiB under load; hwloc: 32 MiB")
    assert missing == []


def test_a_step_hwloc_does_not_know_is_flagged_not_a_cache():
    verdicts, missing = judge([48 * KIB, MIB, 2560 * KIB, 32 * MIB], ZEN)
    assert [v.status for v in verdicts] == ["cache", "cache", "flagged", "cache"]
    assert "hwloc does not report" in verdicts[2].note and verdicts[2].hwloc_size is None


def test_an_unseen_cache_is_said_in_words():
    verdicts, missing = judge([48 * KIB, MIB], ZEN)
    assert [v.status for v in verdicts] == ["cache", "cache"]
    assert missing == ["hwloc's L3 (32 MiB) shows no latency step of its own in the sweep"]


def test_without_hwloc_every_level_is_reported():
    verdicts, missing = judge([32 * KIB, 256 * KIB], [])
    assert [(v.number, v.status) for v in verdicts] == [(1, "cache"), (2, "cache")] and missing == []
