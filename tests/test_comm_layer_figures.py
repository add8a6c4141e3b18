"""Servet's Fig. 10b-d drawn from comm records (hpcbench/comm/_layerplot.py):
each layer's scalability (a message's time with k disjoint pairs sending at
once) and each layer's bandwidth against the message size, from synthetic
layers with known values: the plotted points, the model line, the axes and
labels; the comm figure and the report hold them; a file whose layers
lack a curve draws the others and says what is missing."""
import copy
import html
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

import hpcbench
import hpcbench.examples
from hpcbench import _registry
from hpcbench._plot import new_figure
from hpcbench._results import Results, load
from hpcbench._tidy import rows
from hpcbench.comm import plot_layer_bandwidth, plot_layer_scalability
from hpcbench.comm._layerplot import layer_model_bandwidth, layer_panel_gaps
from hpcbench.comm._plot import comm_figure
from hpcbench.comm._records import LayerRecord, LayerScalability, RegionRecord, SweepSummary
from hpcbench.comm._report import comm_meaning
from hpcbench.report import report_html

matplotlib = pytest.importorskip("matplotlib")

SIZES = [0, 1024, 4096, 65536]
#: Layer 1 ("same L3"): bandwidth (bytes/s) per size; t(N) = 1 us + N / 4 GB/s is its one region.
FAST = [0.0, 1e9, 2e9, 4e9]
#: Layer 2 ("other package"): ten times slower.
SLOW = [0.0, 1e8, 2e8, 4e8]


def summary(bandwidth, sizes=SIZES):
    """A SweepSummary whose median is size / bandwidth (1 us at 0 B)."""
    median = [s / b if b else 1e-6 for s, b in zip(sizes, bandwidth)]
    return SweepSummary(sizes=list(sizes), median=median, minimum=median, p10=median, p90=median, p99=median,
                        bandwidth=list(bandwidth))


def layer(name, latency, pairs, bandwidth, scalability, regions=(), sizes=SIZES):
    return LayerRecord(latency=latency, pairs=[list(p) for p in pairs], name=name, names={name: len(pairs)},
                       representative=list(pairs[0]), regions=list(regions),
                       scalability=[LayerScalability(pairs=k, latency=t, slowdown=t / scalability[0][1])
                                    for k, t in scalability],
                       summary=summary(bandwidth, sizes))


REGION = RegionRecord(first=1, last=65536, latency=1e-6, seconds_per_byte=1 / 4e9, bandwidth=4e9,
                      rms_relative_residual=0.01)


def synthetic(layers, probe=32768):
    """The shipped comm example with its layers replaced by `layers` and the probe size set."""
    record = copy.deepcopy(load(hpcbench.examples.path("comm-example.json")).get("comm"))
    record.derived.layers = layers
    record.parameters.probe_size = probe
    return record


def two_layers():
    return synthetic([
        layer("same L3", 0.5e-6, [(0, 1), (2, 3), (4, 5), (6, 7)], FAST,
              [(1, 2e-6), (2, 3e-6), (4, 8e-6)], regions=[REGION]),
        layer("other package", 5e-6, [(0, 4), (1, 5)], SLOW, [(1, 10e-6), (2, 11e-6)]),
    ])


def axes():
    fig, ax = new_figure(1, 1)
    return ax[0, 0]


def texts(ax):
    return [t.get_text() for t in ax.texts]


def test_bandwidth_panel_draws_each_layer_in_gb_per_s_on_log_axes():
    ax = axes()
    plot_layer_bandwidth(two_layers(), ax)
    dots = [line for line in ax.lines if line.get_marker() == "o"]
    assert [line.get_label() for line in dots] == ["layer 1: same L3 (0.50 us), ranks 0-1",
                                                    "layer 2: other package (5.00 us), ranks 0-4"]
    # sizes above 0 B only; bytes/s drawn as GB/s
    assert list(dots[0].get_xdata()) == [1024, 4096, 65536]
    assert np.allclose(dots[0].get_ydata(), [1.0, 2.0, 4.0])
    assert np.allclose(dots[1].get_ydata(), [0.1, 0.2, 0.4])
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert ax.get_xlabel() == "message size (bytes)" and ax.get_ylabel() == "bandwidth (GB/s)"
    assert "Fig. 10c/d" in ax.get_title()
    assert not texts(ax)                          # nothing missing, nothing said


def test_bandwidth_panel_draws_the_regional_model_as_size_over_time():
    ax = axes()
    record = two_layers()
    plot_layer_bandwidth(record, ax)
    model = [line for line in ax.lines if line.get_linestyle() == "-"]
    assert len(model) == 1                        # layer 2 has no regions: dots only
    expected = [n / (1e-6 + n / 4e9) / 1e9 for n in (1024, 4096, 65536)]
    assert np.allclose(model[0].get_ydata(), expected)
    assert model[0].get_color() == ax.lines[0].get_color()
    # a region whose time is not positive gives no bandwidth (NaN), not a negative one
    negative = RegionRecord(first=1, last=65536, latency=-1e-3, seconds_per_byte=1e-9, bandwidth=1e9,
                            rms_relative_residual=0.0)
    lv = record.derived.layers[0]
    lv.regions = [negative]
    bw = layer_model_bandwidth(lv, np.array([1024.0, 65536.0]))
    assert math.isnan(bw[0]) and math.isnan(bw[1])


def test_scalability_panel_draws_the_time_per_number_of_pairs():
    ax = axes()
    plot_layer_scalability(two_layers(), ax)
    curves = [line for line in ax.lines if line.get_marker() == "o"]
    assert [line.get_label() for line in curves] == ["layer 1: same L3 (0.50 us)", "layer 2: other package (5.00 us)"]
    assert list(curves[0].get_xdata()) == [1, 2, 4] and np.allclose(curves[0].get_ydata(), [2, 3, 8])
    assert list(curves[1].get_xdata()) == [1, 2] and np.allclose(curves[1].get_ydata(), [10, 11])
    # dotted: each layer's one pair alone
    alone = [line for line in ax.lines if line.get_linestyle() == ":"]
    assert sorted(float(line.get_ydata()[0]) for line in alone) == [2.0, 10.0]
    # the slowdown at the most pairs, written after the last point
    assert texts(ax) == ["x4.00", "x1.10"]
    assert ax.get_xscale() == "log"               # up to 4 pairs: powers of two
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4"]
    assert ax.get_xlabel() == "disjoint pairs of the layer sending at once"
    assert ax.get_ylabel() == "one-way time of a 32 KiB message (us)"
    assert "Fig. 10b" in ax.get_title() and "32 KiB" in ax.get_title()


def test_a_layer_without_a_curve_is_named_not_drawn():
    record = two_layers()
    lonely = layer("other node", 20e-6, [(0, 8)], SLOW, [(1, 30e-6)])
    unmeasured = layer("ranks not bound to one PU", 40e-6, [(0, 9), (1, 10)], [0.0], [], sizes=[0])
    record.derived.layers += [lonely, unmeasured]
    ax = axes()
    plot_layer_scalability(record, ax)
    assert len([line for line in ax.lines if line.get_marker() == "o"]) == 2
    note = texts(ax)[-1]
    assert note.startswith("not drawn: ")
    assert "layer 3: other node (20.00 us) (no two disjoint pairs)" in note
    assert "layer 4: ranks not bound to one PU (40.00 us) (not measured)" in note
    ax = axes()
    plot_layer_bandwidth(record, ax)
    assert len([line for line in ax.lines if line.get_marker() == "o"]) == 3
    assert "layer 4: ranks not bound to one PU (40.00 us) (no message size above 0 B measured)" in texts(ax)[-1]
    assert layer_panel_gaps(record) == [
        "Fig. 10b (layer scalability) lacks layer 3: other node (20.00 us) (no two disjoint pairs); "
        "layer 4: ranks not bound to one PU (40.00 us) (not measured)",
        "Fig. 10c/d (bandwidth per layer) lacks layer 4: ranks not bound to one PU (40.00 us) (no message size "
        "above 0 B measured)"]


def test_a_record_without_layers_says_so_on_empty_axes():
    record = synthetic([])
    for plot, panel in ((plot_layer_scalability, "Fig. 10b"), (plot_layer_bandwidth, "Fig. 10c/d")):
        ax = axes()
        plot(record, ax)
        assert not ax.lines and not ax.axison
        assert f"Servet {panel}" in texts(ax)[0] and "no communication layers in this record" in texts(ax)[0]


def test_two_ranks_draw_the_bandwidth_and_say_why_there_is_no_scalability():
    """One layer of one pair (a 2-rank run): no concurrency to show."""
    record = synthetic([layer("same L3", 0.5e-6, [(0, 1)], FAST, [(1, 2e-6)])])
    ax = axes()
    plot_layer_scalability(record, ax)
    assert not ax.lines and "layer 1: same L3 (0.50 us) (no two disjoint pairs)" in texts(ax)[0]
    ax = axes()
    plot_layer_bandwidth(record, ax)
    assert len(ax.lines) == 1 and not texts(ax)


def test_the_comm_figure_holds_fig_10a_to_d():
    fig = comm_figure(two_layers())
    titles = [ax.get_title() for ax in fig.axes]
    for panel in ("Fig. 10a", "Fig. 10b", "Fig. 10c/d"):
        assert sum(panel in t for t in titles) == 1, (panel, titles)
    assert _registry.get("comm").plot(two_layers()).axes      # the benchmark's figure is that one


def test_the_report_says_and_draws_the_layer_curves():
    record = two_layers()
    meaning = comm_meaning(record)
    scal = next(m for m in meaning if m.startswith("Layer scalability"))
    assert "(Fig. 10b, 32 KiB)" in scal and "x4.00 in layer 1 ('same L3', 4 pairs)" in scal
    assert "x1.10 in layer 2 ('other package', 2 pairs)" in scal and "fewer, larger messages pay" in scal
    bw = next(m for m in meaning if m.startswith("Bandwidth per layer"))
    # the robust peak (hpcbench._physical): the median of the 3 highest points (1, 2 and 4 GB/s), not one point
    assert "the median of the curve's 3 highest points" in bw
    assert "layer 1 ('same L3') 2.00 GB/s" in bw and "layer 2 ('other package') 0.20 GB/s" in bw
    assert not any("cannot show" in m for m in meaning)
    context = load(hpcbench.examples.path("comm-example.json")).context
    page = report_html(Results(context, [record]))
    assert html.escape(scal) in page and html.escape(bw) in page and page.count("<figure><img") == 1


def test_the_report_says_what_the_figure_cannot_show():
    record = synthetic([layer("same L3", 0.5e-6, [(0, 1)], FAST, [(1, 2e-6)])])
    meaning = comm_meaning(record)
    assert not any(m.startswith("Layer scalability") or m.startswith("Bandwidth per layer") for m in meaning)
    assert ("Servet's Fig. 10b-d cannot show everything for this record: Fig. 10b (layer scalability) lacks "
            "layer 1: same L3 (0.50 us) (no two disjoint pairs).") in meaning


def test_a_results_file_with_trimmed_layers_loads_and_draws_what_it_has(tmp_path):
    """A file written before (or without) the layers' curves: the optional
    parts of the layers gone, layer 1 without a scalability point and its
    sweep at 0 B only. It loads; the panels draw layer 2 and name layer 1."""
    with open(hpcbench.examples.path("comm-example.json")) as f:
        data = json.load(f)
    comm = next(b for b in data["benchmarks"] if b["name"] == "comm")
    first, second = comm["derived"]["layers"]
    for lv in (first, second):
        lv.pop("overheads", None)
    first["scalability"] = []
    first["summary"] = {key: values[:1] for key, values in first["summary"].items() if values is not None}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    record = load(str(path)).get("comm")
    ax = axes()
    plot_layer_scalability(record, ax)
    assert [line.get_label() for line in ax.lines if line.get_marker() == "o"] == ["layer 2: other node (14.23 us)"]
    assert "layer 1: other node (7.94 us) (not measured)" in texts(ax)[-1]
    ax = axes()
    plot_layer_bandwidth(record, ax)
    assert [line.get_label() for line in ax.lines if line.get_marker() == "o"] == [
        "layer 2: other node (14.23 us), ranks 0-1"]
    assert "layer 1: other node (7.94 us) (no message size above 0 B measured)" in texts(ax)[-1]
    assert any("cannot show" in m for m in comm_meaning(record))
    comm_figure(record)                           # the whole figure still draws


def test_the_tidy_export_holds_the_plotted_values():
    record = two_layers()
    results = Results(load(hpcbench.examples.path("comm-example.json")).context, [record])
    table = {(r.quantity, r.parameter_value, r.statistic): r for r in rows(results, _registry.BENCHMARKS)}
    assert table[("layer_bandwidth 0", 4096, "median")].value == 2e9
    assert table[("layer_bandwidth 1", 65536, "median")].value == 4e8
    row = table[("layer_concurrent_time 0", 4, "mean")]
    assert row.value == 8e-6 and row.parameter == "pairs" and row.unit == "s"
    assert table[("layer_slowdown 0", 4, "derived")].value == 4.0


def test_the_comm_notebook_draws_a_cell_per_panel(monkeypatch):
    """notebooks/comm.ipynb runs (as tests/test_notebooks.py runs it) and
    draws Fig. 10b and Fig. 10c/d in cells of their own."""
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    monkeypatch.chdir(os.path.join(root, "notebooks"))
    monkeypatch.delenv("HPCBENCH_RESULTS", raising=False)
    monkeypatch.setattr(plt, "show", lambda *a, **k: None)
    plt.close("all")
    cells = [c for c in json.loads(Path("comm.ipynb").read_text())["cells"] if c["cell_type"] == "code"]
    namespace = {"__name__": "__main__"}
    drawn = []
    for cell in cells:
        before = set(plt.get_fignums())
        exec(compile("".join(cell["source"]), "comm.ipynb cell", "exec"), namespace)
        drawn.append([ax.get_title() for n in sorted(set(plt.get_fignums()) - before)
                      for ax in plt.figure(n).axes])
    plt.close("all")
    for panel in ("Fig. 10b", "Fig. 10c/d"):
        cells_with = [titles for titles in drawn if any(panel in t for t in titles)]
        assert len(cells_with) == 1 and len(cells_with[0]) == 1, (panel, drawn)


def test_the_headlines_compare_each_layers_curves():
    heads = {h.label: h for h in _registry.get("comm").headlines(two_layers())}
    assert heads["layer 1 ('same L3') peak bandwidth"].value == 2e9        # the median of its 3 highest points
    assert heads["layer 2 ('other package') peak bandwidth"].value == 2e8
    slow = heads["layer 1 ('same L3') slowdown, 4 pairs at once"]
    assert slow.value == 4.0 and slow.unit == "ratio" and slow.better == "lower"
    assert heads["layer 2 ('other package') slowdown, 2 pairs at once"].value == pytest.approx(1.1)
    lonely = synthetic([layer("same L3", 0.5e-6, [(0, 1)], FAST, [(1, 2e-6)])])
    assert not any("slowdown" in h.label for h in _registry.get("comm").headlines(lonely))
