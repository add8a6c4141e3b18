"""The report's machine header lists the figures benchmarks give about the
machine itself (Benchmark.machine_figures: STREAM Triad, peak FLOP/s)."""
from hpcbench._headline import Headline
from hpcbench._record import Record
from hpcbench.report._page import measured_rows
from hpcbench.report._view import RecordView


def view(node: str, *figures: Headline) -> RecordView:
    return RecordView(Record(name="x", node=node, status="ok"), "x", machine_figures=list(figures))


TRIAD = Headline("STREAM Triad, 2 cores", 40e9, "bytes/s", "higher")
PEAK = Headline("Peak FLOP/s, node (AVX-512 FMA, double)", 1.5e11, "flop/s", "higher")


def test_one_node_lists_the_figures_in_order_without_the_node():
    rows = measured_rows([view("n1", TRIAD), view("n1"), view("n1", PEAK)])
    assert [label for label, _ in rows] == [TRIAD.label, PEAK.label]
    assert rows[0][1] == f"{TRIAD.text()} (measured)"


def test_several_nodes_name_the_node():
    rows = measured_rows([view("n1", TRIAD), view("n2", TRIAD)])
    assert [label for label, _ in rows] == [f"{TRIAD.label} (n1)", f"{TRIAD.label} (n2)"]


def test_no_figures_no_rows():
    assert measured_rows([view("n1"), view("n2")]) == []
