"""The report opens with the answer (what the machine is like, what is
wrong with evidence, what to do), names the nodes out of line by the robust
rule, and says each finding once. Synthetic records: the shipped examples
copied over 8 nodes with known changes."""
import copy
import json
import os
from types import SimpleNamespace

import pytest

import hpcbench
from hpcbench._headline import Headline
from hpcbench.report._across import out_of_line_nodes
from hpcbench.report._answer import network_map_problems, problems
from hpcbench.report._page import report_html
from hpcbench.report._repeats import new_lines, same_finding
from hpcbench.report._section import findings_counts
from hpcbench.report._view import RecordView

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODES = 8


def example(name):
    with open(os.path.join(ROOT, "hpcbench", "examples", name)) as f:
        return json.load(f)


def _scale_rates(record, factor):
    """Every bandwidth of a stream record times `factor` (its times divided by it)."""
    derived = record["derived"]
    derived["triad"] *= factor
    for team in derived["teams"]:
        for kernel in team["kernels"]:
            for key in ("best", "median", "worst", "best_with_write_allocate"):
                kernel[key] *= factor


def stream_nodes(tmp_path, slow_node=None, factor=0.7):
    """The STREAM example on 8 nodes, each within 1 % of the others (as a
    healthy cluster), `slow_node`'s memory at `factor` of theirs."""
    data = example("stream-example.json")
    record = data["benchmarks"][0]
    data["context"]["hosts"] = [f"n{i}" for i in range(NODES)]
    data["benchmarks"] = []
    for i in range(NODES):
        rec = copy.deepcopy(record)
        rec["node"] = f"n{i}"
        _scale_rates(rec, (1 + 0.01 * (i - 3.5) / 3.5) * (factor if f"n{i}" == slow_node else 1.0))
        data["benchmarks"].append(rec)
    path = tmp_path / f"stream-{slow_node}.json"
    path.write_text(json.dumps(data))
    return hpcbench.load(str(path))


def section(text, anchor):
    return text.split(f'id="{anchor}"')[1].split("</section>")[0]


def test_a_node_with_memory_30_percent_slower_is_named_with_its_evidence(tmp_path):
    text = report_html(stream_nodes(tmp_path, "n3"), figures=False)
    across = section(text, "across-stream")
    assert "n3: Triad, all cores 33.8 GB/s against a median of 48.3 GB/s" in across
    assert "30 % worse" in across and "n3" in across.split("<li>")[1]
    assert not any(f"<li>n{i}:" in across for i in range(NODES) if i != 3)
    answer = section(text, "answer")
    assert "n3 is out of line with the other nodes in stream: Triad, all cores 33.8 GB/s" in answer
    assert "check n3&#x27;s hardware and configuration behind its Triad, all cores and 8 more figure(s)" in answer
    assert not any(f"n{i} is out of line" in answer for i in range(NODES) if i != 3)


def test_a_healthy_cluster_has_no_node_named(tmp_path):
    text = report_html(stream_nodes(tmp_path), figures=False)
    assert "No node out of line with the others" in section(text, "across-stream")
    answer = section(text, "answer")
    assert "Nothing is wrong" in answer and "no node is out of line" in answer and "What to do" not in answer
    # the machine figure: the median over the nodes
    assert "STREAM Triad, all cores 48.3 GB/s (median over 8 nodes)" in answer


def test_the_answer_comes_first(tmp_path):
    text = report_html(stream_nodes(tmp_path), figures=False)
    assert text.index('id="answer"') < text.index('id="machine"') < text.index('id="overview"')


# ---- the rule's sides, on views of known headlines ------------------------------------------------


def views(label, unit, better, values):
    """One stream 'record' per value, node n<i>, with one headline."""
    out = []
    for i, value in enumerate(values):
        record = SimpleNamespace(name="stream", status="ok", node=f"n{i}", warnings=[], error=None)
        out.append(RecordView(record, f"stream-n{i}", headlines=[Headline(label, value, unit, better)]))
    return out


def test_only_the_worse_side_counts_where_one_side_is_better():
    base = [10.0, 10.1, 9.9, 10.0, 10.05, 9.95, 10.0, 10.0]
    faster = views("bandwidth", "bytes/s", "higher", base[:7] + [14.0])
    assert out_of_line_nodes(faster) == []
    slower = views("bandwidth", "bytes/s", "higher", base[:7] + [6.0])
    assert [(f.view.node, f.label) for f in out_of_line_nodes(slower)] == [("n7", "bandwidth")]
    slower_time = views("latency", "s", "lower", base[:7] + [14.0])
    assert [f.view.node for f in out_of_line_nodes(slower_time)] == ["n7"]


def test_a_figure_with_no_better_side_is_judged_on_both():
    """A node whose effective cache is larger than its peers' is as odd as one whose is smaller."""
    size = 32.0 * 2 ** 20
    for odd in (16.0 * 2 ** 20, 64.0 * 2 ** 20):
        found = out_of_line_nodes(views("L3 size", "bytes", None, [size] * 7 + [odd]))
        assert [f.view.node for f in found] == ["n7"]


def test_fewer_than_three_nodes_name_nothing():
    assert out_of_line_nodes(views("bandwidth", "bytes/s", "higher", [10.0, 1.0])) == []


# ---- the network map, failed fits, findings said once -------------------------------------------


def test_the_network_maps_slow_links_and_nodes_are_problems_with_evidence():
    link = SimpleNamespace(source="n2", destination="n5",
                           evidence="bandwidth_loaded 0.6 GB/s against a median of 1.2 GB/s, 50 % worse")
    node = SimpleNamespace(node="n4", evidence=lambda: "bandwidth_loaded 0.5 GB/s against a median of 1.2 GB/s")
    record = SimpleNamespace(name="network-map", status="ok", node="n0", warnings=[], error=None,
                             derived=SimpleNamespace(slow_links=[link], slow_nodes=[node]))
    found = network_map_problems([RecordView(record, "network-map-n0")])
    assert [p.what for p in found] == ["slow link n2 -> n5: " + link.evidence, "slow node n4: " + node.evidence()]
    assert found[0].action == "check the cable, the switch ports and the network interfaces of the link n2 -> n5"
    assert found[1].action.startswith("check n4's network interface")
    assert all(p.anchor == "network-map-n0" for p in found)
    # should the benchmark also list a finding as a disagreement, the answer says it once
    said_twice = RecordView(record, "network-map-n0", disagreements=[f"n2 -> n5 {link.evidence}", "another"])
    assert [p.what for p in problems([said_twice])][2:] == [
        "network-map on n0 disagrees with the machine or its model: another"]
    # the benchmarks table counts them beside the disagreements
    counted = findings_counts(said_twice)
    assert "1 slow link" in counted and "1 slow node" in counted and "2 disagreements" in counted
    # a record without them (before the benchmark lands, or nothing slow) is no problem, and counts none
    quiet = SimpleNamespace(name="network-map", status="ok", node="n0", warnings=[], error=None)
    assert network_map_problems([RecordView(quiet, "x")]) == []
    assert findings_counts(RecordView(quiet, "x")) == ""


def test_a_failed_fit_is_grey_and_in_the_answer_not_a_finding():
    text = report_html(hpcbench.load(os.path.join(ROOT, "hpcbench", "examples", "mapping-example.json")),
                       figures=False)
    comm = section(text, "comm-hpcb0")
    grey = comm.split('class="findings skipped"')[1].split("</div>")[0]
    assert "the per-hop model failed: its fitted per-hop cost is negative (-259.67 us)" in grey
    red = comm.split('class="findings bad"')[1].split("</div>")[0]
    assert "per-hop" not in red and "Each extra hop" not in comm
    assert "7 fit(s) failed, so their figures are not findings: the per-hop model failed" in section(text, "answer")
    assert "the overlap of exchange with DAXPY failed: none of its 4 measured cells can be" in grey


def test_a_finding_in_two_wordings_is_said_once():
    assert same_finding("L2: measured 2359296 bytes, hwloc reports 1048576",
                        "L2: measured 2.25 MiB, hwloc reports 1 MiB")
    assert not same_finding("L2: measured 2359296 bytes, hwloc reports 1048576", "L3: measured 2.25 MiB, hwloc "
                            "reports 1 MiB")
    assert not same_finding("L2: measured 2 MiB, hwloc reports 1 MiB", "L2: measured 2.25 MiB, hwloc reports 1 MiB")
    assert new_lines(["a 1", "a 1", "b"], ["b"]) == ["a 1"]


def test_the_node_example_says_each_cache_finding_once():
    """The shipped node example (a shared VM whose L3 other tenants hold): its flagged L3 is one finding, said
    once in the cache section's boxes and once in the answer, in one unit."""
    text = report_html(hpcbench.load(os.path.join(ROOT, "hpcbench", "examples", "node-example.json")), figures=False)
    cache = section(text, "cache-vm")
    boxes = "".join(part.split("</div>")[0] for part in cache.split('class="findings')[1:])
    assert "bytes" not in boxes
    assert boxes.count("L3 at 8 MiB: effective capacity 8 MiB under load") == 1
    assert section(text, "answer").count("L3 at 8 MiB: effective capacity") == 1


@pytest.mark.parametrize("name", ["stream-example.json", "peakflops-example.json", "numa-example.json"])
def test_a_working_machine_opens_with_nothing_wrong(name):
    text = report_html(hpcbench.load(os.path.join(ROOT, "hpcbench", "examples", name)), figures=False)
    assert "Nothing is wrong" in section(text, "answer")


def test_problems_of_one_benchmark_on_many_nodes_are_said_once():
    record = SimpleNamespace(name="cache", status="ok", warnings=["busy"], error=None)
    many = [RecordView(SimpleNamespace(**vars(record), node=f"n{i}"), f"cache-n{i}",
                       disagreements=["L3: measured 16 MiB, hwloc reports 32 MiB"], warnings=["busy"])
            for i in range(8)]
    found = problems(many)
    assert len(found) == 1
    assert found[0].what == ("cache on n0, n1, n2 and 5 more nodes disagrees with the machine or its model: "
                             "L3: measured 16 MiB, hwloc reports 32 MiB")
    assert found[0].action.startswith("rerun cache on a quiet machine")
