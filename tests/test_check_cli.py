"""`hpcbench check RESULTS --against REFERENCE` on the shipped examples and
modified copies of them: exit status 0 (a run against itself), 1 (one
figure made worse: named), 2 (bad input, one line); the JSON schema; the
machines that differ; and `report A B` showing the same verdicts."""
import json
import os

import pytest

from hpcbench import load
from hpcbench.check import compare_results
from hpcbench.check._output import FORMAT, FORMAT_VERSION
from hpcbench.cli import main

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hpcbench", "examples")


def _example(name):
    with open(os.path.join(EXAMPLES, f"{name}-example.json")) as f:
        return json.load(f)


def _save(tmp_path, data, name):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def _slower_echo(tmp_path, factor=1.3):
    """The comm example with the echo at 8 B slowed by `factor`: every sample and the median."""
    data = _example("comm")
    record = data["benchmarks"][0]
    i = record["raw"]["echo"]["sizes"].index(8)
    record["raw"]["echo"]["samples"][i] = [factor * x for x in record["raw"]["echo"]["samples"][i]]
    record["derived"]["echo"]["summary"]["median"][i] *= factor
    return _save(tmp_path, data, "slower.json")


def _run(capsys, *argv):
    status = main(["check", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_run_against_itself_passes(capsys):
    status, out, err = _run(capsys, "example:comm", "--against", "example:comm")
    assert status == 0 and err == ""
    assert out.splitlines()[-1].startswith("OK: every figure within (15 same)")
    assert "Mann-Whitney" in out and "tolerance 5%" in out


def test_one_figure_made_worse_fails_and_is_named(tmp_path, capsys):
    slower = _slower_echo(tmp_path)
    status, out, _ = _run(capsys, slower, "--against", "example:comm")
    assert status == 1
    worse = [line for line in out.splitlines() if "WORSE" in line]
    assert len(worse) == 1 and "comm hpcb0: echo latency 8 B" in worse[0] and "+30.0%" in worse[0]
    assert "Mann-Whitney" in worse[0]
    assert out.splitlines()[-1].startswith("REGRESSION: 1 figure(s) worse or missing")
    # against one earlier run, a regression comes with the note on what one run cannot show
    assert out.splitlines()[-2].startswith("note: one earlier run cannot show how far")
    # the other way round it is better, not a regression, and there is nothing to note
    status, out, _ = _run(capsys, "example:comm", "--against", slower)
    assert status == 0 and "better" in out and "note:" not in out


def test_a_small_change_passes_unless_min_change_is_lowered(tmp_path, capsys):
    slower = _slower_echo(tmp_path, 1.03)
    assert _run(capsys, slower, "--against", "example:comm")[0] == 0
    assert _run(capsys, slower, "--against", "example:comm", "--min-change", "2%")[0] == 1


def test_a_tolerance_figure_made_worse(tmp_path, capsys):
    data = _example("peakflops")
    data["benchmarks"][0]["derived"]["peak_node"] *= 0.8     # five samples: too few for the test, the tolerance decides
    status, out, _ = _run(capsys, _save(tmp_path, data, "slow.json"), "--against", "example:peakflops")
    assert status == 1
    (line,) = [line for line in out.splitlines() if "WORSE" in line]
    assert "peak of the node" in line and "tolerance 5%" in line and "-20.0%" in line


def test_json_schema(tmp_path, capsys):
    status, out, _ = _run(capsys, _slower_echo(tmp_path), "--against", "example:comm", "--format", "json")
    doc = json.loads(out)
    assert status == 1 and doc["exit_status"] == 1 and doc["regression"] is True
    assert (doc["format"], doc["format_version"]) == (FORMAT, FORMAT_VERSION) == ("hpcbench-check", 1)
    assert set(doc) == {"format", "format_version", "results", "reference", "reference_kind", "alpha", "min_change",
                        "correction", "same_machine", "same_kind", "machine_differences", "not_compared", "problems",
                        "figures", "counts", "regression", "exit_status"}
    assert (doc["alpha"], doc["min_change"], doc["correction"], doc["reference_kind"]) == (0.01, 0.05, "holm",
                                                                                           "results")
    assert doc["counts"]["worse"] == 1 and doc["counts"]["same"] == 14
    figure = next(f for f in doc["figures"] if f["verdict"] == "worse")
    assert set(figure) == {"benchmark", "node", "label", "unit", "better", "reference", "value", "change", "verdict",
                           "regression", "test", "p_value", "p_adjusted", "tolerance", "samples", "line", "why"}
    assert (figure["benchmark"], figure["node"], figure["label"], figure["unit"]) == ("comm", "hpcb0",
                                                                                      "echo latency 8 B", "s")
    assert figure["test"] == "Mann-Whitney U" and figure["p_adjusted"] < 0.01 and figure["samples"] == [1064, 1064]
    assert figure["change"] == pytest.approx(0.3)


def test_different_machines_compare_only_what_matches(capsys):
    # stream ran on 'vm', comm on 'hpcb0' of a 4-node cluster: nothing in common, and it says so
    status, out, _ = _run(capsys, "example:stream", "--against", "example:comm")
    lines = out.splitlines()
    assert status == 0 and lines[1].startswith("the same kind of machine on other hosts (hosts: hpcb0, hpcb1, "
                                               "hpcb2, hpcb3 (reference) against vm (this run))")
    assert "not compared: 24 figure(s) only one of the two machines has" in out


def test_another_cpu_is_a_different_machine(tmp_path, capsys):
    data = _example("stream")
    data["context"]["cpu_model"] = "Intel Xeon"
    status, out, _ = _run(capsys, _save(tmp_path, data, "xeon.json"), "--against", "example:stream", "--format",
                          "json")
    doc = json.loads(out)
    assert status == 0 and doc["same_machine"] is False and doc["same_kind"] is False
    assert doc["machine_differences"] == ["CPU model: AMD EPYC (reference) against Intel Xeon (this run)"]
    assert doc["counts"]["same"] == 9          # one node 'vm' on both: its figures match and are compared


def test_missing_benchmark_on_the_same_machine_fails(tmp_path, capsys):
    data = _example("comm")
    data["benchmarks"][0] = {"name": "comm", "node": "hpcb0", "status": "failed", "error": "boom", "traceback": ""}
    status, out, _ = _run(capsys, _save(tmp_path, data, "failed.json"), "--against", "example:comm")
    assert status == 1 and "15 missing" in out.splitlines()[-1]


@pytest.mark.parametrize("argv, words", [
    (["missing.json", "--against", "example:comm"], "results file not found"),
    (["example:comm", "--against", "nowhere.toml"], "reference file not found"),
    (["example:comm"], "the following arguments are required: --against"),
    (["example:comm", "--against", "example:comm", "--alpha", "2"], "invalid significance"),
    (["example:comm", "--against", "example:comm", "--min-change", "lots"], "invalid share"),
])
def test_bad_input_is_one_line_and_status_2(capsys, argv, words):
    status, out, err = _run(capsys, *argv)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and words in err


def test_a_bad_reference_file_is_one_line_naming_the_line(tmp_path, capsys):
    ref = tmp_path / "ref.toml"
    ref.write_text('[[figure]]\nbenchmark = "comm"\nlabel = "echo latency 8 B"\nvalue = "6 parsecs"\n')
    status, out, err = _run(capsys, "example:comm", "--against", str(ref))
    assert status == 2 and out == "" and err.count("\n") == 1 and "line 4: value: unknown unit 'parsecs'" in err


def test_report_shows_the_same_verdicts(tmp_path):
    from hpcbench.report._compare import headline_pairs, page_verdicts, pair_views
    from hpcbench.report._page import views
    a, b = load("example:comm"), load(_slower_echo(tmp_path))
    checked = {r.label: r.verdict.word for r in compare_results(b, a).rows}
    views_a, _ = views(a, False, prefix="a-")
    views_b, _ = views(b, False, prefix="b-")
    paired = pair_views(views_a, views_b)
    shown = {label: v.word for (va, vb), judged in zip(paired, page_verdicts(paired))
             for (label, _, _), v in zip(headline_pairs(va, vb), judged)}
    assert shown == checked and shown["echo latency 8 B"] == "worse"
