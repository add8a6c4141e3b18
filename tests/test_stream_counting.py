"""The stream benchmark's arithmetic: bytes counted as STREAM counts them,
the write-allocate traffic beside, the team's rate over the common span,
and the choice of instruction set; every answer computed by hand."""
import numpy as np
import pytest

from hpcbench._errors import OptionError
from hpcbench.stream import choose_isa, stream_bytes, team_rates, write_allocate_bytes
from hpcbench.stream._analysis import kernel_rate, node_triad, spans_ns
from hpcbench.stream._counting import KERNELS, bytes_per_element

MiB = 1 << 20


@pytest.mark.parametrize("kernel, counted, extra", [("copy", 16, 8), ("scale", 16, 8), ("add", 24, 8),
                                                    ("triad", 24, 8)])
def test_bytes_per_element_are_streams_with_the_write_allocate_beside(kernel, counted, extra):
    assert bytes_per_element(kernel, "ordinary") == (counted, extra)
    assert bytes_per_element(kernel, "nontemporal") == (counted, 0)
    assert stream_bytes(kernel, 128 * MiB) == counted // 8 * 128 * MiB
    assert write_allocate_bytes(kernel, 128 * MiB, "ordinary") == 128 * MiB
    assert write_allocate_bytes(kernel, 128 * MiB, "nontemporal") == 0


def test_an_unknown_kernel_is_refused():
    with pytest.raises(KeyError):
        write_allocate_bytes("update", 64, "ordinary")


def test_spans_run_from_the_first_start_to_the_last_end():
    # 2 members, 1 repetition, 4 kernels: member 1 starts 10 ns late and ends 30 ns late in kernel 0.
    start = np.array([[[0, 100, 200, 300]], [[10, 100, 200, 300]]], dtype=float)
    end = np.array([[[50, 150, 250, 390]], [[80, 140, 260, 350]]], dtype=float)
    assert spans_ns(start, end).tolist() == [[80, 50, 60, 90]]


def test_kernel_rate_counts_every_member_over_the_span():
    # Copy of 1 MiB arrays on 2 members, spans 1 ms, 2 ms and 4 ms: 2 x 2 MiB per repetition.
    rate = kernel_rate("copy", 2, MiB, "ordinary", [1e6, 2e6, 4e6])
    assert rate.bytes == 2 * MiB and rate.write_allocate_bytes == MiB
    assert rate.best == pytest.approx(4 * MiB / 1e-3)
    assert rate.median == pytest.approx(4 * MiB / 2e-3)
    assert rate.worst == pytest.approx(4 * MiB / 4e-3)
    assert rate.best_with_write_allocate == pytest.approx(6 * MiB / 1e-3)     # 24 B per element moved
    assert (rate.min_ns, rate.median_ns, rate.max_ns) == (1e6, 2e6, 4e6)
    triad = kernel_rate("triad", 1, MiB, "nontemporal", [3e6])
    assert triad.best == pytest.approx(3 * MiB / 3e-3) and triad.best_with_write_allocate == triad.best


def test_team_rates_keep_streams_order_and_the_node_headline_is_the_last_teams_triad():
    start = np.zeros((1, 2, 4))
    end = np.array([[[1e6, 1e6, 2e6, 3e6], [2e6, 2e6, 3e6, 1.5e6]]])
    one = team_rates("one core", [0], MiB, "ordinary", start, end)
    assert [k.kernel for k in one.kernels] == list(KERNELS)
    assert one.rate("triad").best == pytest.approx(3 * MiB / 1.5e-3)
    assert one.rate("add").best == pytest.approx(3 * MiB / 2e-3)
    node = team_rates("node", [0, 1], MiB, "ordinary", np.zeros((2, 1, 4)), np.full((2, 1, 4), 1e6))
    assert node_triad([one, node]) == pytest.approx(2 * 3 * MiB / 1e-3)
    assert node_triad([]) is None


@pytest.mark.parametrize("asked, supported, chosen", [
    ("auto", {"scalar", "sse2", "avx2", "avx512"}, "avx512"),
    ("auto", {"scalar", "sse2", "avx2"}, "avx2"),
    ("auto", {"scalar"}, "scalar"),
    ("auto", set(), "scalar"),
    ("sse2", {"scalar", "sse2", "avx2"}, "sse2"),
])
def test_the_isa_is_the_one_asked_for_or_the_widest(asked, supported, chosen):
    assert choose_isa(asked, supported) == chosen


def test_an_isa_the_cpu_lacks_names_what_it_has():
    with pytest.raises(OptionError) as e:
        choose_isa("avx512", {"scalar", "sse2", "avx2"})
    assert e.value.parameter == "isa"
    assert e.value.rule == "avx512 is not an instruction set this CPU runs; it has scalar, sse2, avx2"
    with pytest.raises(OptionError, match="must be one of"):
        choose_isa("neon", {"scalar"})


def test_the_report_says_where_triad_saturates():
    from types import SimpleNamespace

    from hpcbench.stream._report import stream_headlines, stream_meaning
    # Triad spans of 1 core, one L3 of 4 and a node of 8: 10, 3 and 5.6 ms for 1 MiB arrays per core, so the
    # rates are 3 MiB / 10 ms, 4 x 3 MiB / 3 ms and 8 x 3 MiB / 5.6 ms: the node is 14.3x one core and the
    # L3 already 0.93 of the node.
    teams = [team_rates(name, list(range(n)), MiB, "ordinary", np.zeros((n, 1, 4)), np.full((n, 1, 4), ms * 1e6))
             for name, n, ms in (("one core", 1, 10), ("one L3", 4, 3), ("node", 8, 5.6))]
    triad = [t.rate("triad").best for t in teams]
    assert triad[2] / triad[0] == pytest.approx(100 / 7) and triad[1] / triad[2] == pytest.approx(5.6 / 6)
    record = SimpleNamespace(derived=SimpleNamespace(teams=teams, triad=triad[2]),
                             parameters=SimpleNamespace(stores="ordinary"))
    lines = stream_meaning(record)
    assert lines[0].startswith(f"STREAM Triad with all 8 core(s): {triad[2] / 1e9:.1f} GB/s")
    assert "all cores get 14.3x that, and one L3 (4 core(s)) already reaches 90% of it" in lines[1]
    assert lines[2] == (f"With the write-allocate reads counted, the memory moved {triad[2] * 4 / 3 / 1e9:.1f} GB/s "
                        "during Triad.")
    labels = [h.label for h in stream_headlines(record)]
    assert labels[0] == "Triad, all cores" and "Copy, one L3 (4 cores)" in labels and len(labels) == 13
