"""The OSU/IMB families' statistics on hand-made samples (known answers),
the size lists, and the option rules (no MPI, no hardware)."""
import dataclasses

import numpy as np
import pytest

from hpcbench import _estimate
from hpcbench._errors import OptionError
from hpcbench._protocol import Job
from hpcbench.micro import COLLECTIVES_BENCHMARK, NBC_BENCHMARK, P2P_BENCHMARK, TESTS, overlap_percent, parse_sizes
from hpcbench.micro._options import MicroOptions
from hpcbench.micro._stats import Sampling, bandwidth_point, latency_point, nbc_point
from hpcbench.topology import Topology

NAN = float("nan")
SAMPLING = Sampling(samples=4, inner=1, warmup=1)


def test_latency_point_slowest_rank_osu_and_imb():
    # rank 0: 1, 2, 3, 4 us; rank 1: 3, 1, 5, 1 us; rank 2 took no part
    seconds = np.array([[1, 2, 3, 4], [3, 1, 5, 1], [NAN] * 4]) * 1e-6
    p = latency_point(8, seconds, SAMPLING)
    # slowest per sample: 3, 2, 5, 4 -> median 3.5
    assert p.median == pytest.approx(3.5e-6)
    # per-rank means 2.5 and 2.5 -> OSU avg 2.5, IMB min = max = avg = 2.5
    assert p.osu == pytest.approx(2.5e-6)
    assert (p.t_min, p.t_max, p.t_avg) == pytest.approx((2.5e-6, 2.5e-6, 2.5e-6))
    # mean over ranks per sample: 2, 1.5, 4, 2.5 -> median 2.25
    assert p.rank_mean == pytest.approx(2.25e-6)
    assert p.p10 <= p.median <= p.p90


def test_latency_point_osu_rank_is_that_loop_only():
    seconds = np.array([[1, 1, 1, 1], [9, 9, 9, 9]]) * 1e-6
    assert latency_point(8, seconds, SAMPLING, osu_rank=0).osu == pytest.approx(1e-6)


def test_bandwidth_point_bytes_over_slowest_and_osu_per_sender():
    # one window moves 1000 bytes; sender 0 takes 1, 1, 2, 4 s, receiver 1 takes 2, 1, 1, 1 s
    seconds = np.array([[1, 1, 2, 4], [2, 1, 1, 1.0]])
    p = bandwidth_point(10, seconds, SAMPLING, bytes_per_op=1000.0, senders=[0])
    # slowest: 2, 1, 2, 4 -> rates 500, 1000, 500, 250 -> median 500
    assert p.median == pytest.approx(500.0)
    # OSU: 4 windows of 1000 bytes over the sender's 8 s
    assert p.osu == pytest.approx(500.0)
    assert p.message_rate is None


def test_bandwidth_point_multi_pair_sums_senders_and_rate():
    # two senders (0, 1) each move 100 bytes in 10 messages per operation; receivers 2, 3
    seconds = np.array([[1.0] * 4, [2.0] * 4, [1.0] * 4, [2.0] * 4])
    p = bandwidth_point(10, seconds, SAMPLING, bytes_per_op=200.0, senders=[0, 1], messages_per_op=20.0)
    assert p.median == pytest.approx(100.0)              # 200 bytes over the slowest 2 s
    assert p.osu == pytest.approx(100 / 1 + 100 / 2)     # each sender's own rate, summed
    assert p.message_rate == pytest.approx(10 / 1 + 10 / 2)


@pytest.mark.parametrize("pure, cpu, ovrl, expected", [
    (10, 10, 10, 100.0),     # everything hidden
    (10, 10, 20, 0.0),       # nothing hidden
    (10, 10, 15, 50.0),
    (10, 4, 12, 50.0),       # the shorter is the computation: 2 of its 4 hidden
    (10, 10, 25, 0.0),       # slower than both in a row: clipped at 0
    (10, 10, 5, 100.0),      # faster than either: clipped at 100
])
def test_overlap_is_imb_nbc_formula(pure, cpu, ovrl, expected):
    assert overlap_percent(pure, cpu, ovrl) == pytest.approx(expected)


def test_nbc_point_from_three_measurements():
    ovrl = np.array([[15, 15, 15, 15], [14, 14, 14, 14.0]])
    pure = np.array([[10, 10, 10, 10], [9, 9, 9, 9.0]])
    cpu = np.array([[10, 10, 10, 10], [10, 10, 10, 10.0]])
    p = nbc_point(64, ovrl, pure, cpu, SAMPLING)
    assert (p.median, p.t_pure, p.t_cpu) == (15.0, 10.0, 10.0)
    assert p.overlap_percent == pytest.approx(50.0)


@pytest.mark.parametrize("text, sizes", [
    ("1:4MiB", tuple(2 ** k for k in range(23))),
    ("8,64,1KiB", (8, 64, 1024)),
    ("1KiB, 8", (8, 1024)),
    ("3:10", (3, 6, 10)),
    ("8,8,1:2", (1, 2, 8)),
])
def test_size_lists(text, sizes):
    assert parse_sizes(text) == sizes


@pytest.mark.parametrize("text, words", [
    ("", "sizes or ranges"), ("0", "at least 1 byte"), ("8,0", "at least 1 byte"), ("-8", "negative"),
    ("8,,16", "empty item"), ("abc", "a size is a number"), ("4:2", "must not be below"), ("1:2:3", "FIRST:LAST"),
    ("2GiB", "at most 1 GiB"), ("1.5", "whole number"), ("1:1GiB,3:1GiB,5:1GiB,7:1GiB", "at most 64 sizes"),
])
def test_bad_size_lists_are_one_line(text, words):
    with pytest.raises(ValueError, match=words) as e:
        parse_sizes(text)
    assert "\n" not in str(e.value)


def _resolve(bench, job=Job(2, 1), **given):
    return bench.check(dataclasses.replace(MicroOptions(), **given), Topology.from_synthetic("pack:1 core:2 pu:1"), job)


def test_named_family_runs_every_test_at_osu_sizes():
    o = _resolve(P2P_BENCHMARK)
    assert o.suite == "all" and o.p2p_tests == ("latency", "bw", "bibw", "mbw_mr", "multi_lat")
    assert o.sizes == parse_sizes("1:4MiB") and o.pairs == 1


def test_unnamed_run_runs_the_short_subset():
    o = _resolve(COLLECTIVES_BENCHMARK, **dataclasses.asdict(COLLECTIVES_BENCHMARK.unnamed_options(MicroOptions())))
    assert o.suite == "default" and o.coll_tests == ("bcast", "allreduce", "alltoall")
    assert o.sizes == (8, 4096, 65536, 4 << 20)


def test_comm_suite_all_joins_an_unnamed_run_and_nbc_only_then():
    job = Job(2, 1)
    assert not NBC_BENCHMARK.in_unnamed_run(MicroOptions(), job)
    assert NBC_BENCHMARK.in_unnamed_run(MicroOptions(suite="all"), job)
    assert P2P_BENCHMARK.in_unnamed_run(MicroOptions(), job)


def test_collectives_against_processes_by_default_with_four_ranks_or_more():
    assert _resolve(COLLECTIVES_BENCHMARK, Job(8, 1)).procs == (2, 4)
    assert _resolve(COLLECTIVES_BENCHMARK, Job(2, 1)).procs == ()
    assert _resolve(COLLECTIVES_BENCHMARK, Job(8, 1), procs=(3, 8)).procs == (3,)


@pytest.mark.parametrize("bench, job, given, field", [
    (P2P_BENCHMARK, Job(4, 1), {"pairs": 3}, "pairs"),
    (COLLECTIVES_BENCHMARK, Job(4, 1), {"procs": (2, 6)}, "procs"),
    (P2P_BENCHMARK, Job(2, 1), {"window": 0}, "window"),
    (P2P_BENCHMARK, Job(2, 1), {"budget_s": 0.0}, "budget_s"),
    (P2P_BENCHMARK, Job(2, 1), {"iterations": 0}, "iterations"),
    (COLLECTIVES_BENCHMARK, Job(4096, 1), {"sizes": (1 << 30,)}, "sizes"),
])
def test_bad_options_name_their_field(bench, job, given, field):
    with pytest.raises(OptionError) as e:
        _resolve(bench, job, **given)
    assert e.value.parameter == field


def test_catalogue_covers_every_family_and_collective():
    families = {t.family for t in TESTS.values()}
    assert families == {"p2p", "collectives", "nbc", "rma"}
    ops = {"barrier", "bcast", "allreduce", "reduce", "allgather", "allgatherv", "alltoall", "alltoallv", "gather",
           "gatherv", "scatter", "scatterv", "reduce_scatter"}
    assert {t.name for t in TESTS.values() if t.family == "collectives"} == ops
    assert {t.name for t in TESTS.values() if t.family == "nbc"} == {"i" + op for op in ops}


def test_estimate_grows_with_tests_sizes_and_budget():
    small = _resolve(P2P_BENCHMARK, p2p_tests=("latency",), sizes=(8,))
    big = _resolve(P2P_BENCHMARK)
    assert 0 < _estimate.micro_seconds("p2p", small, Job(2, 1)) < _estimate.micro_seconds("p2p", big, Job(2, 1))
