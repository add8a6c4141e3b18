"""What `show`, the report and the tidy export say about the OSU/IMB
micro-benchmark records (hpcbench/micro/_summary.py, _plot.py, _report.py,
_tidy.py), on synthetic records of every family with hand-chosen numbers:
the tables print what was put in, in OSU's units (us, MB/s of 1e6 bytes,
messages/s; conversions by hand below); collectives label both views;
nbc prints IMB-NBC's columns; headlines, tidy rows and the figure are the
expected ones; a record round-trips; the disagreements are empty for
consistent data and name their rule for each planted contradiction."""
import dataclasses

import pytest

from hpcbench._headline import Headline
from hpcbench._tidy import STATISTICS, UNITS
from hpcbench.micro import _report
from hpcbench.micro._records import MicroDerived, MicroParameters, MicroPoint, MicroRecord, MicroSeries
from hpcbench.micro._report import micro_disagreements, micro_headlines, micro_meaning
from hpcbench.micro._summary import micro_summary
from hpcbench.micro._tidy import micro_rows

KIB, MIB = 1024, 1 << 20
SIZES = [8, 4 * KIB, 64 * KIB, 4 * MIB]


def point(size, median, p10, p90, osu, **extra):
    return MicroPoint(size=size, samples=20, inner=4, warmup=2, median=median, p10=p10, p90=p90, osu=osu, **extra)


def latency_points(medians):
    """Points whose p10, p90 and OSU avg are 0.9, 1.2 and 1.1 times the median."""
    return [point(size, m, 0.9 * m, 1.2 * m, 1.1 * m) for size, m in zip(SIZES, medians)]


def series(test, kind, points, procs=2, definition="a definition", **extra):
    return MicroSeries(test=test, kind=kind, unit="s" if kind == "latency" else "bytes/s", procs=procs,
                       definition=definition, points=points, **extra)


def record(family, series_list, scaling=(), ranks=2):
    parameters = MicroParameters(family=family, ranks=ranks, nodes=1, suite="all", tests=[s.test for s in series_list],
                                 sizes=SIZES, iterations=20, warmup=2, budget_s=0.01, window=64, pairs=1,
                                 syncs=["fence", "lock"], procs=[2], buffers="page-aligned",
                                 statistics={"median": "the slowest taking part rank's, per sample"})
    return MicroRecord(name=family, node="vm", parameters=parameters,
                       derived=MicroDerived(series=list(series_list), scaling=list(scaling)))


def p2p_record():
    latency = series("latency", "latency", latency_points([1.5e-6, 3e-6, 12e-6, 400e-6]),
                     definition="half the round trip of a ping-pong")
    bw = series("bw", "bandwidth", [point(s, v, 0.9 * v, 1.1 * v, 0.95 * v) for s, v in
                                    zip(SIZES, [5e6, 2e9, 8e9, 12.5e9])], window=64, definition="streamed window")
    bibw = series("bibw", "bandwidth", [point(s, v, 0.9 * v, 1.1 * v, v) for s, v in
                                        zip(SIZES, [8e6, 3e9, 12e9, 20e9])], window=64, definition="both ways")
    mbw_mr = series("mbw_mr", "bandwidth", [point(s, v, 0.9 * v, 1.1 * v, v, message_rate=v / s) for s, v in
                                            zip(SIZES, [10e6, 4e9, 16e9, 24e9])], pairs=2, window=64, procs=4,
                    definition="k pairs stream")
    multi_lat = series("multi_lat", "latency", latency_points([2e-6, 4e-6, 15e-6, 500e-6]), pairs=2, procs=4)
    return record("p2p", [latency, bw, bibw, mbw_mr, multi_lat], ranks=4)


def collective_points(medians):
    """Collective points: rank mean 0.8x the median, IMB t_min/t_avg/t_max 0.7x/1.0x/1.3x."""
    return [point(size, m, 0.9 * m, 1.2 * m, 1.05 * m, rank_mean=0.8 * m, t_min=0.7 * m, t_avg=m, t_max=1.3 * m)
            for size, m in zip(SIZES, medians)]


def collectives_record():
    allreduce = series("allreduce", "latency", collective_points([4e-6, 10e-6, 50e-6, 2e-3]), procs=4)
    bcast = series("bcast", "latency", collective_points([2e-6, 5e-6, 30e-6, 0.6e-3]), procs=4)
    scaling = [series("allreduce", "latency", latency_points([2e-6, 5e-6]), procs=2)]
    scaling[0].points[1].size = 64 * KIB
    return record("collectives", [allreduce, bcast], scaling, ranks=4)


def nbc_record():
    medians = [6e-6, 12e-6, 60e-6, 2.4e-3]
    points = [point(size, m, 0.9 * m, 1.2 * m, 1.1 * m, t_pure=0.5 * m, t_cpu=0.8 * m, overlap_percent=pct)
              for size, m, pct in zip(SIZES, medians, [10.0, 20.0, 40.0, 75.0])]
    return record("nbc", [series("iallreduce", "latency", points, procs=4)],
                  [series("iallreduce", "latency", latency_points([3e-6]), procs=2)], ranks=4)


def rma_record():
    return record("rma", [series("put_latency", "latency", latency_points([2e-6, 3e-6, 10e-6, 350e-6]), sync="fence"),
                          series("put_latency", "latency", latency_points([1e-6, 2e-6, 9e-6, 340e-6]), sync="lock"),
                          series("put_bw", "bandwidth", [point(s, v, 0.9 * v, 1.1 * v, v) for s, v in
                                                         zip(SIZES, [4e6, 1e9, 6e9, 10e9])], sync="lock", window=64)])


RECORDS = {"p2p": p2p_record, "collectives": collectives_record, "nbc": nbc_record, "rma": rma_record}


def row_of(lines, size, after=""):
    """The cells of the first table row for `size` after the line containing `after`."""
    start = next(i for i, line in enumerate(lines) if after in line)
    return next(line.split() for line in lines[start:] if line.split()[:1] == [str(size)])


def test_p2p_latency_row_is_in_microseconds():
    lines = micro_summary(p2p_record())
    # 1.5e-6 s: median 1.50 us, p10 0.9x = 1.35, p90 1.2x = 1.80, OSU avg 1.1x = 1.65
    assert row_of(lines, 8) == ["8", "1.50", "1.35", "1.80", "1.65"]
    assert row_of(lines, 4 * MIB) == ["4194304", "400.00", "360.00", "480.00", "440.00"]


def test_p2p_latency_says_ping_pong_is_not_comms_echo():
    text = " ".join(" ".join(micro_summary(p2p_record())).split())
    assert "OSU's ping-pong: each side answers from its own unchanged send buffer" in text
    assert "comm's echo is CoMet's: it sends back what it received" in text
    assert "peer osu_latency, IMB-MPI1 PingPong" in text


def test_bandwidth_rows_are_in_mb_per_s_with_message_rate():
    lines = micro_summary(p2p_record())
    # bw 4 MiB: 12.5e9 B/s = 12500 MB/s; p10 11250, p90 13750, OSU 0.95x = 11875
    assert row_of(lines, 4 * MIB, "bw: streamed window") == ["4194304", "12500.00", "11250.00", "13750.00",
                                                               "11875.00"]
    # mbw_mr 8 B: 10e6 B/s = 10 MB/s, 10e6 / 8 = 1250000 messages/s
    assert row_of(lines, 8, "mbw_mr (2 pairs)") == ["8", "10.00", "9.00", "11.00", "10.00", "1250000.00"]
    assert any(line.split()[-1:] == ["messages/s"] for line in lines)
    assert any("window 64 messages" in line for line in lines)


def test_collectives_label_both_views_and_imb():
    lines = micro_summary(collectives_record())
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("allreduce:"))
    assert "slowest rank per iteration, us" in lines[header + 1] and "mean over ranks" in lines[header + 1]
    assert lines[header + 2].split() == ["Size", "median", "p10", "p90", "median", "avg", "t_min", "t_max", "t_avg"]
    # 4e-6: 4.00 3.60 4.80 | rank mean 3.20 | OSU 4.20 | IMB 2.80 5.20 4.00
    assert row_of(lines, 8, "allreduce:") == ["8", "4.00", "3.60", "4.80", "3.20", "4.20", "2.80", "5.20", "4.00"]
    legend = " ".join(" ".join(lines).split())
    assert "the time of the rank that finished last" in legend and "the mean of the ranks' times" in legend
    assert legend.count("slowest rank: per iteration") == 1          # said once per record


def test_nbc_columns_are_imb_nbcs():
    lines = micro_summary(nbc_record())
    assert any(line.split() == ["Size", "median", "OSU", "avg", "t_pure", "t_CPU", "overlap[%]"] for line in lines)
    # 2.4e-3 s: t_ovrl 2400.00, OSU 2640.00, t_pure 1200.00, t_CPU 1920.00, overlap 75.00
    assert row_of(lines, 4 * MIB) == ["4194304", "2400.00", "2640.00", "1200.00", "1920.00", "75.00"]
    assert any("IMB-NBC" in line for line in lines)


def test_scaling_table_has_a_column_per_number_of_processes():
    lines = micro_summary(collectives_record())
    at = next(i for i, line in enumerate(lines) if "against the number of processes" in line)
    assert lines[at + 1].split() == ["Size", "P=2", "P=4"]
    assert lines[at + 2].split() == ["8", "2.00", "4.00"]
    assert lines[at + 3].split() == ["65536", "5.00", "50.00"]


def test_rma_header_names_the_synchronisation():
    lines = micro_summary(rma_record())
    assert any(line.startswith("  put_latency (lock): ") and "synchronisation lock" in line for line in lines)
    assert row_of(lines, 8, "put_latency (lock)")[:2] == ["8", "1.00"]


@pytest.mark.parametrize("family", RECORDS)
def test_lines_fit_in_120_columns(family):
    assert all(len(line) < 120 for line in micro_summary(RECORDS[family]()))


@pytest.mark.parametrize("family", RECORDS)
def test_record_round_trips(family):
    rec = RECORDS[family]()
    back = MicroRecord.from_dict(rec.to_dict())
    assert back.to_dict() == rec.to_dict()
    assert micro_summary(back) == micro_summary(rec)


def test_headlines_at_the_quoted_sizes():
    heads = {h.label: h for h in micro_headlines(p2p_record())}
    assert heads["latency 8 B"] == Headline("latency 8 B", 1.5e-6, "s", "lower")
    assert heads["bw 4 MiB"] == Headline("bw 4 MiB", 12.5e9, "bytes/s", "higher")
    assert heads["mbw_mr (2 pairs) 64 KiB"].value == 16e9
    assert {"latency 4 KiB", "latency 64 KiB", "latency 4 MiB"} <= set(heads)
    coll = {h.label: h.value for h in micro_headlines(collectives_record())}
    assert coll["allreduce 64 KiB"] == 50e-6
    nbc = {h.label: h for h in micro_headlines(nbc_record())}
    assert nbc["iallreduce overlap 4 MiB"] == Headline("iallreduce overlap 4 MiB", 75.0, "%", "higher")
    rma = [h.label for h in micro_headlines(rma_record())]
    assert "put_latency (fence) 8 B" in rma and "put_latency (lock) 8 B" in rma


@pytest.mark.parametrize("family", RECORDS)
def test_headline_labels_are_unique(family):
    labels = [h.label for h in micro_headlines(RECORDS[family]())]
    assert len(labels) == len(set(labels))


def test_headlines_without_a_quoted_size_take_the_smallest_and_largest():
    rec = record("p2p", [series("latency", "latency", [point(2, 1e-6, 1e-6, 1e-6, 1e-6),
                                                       point(32, 2e-6, 2e-6, 2e-6, 2e-6),
                                                       point(1024, 3e-6, 3e-6, 3e-6, 3e-6)])])
    assert [(h.label, h.value) for h in micro_headlines(rec)] == [("latency 2 B", 1e-6), ("latency 1 KiB", 3e-6)]


def rows_by_key(rec):
    return {(r.quantity, r.parameter, r.parameter_value, r.statistic): r for r in micro_rows(rec)}


@pytest.mark.parametrize("family", RECORDS)
def test_tidy_rows_are_typed_and_unique(family):
    rows = micro_rows(RECORDS[family]())
    assert rows and all(r.statistic in STATISTICS and r.unit in UNITS for r in rows)
    keys = [(r.quantity, r.parameter_value, r.statistic) for r in rows]
    assert len(keys) == len(set(keys))
    assert all(r.benchmark == family and r.node == "vm" for r in rows)


def test_tidy_rows_carry_every_statistic():
    p2p = rows_by_key(p2p_record())
    assert p2p["latency", "size_bytes", 8, "median"].value == 1.5e-6
    assert p2p["latency", "size_bytes", 8, "osu"].value == pytest.approx(1.65e-6)
    assert p2p["bw_bandwidth", "size_bytes", 4 * MIB, "p90"].value == pytest.approx(13.75e9)
    assert p2p["bw_bandwidth", "size_bytes", 4 * MIB, "p90"].unit == "bytes/s"
    assert p2p["multi_lat_latency", "size_bytes", 64 * KIB, "p10"].value == pytest.approx(13.5e-6)
    coll = rows_by_key(collectives_record())
    for statistic, factor in (("rank_mean", 0.8), ("imb_min", 0.7), ("imb_avg", 1.0), ("imb_max", 1.3)):
        assert coll["allreduce_latency", "size_bytes", 8, statistic].value == pytest.approx(factor * 4e-6)
    assert coll["allreduce_latency size 8", "processes", 2, "median"].value == 2e-6
    assert coll["allreduce_latency size 8", "processes", 4, "median"].value == 4e-6     # the full run's point
    assert coll["allreduce_latency size 65536", "processes", 2, "median"].value == 5e-6
    nbc = rows_by_key(nbc_record())
    assert nbc["iallreduce_latency", "size_bytes", 4 * MIB, "median"].value == 2.4e-3
    assert nbc["iallreduce_t_pure", "size_bytes", 4 * MIB, "imb"].value == pytest.approx(1.2e-3)
    assert nbc["iallreduce_t_cpu", "size_bytes", 4 * MIB, "imb"].value == pytest.approx(1.92e-3)
    assert nbc["iallreduce_overlap", "size_bytes", 4 * MIB, "imb"].value == 75.0
    assert nbc["iallreduce_overlap", "size_bytes", 4 * MIB, "imb"].unit == "%"
    rma = rows_by_key(rma_record())
    assert rma["put_latency_lock", "size_bytes", 8, "median"].value == 1e-6
    assert rma["put_latency_fence", "size_bytes", 8, "median"].value == 2e-6
    assert rma["put_bw_bandwidth_lock", "size_bytes", 4 * MIB, "median"].value == 10e9


@pytest.mark.parametrize("family, axes, lines", [("p2p", 2, [4, 6]), ("collectives", 2, [4, 2]),
                                                 ("nbc", 3, [2, 1, 1]), ("rma", 2, [4, 2])])
def test_figure_has_an_axes_per_panel(family, axes, lines):
    pytest.importorskip("matplotlib")
    from hpcbench.micro._plot import micro_figure
    fig = micro_figure(RECORDS[family]())
    assert [len(ax.get_lines()) for ax in fig.axes] == lines and len(fig.axes) == axes


def test_plot_series_draws_median_band_and_osu():
    pytest.importorskip("matplotlib")
    from hpcbench.micro._plot import plot_series
    ax = plot_series(p2p_record().derived.series[0])
    median, osu = ax.get_lines()
    assert list(median.get_ydata()) == pytest.approx([1.5, 3.0, 12.0, 400.0])     # us
    assert osu.get_linestyle() == "--" and list(osu.get_ydata()) == pytest.approx([1.65, 3.3, 13.2, 440.0])
    assert len(ax.collections) == 1 and ax.get_xscale() == "log" and ax.get_yscale() == "log"


def test_meaning_quotes_the_figures_a_user_needs():
    p2p = " ".join(micro_meaning(p2p_record()))
    assert "A message of 8 B takes 1.5 us one way" in p2p and "one of 4 MiB 400 us" in p2p
    # a peak is the median of the curve's 3 highest points (hpcbench._physical), not its one highest point
    assert "Peak bandwidth (the median of the curve's 3 highest points): bw 8 GB/s" in p2p
    assert "mbw_mr (2 pairs) 16 GB/s (1.25e+06 messages/s at 8 B)" in p2p
    assert "multi_lat (2 pairs) 2 us (8 B)" in p2p
    coll = " ".join(micro_meaning(collectives_record()))
    assert "allreduce grows fastest with size: x500" in coll          # 2e-3 / 4e-6
    assert "x1.25 the mean over ranks" in coll                         # 1 / 0.8
    assert "allreduce grows most with the number of processes: x2.00 from 2 to 4 at 8 B" in coll   # 4 us / 2 us
    nbc = " ".join(micro_meaning(nbc_record()))
    assert "iallreduce 75% at 4 MiB" in nbc and "in the background" in nbc


@pytest.mark.parametrize("family", RECORDS)
def test_consistent_records_have_no_disagreement(family):
    assert micro_disagreements(RECORDS[family]()) == []


def planted(rec, test, size, **changes):
    """The record with one point of the series of `test` changed."""
    for s in rec.derived.series:
        if s.test == test:
            s.points = [dataclasses.replace(p, **changes) if p.size == size else p for p in s.points]
    return rec


@pytest.mark.parametrize("family, test, size, changes, rule", [
    ("p2p", "latency", 4 * KIB, {"p10": 5e-6}, _report.RULE_PERCENTILES),
    ("collectives", "bcast", 8, {"t_min": 9e-6}, _report.RULE_IMB),
    ("collectives", "bcast", 8, {"rank_mean": 3e-6}, _report.RULE_VIEWS),
    ("p2p", "latency", 64 * KIB, {"median": 1.4e-6, "p10": 1.3e-6, "p90": 1.5e-6}, _report.RULE_FALLING),
    ("p2p", "bibw", 64 * KIB, {"median": 18e9, "p10": 17e9, "p90": 19e9}, _report.RULE_BIBW),
    ("nbc", "iallreduce", 8, {"t_cpu": 7e-6}, _report.RULE_CPU),
    ("nbc", "iallreduce", 8, {"overlap_percent": 120.0}, _report.RULE_OVERLAP),
])
def test_a_planted_contradiction_names_its_rule(family, test, size, changes, rule):
    found = micro_disagreements(planted(RECORDS[family](), test, size, **changes))
    assert len(found) == 1 and rule in found[0] and f"{size} B" in found[0], found


def test_a_barrier_is_not_judged_on_size():
    points = [point(size, m, m, m, m) for size, m in zip(SIZES, [8e-6, 1e-6, 1e-6, 1e-6])]
    assert micro_disagreements(record("collectives", [series("barrier", "latency", points)])) == []
