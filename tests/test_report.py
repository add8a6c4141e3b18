"""The HTML report (`hpcbench report`, `run --report`, docs/report.md).

The report of every shipped example builds, is well formed (a strict
parser check), holds a section per record with its figure, meaning,
findings and `show` table; headless Chromium opens it without console
errors or requests, every figure has a size, and a screenshot is saved to
build/report-screenshots/. Failed and skipped records are said in words;
two files side by side give the right ratios; bad input is one line and
exit 2; a benchmark the report has never heard of joins it by the protocol
alone. Whatever the loader accepts, the report draws: tests/test_fuzz_loader.py."""
import copy
import glob
import html
import io
import json
import os
import struct
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import headless
import pytest
from htmlcheck import html_errors

import hpcbench
from hpcbench import _registry
from hpcbench._headline import UNITS, Headline, format_value, ratio
from hpcbench._record import Record
from hpcbench._results import Results
from hpcbench.cli import main
from hpcbench.report import ReportError, comparison_html, report_html, write_report
from hpcbench.report._compare import pair_views, verdict
from hpcbench.report._page import single_page
from hpcbench.report._repeats import new_lines
from hpcbench.report._view import RecordView
from hpcbench.report._write import default_report_path

matplotlib = pytest.importorskip("matplotlib")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Results files only: hpcbench/examples also holds inputs such as francesca-profile.json.
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "hpcbench", "examples", "*-example.json")))
SCREENSHOTS = os.path.join(ROOT, "build", "report-screenshots")
#: Benchmarks whose records this branch taught the report to explain.
EXPLAINED = {"cache", "shared-caches", "memory", "stream",
             "bandwidth", "peakflops", "numa", "multibsp", "comm", "distance", "network-access", "matrix", "p2p",
             "collectives", "nbc", "rma", "network-map", "bisection"}
#: The tests of `pages` (drawing every example's report takes 25 s here) and the fuzz corpus's reports: not in
#: tools/test.sh --fast, whose report tests are the ones below that draw one page each.
SLOW = pytest.mark.slow


def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


def example(name):
    return os.path.join(ROOT, "hpcbench", "examples", name)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """name -> (path, text, the loaded results) for every example, the
    side-by-side page and the page of a file with a failed and a skipped record."""
    folder = tmp_path_factory.mktemp("reports")
    out = {}
    for path in EXAMPLES:
        name = os.path.basename(path)[:-5]
        target = str(folder / f"{name}.html")
        write_report([path], target)
        out[name] = (target, Path(target).read_text(), hpcbench.load(path))
    target = str(folder / "compare.html")
    write_report([example("cache-example.json"), example("node-example.json")], target)
    out["compare"] = (target, Path(target).read_text(), None)
    target = str(folder / "nodes.html")
    write_report([many_nodes_file(folder)], target)
    out["nodes"] = (target, Path(target).read_text(), None)
    failed = failed_file(folder)
    target = str(folder / "failed.html")
    write_report([failed], target)
    out["failed"] = (target, Path(target).read_text(), hpcbench.load(failed))
    return out


def many_nodes_file(folder) -> str:
    """The cache example as if run on 8 nodes, n5's L2 half again as slow."""
    data = json.loads(Path(example("cache-example.json")).read_text())
    record = data["benchmarks"][0]
    data["context"]["hosts"] = [f"n{i}" for i in range(8)]
    data["benchmarks"] = []
    for i in range(8):
        rec = copy.deepcopy(record)
        rec["node"] = f"n{i}"
        if i == 5:
            l2 = rec["derived"]["levels"][1]
            l2["latency_ns"], l2["latency_cycles"] = 1.5 * l2["latency_ns"], 1.5 * l2["latency_cycles"]
        data["benchmarks"].append(rec)
    path = os.path.join(str(folder), "nodes.json")
    with open(path, "w") as f:
        json.dump(data, f)
    return path


def failed_file(folder) -> str:
    """node-example with shared-caches skipped and memory failed (as the runner writes them)."""
    data = json.loads(Path(example("node-example.json")).read_text())
    for rec in data["benchmarks"]:
        if rec["name"] == "memory":
            for key in ("parameters", "raw", "derived", "units"):
                rec.pop(key, None)
            rec.update(status="failed", error="MemoryError: cannot allocate 2 arrays of 128 MiB",
                       traceback="Traceback (most recent call last):\n  ...\nMemoryError")
        elif rec["name"] == "shared-caches":
            for key in ("parameters", "raw", "derived", "units"):
                rec.pop(key, None)
            rec.update(status="skipped", reason="shared-caches needs at least 2 PUs; this process may use 1")
    path = os.path.join(str(folder), "failed.json")
    with open(path, "w") as f:
        json.dump(data, f)
    return path


# ---- every example ---------------------------------------------------------------------------------


@SLOW
@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_the_report_of_every_example_holds_every_record(pages, path):
    name = os.path.basename(path)[:-5]
    target, text, results = pages[name]
    assert html_errors(text) == []
    assert os.path.getsize(target) < 5 << 20
    # one section per record, each with its figure (ok records), table and meaning; nothing left out
    assert text.count('<section id="') == 3 + len(results.benchmarks)      # answer, machine, overview, records
    assert text.count("<figure><img") == sum(r.ok for r in results.benchmarks)
    assert "Not shown" not in text
    for rec in results.benchmarks:
        bench = _registry.get(rec.name)
        for line in bench.summary(rec):
            assert html.escape(line) in text
        meaning = bench.meaning(rec)
        assert meaning and all(html.escape(m) in text for m in meaning)
        # each finding once: a warning that repeats a disagreement in other words is not said again
        for finding in new_lines(bench.disagreements(rec) + list(rec.warnings or []), []):
            assert html.escape(finding) in text
    # the machine context
    ctx = results.context
    for fact in (ctx.cpu_model, ctx.hosts[0], ctx.hpcbench, ctx.date, ctx.topology["hwloc_version"]):
        assert html.escape(fact) in text
    assert "Open MPI v4.1.4" in text


@SLOW
def test_disagreements_are_marked_red_and_not_repeated_as_warnings(pages):
    _, text, _ = pages["cache-example"]
    red = text.split('class="findings bad"')[1].split("</div>")[0]
    assert "L3: measured 16 MiB, hwloc reports 32 MiB" in red
    amber = text.split('class="findings warn"')[1].split("</div>")[0]
    assert "hwloc reports" not in amber and "varied by more than 10%" in amber
    # the table line that disagrees is marked
    assert '<span class="bad">  L3 ' in text


@SLOW
def test_the_page_needs_nothing_from_outside(pages):
    for _, text, _ in pages.values():
        assert "default-src 'none'" in text and "<script" not in text and "<link" not in text
        sources = [part.split('"')[0] for part in text.split('src="')[1:]]
        assert sources and all(s.startswith("data:image/svg+xml;base64,") for s in sources)


# ---- in a browser -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    try:
        chromium = headless.Chromium()
    except headless.Unavailable as e:
        pytest.skip(f"headless Chromium cannot run here: {e}")
    yield chromium
    chromium.close()


def png_size(data: bytes) -> tuple:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


@SLOW
@pytest.mark.parametrize("name", [os.path.basename(p)[:-5] for p in EXAMPLES] + ["compare", "failed", "nodes"])
def test_the_page_loads_in_chromium_with_every_figure_shown(pages, browser, name):
    path, text, _ = pages[name]
    page = browser.load(path)
    assert page.console_errors == []
    assert page.external_requests() == []
    assert page.title.startswith("hpcbench")
    assert len(page.figures) == text.count("<figure><img") > 0
    for figure in page.figures:
        assert figure["complete"] and figure["natural_width"] > 0 and figure["natural_height"] > 0, figure
        assert figure["width"] > 100 and figure["height"] > 50, figure
    os.makedirs(SCREENSHOTS, exist_ok=True)
    shot = os.path.join(SCREENSHOTS, f"{name}.png")
    with open(shot, "wb") as f:
        f.write(page.screenshot)
    width, height = png_size(page.screenshot)
    assert width == headless.WIDTH and height > 1000


def test_the_browser_check_sees_errors_requests_and_broken_figures(browser, tmp_path):
    """The checks above can fail: a console error, a request out of the page
    and a figure that does not decode are all seen."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><title>x</title></head><body>'
                   '<figure><img src="data:image/svg+xml;base64,bm90IGFuIHN2Zw==" alt="broken"></figure>'
                   '<img src="file:///nonexistent/hpcbench-missing.png" alt="missing">'
                   '<script>console.error("boom")</script></body></html>')
    page = browser.load(str(bad))
    assert any("boom" in e for e in page.console_errors)
    assert page.external_requests() == ["file:///nonexistent/hpcbench-missing.png"]
    assert page.figures[0]["natural_width"] == 0


# ---- the HTML check ---------------------------------------------------------------------------------


@pytest.mark.parametrize("bad, words", [
    ("<div><p>x</div>", "<p> opened at line 1 is never closed"),
    ("<div>x</span></div>", "</span> without its start tag"),
    ("<div>", "never closed"),
    ("</span>", "without its start tag"),
    ("<div/>", "not a void element"),
    ('<p id="a"></p><p id="a"></p>', "used 2 times"),
])
def test_the_html_check_finds_what_a_browser_forgives(bad, words):
    page = f"<!DOCTYPE html><html><head><title>t</title></head><body>{bad}</body></html>"
    assert any(words in e for e in html_errors(page)), html_errors(page)
    assert html_errors("<!DOCTYPE html><html><head><title>t</title></head><body><br><img src=x></body></html>") == []


# ---- many nodes --------------------------------------------------------------------------------------


@SLOW
def test_many_nodes_get_one_table_and_the_telling_figures(pages):
    """8 cache records: one table of their numbers against the median (n5's
    L2 latency marked and named by the robust rule), figures for 4 of them (the first, then the most
    unusual: n5), every record still with its section and table."""
    _, text, _ = pages["nodes"]
    assert html_errors(text) == []
    across = text.split('id="across-cache"')[1].split("</section>")[0]
    assert across.count("<tr") == 1 + 1 + 8                    # header, median, one per node
    n5 = [r for r in across.split("<tr") if ">n5<" in r][0]
    assert 'class="differs"' in n5 and '<span class="worse">' in n5 and "1 figure(s) out of line" in across
    assert "<li>n5: L2 latency " in across and across.count("<li>") == 1     # named, with its evidence
    assert text.count("<figure><img") == 4 and text.count("Figure not drawn: this file holds 8 cache records") == 4
    for node in ("n0", "n5"):
        assert "<figure><img" in text.split(f'id="cache-{node}"')[1].split("</section>")[0]
    assert text.count("As hpcbench show prints it") == 8


# ---- failed and skipped -----------------------------------------------------------------------------


@SLOW
def test_a_failed_or_skipped_benchmark_is_said_in_words(pages):
    _, text, results = pages["failed"]
    assert html_errors(text) == []
    failed = text.split('id="memory-vm"')[1].split("</section>")[0]
    assert 'class="badge failed"' in failed and "MemoryError: cannot allocate 2 arrays of 128 MiB" in failed
    assert "memory failed on vm, so there are no results for it" in failed and "traceback" in failed
    skipped = text.split('id="shared-caches-vm"')[1].split("</section>")[0]
    assert 'class="badge skipped"' in skipped
    assert "shared-caches needs at least 2 PUs; this process may use 1" in skipped
    assert "shared-caches did not run on vm, for the reason above" in skipped
    # the one that ran is whole
    assert text.split('id="cache-vm"')[1].count("<figure><img") >= 1


def test_the_command_says_what_it_wrote(tmp_path):
    status, out, err = cli("report", example("node-example.json"), "-o", str(tmp_path / "r.html"))
    assert status == 0 and err == ""
    assert out.strip() == f"report written to {tmp_path / 'r.html'}: 3 benchmark records (3 ok); 2 disagreements, " \
                          "1 warning"


# ---- side by side -----------------------------------------------------------------------------------


def test_verdicts_on_known_ratios():
    def v(a, b, better):
        return verdict(Headline("x", a, "s", better), Headline("x", b, "s", better))
    assert v(10.0, 12.0, "higher")[:1] == ("x1.2",) and "B 20% better" in v(10.0, 12.0, "higher")[1]
    assert "B 20% worse" in v(10.0, 12.0, "lower")[1]
    assert "B larger by 20%" in v(10.0, 12.0, None)[1]
    assert "about the same" in v(10.0, 10.4, "higher")[1] and v(10.0, 10.4, "higher")[2] is False
    assert "B 3.0x better" in v(1.0, 3.0, "higher")[1]
    assert "B 75% worse" in v(4.0, 1.0, "higher")[1]
    assert v(0.0, 1.0, "higher") == ("-", "", False) and v(None, 1.0, None) == ("-", "", False)
    assert ratio(Headline("x", 2.0, "s"), Headline("x", 3.0, "s")) == 1.5


def test_records_pair_by_name_and_node_then_in_order():
    def view(name, node):
        return RecordView(Record(name=name, node=node), f"{name}-{node}")
    a = [view("cache", "n1"), view("cache", "n2"), view("memory", "n1")]
    b = [view("cache", "n2"), view("cache", "n3"), view("comm", "n1")]
    pairs = [(x and (x.name, x.node), y and (y.name, y.node)) for x, y in pair_views(a, b)]
    assert pairs == [(("cache", "n1"), ("cache", "n3")), (("cache", "n2"), ("cache", "n2")),
                     (("memory", "n1"), None), (None, ("comm", "n1"))]


def test_two_files_side_by_side_show_the_ratio_of_every_headline(tmp_path):
    """B is the network example with every bandwidth doubled: ratDist and
    ratNC stay, every bandwidth is x2 and 'better'."""
    data = json.loads(Path(example("network-example.json")).read_text())
    for rec in data["benchmarks"]:
        rec["derived"]["bandwidth"] = {k: 2 * v for k, v in rec["derived"]["bandwidth"].items()}
    b = tmp_path / "faster.json"
    b.write_text(json.dumps(data))
    status, out, err = cli("report", example("network-example.json"), str(b), "-o", str(tmp_path / "cmp.html"))
    assert status == 0, err
    text = Path(tmp_path / "cmp.html").read_text()
    assert html_errors(text) == []
    rows = [r for r in text.split("<tr") if "bandwidth at distance 1<" in r]
    network = json.loads(Path(example("network-example.json")).read_text())
    bandwidth = network["benchmarks"][0]["derived"]["bandwidth"]["1"]
    assert len(rows) == 1 and ">x2<" in rows[0]
    for value in (bandwidth, 2 * bandwidth):
        assert f">{format_value(value, 'bytes/s')}<" in rows[0]
    assert "B 2.0x better" in rows[0]
    same = [r for r in text.split("<tr") if "ratDist 2<" in r][0]
    assert ">x1<" in same and "about the same" in same
    assert text.count("<figure><img") == 4                       # both records of both files
    assert "A: network-example.json" in text and "B: faster.json" in text


def test_the_default_report_goes_beside_the_results():
    assert default_report_path(["runs/a.json"]) == "runs/a.html"
    assert default_report_path(["a.out"]) == "a.out.html"
    assert default_report_path(["x/a.json", "y/b.json"]) == "x/a-vs-b.html"
    assert default_report_path(["example:comm"]) == "example-comm.html"        # no "example:comm.html"
    assert default_report_path(["example:node", "b.json"]) == "example-node-vs-b.html"


# ---- bad input --------------------------------------------------------------------------------------


def _damaged(tmp_path):
    p = tmp_path / "damaged.json"
    p.write_text(Path(example("network-example.json")).read_text()[:-200])
    return str(p)


def _version_2(tmp_path):
    p = tmp_path / "v2.json"
    text = Path(example("network-example.json")).read_text()
    p.write_text(text.replace('"format_version": 1', '"format_version": 2'))
    return str(p)


def _plain_json(tmp_path):
    p = tmp_path / "other.json"
    p.write_text('{"a": 1}')
    return str(p)


def _not_a_report(tmp_path):
    p = tmp_path / "notes.html"
    p.write_text("my own notes")
    return str(p)


BAD = {
    "missing results": (lambda t: [str(t / "nope.json")], None, "results file not found"),
    "damaged results": (lambda t: [_damaged(t)], None, "damaged or truncated"),
    "a directory as results": (lambda t: [str(t)], None, "is a directory"),
    "not a results file": (lambda t: [_plain_json(t)], None, "not an hpcbench results file"),
    "different format versions": (lambda t: [example("network-example.json"), _version_2(t)], None,
                                  "has results format version 1 and"),
    "output folder missing": (lambda t: [example("network-example.json")], lambda t: str(t / "no" / "r.html"),
                              "folder of the report does not exist"),
    "output is a directory": (lambda t: [example("network-example.json")], lambda t: str(t), "not a directory"),
    "output not writable": (lambda t: [example("network-example.json")], lambda t: "/proc/hpcbench-report.html",
                            "cannot write the report"),
    "output is not a report": (lambda t: [example("network-example.json")], _not_a_report,
                               "is not an hpcbench report; it is never overwritten"),
    "output is the results": (lambda t: [example("network-example.json")],
                              lambda t: example("network-example.json"), "would overwrite the results file"),
    "three files": (lambda t: [example("network-example.json")] * 3, None, "give one results file, or two"),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_input_is_one_line_and_exit_2(tmp_path, case):
    results, output, words = BAD[case]
    args = ["report", *results(tmp_path)] + (["-o", output(tmp_path)] if output else ["-o", str(tmp_path / "r.html")])
    before = sorted(os.listdir(tmp_path))
    status, out, err = cli(*args)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("hpcbench report: ") and words in err, err
    assert sorted(os.listdir(tmp_path)) == before                     # nothing written, nothing replaced
    with pytest.raises(ReportError):
        write_report(*([results(tmp_path)] + ([output(tmp_path)] if output else [str(tmp_path / "r.html")])))


def test_an_existing_report_is_replaced(tmp_path):
    target = str(tmp_path / "r.html")
    write_report([example("network-example.json")], target)
    write_report([example("multibsp-example.json")], target)
    assert "multibsp" in Path(target).read_text()


# ---- run --report -----------------------------------------------------------------------------------


def _run(*args, cwd):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "hpcbench", "run", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_run_writes_the_report_beside_the_results(tmp_path):
    done = _run("distance", "-q", "-o", "net.json", "--report", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"report written to {tmp_path / 'net.html'}" in done.stdout
    text = Path(tmp_path / "net.html").read_text()
    assert html_errors(text) == [] and 'class="badge skipped"' in text
    assert "network benchmarks need a job on at least 2 nodes" in text


def test_run_refuses_a_report_path_before_measuring(tmp_path):
    (tmp_path / "net.html").write_text("not a report")
    done = _run("distance", "-q", "-o", "net.json", "--report", cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "--report" in done.stderr and "never overwritten" in done.stderr
    assert not (tmp_path / "net.json").exists() and Path(tmp_path / "net.html").read_text() == "not a report"


# ---- the extension point ----------------------------------------------------------------------------


class _Toy(hpcbench.Benchmark):
    """toy: a benchmark the report has never heard of"""

    name = "toy"
    scope = "node"

    def summary(self, record):
        return [f"toy on {record.node}: {record.derived['value']} units"]

    def plot(self, record):
        from hpcbench._plot import new_figure
        fig, axes = new_figure(1, 1, (4, 3))
        axes[0, 0].plot([1, 2, 3], [record.derived["value"]] * 3)
        return fig


class _ExplainedToy(_Toy):
    def meaning(self, record):
        return [f"the toy value is {record.derived['value']}"]

    def disagreements(self, record):
        return ["the toy disagrees with itself"]

    def headlines(self, record):
        return [Headline("toy value", float(record.derived["value"]), "count", "higher")]


@pytest.mark.parametrize("bench", [_Toy(), _ExplainedToy()], ids=["protocol-defaults", "explained"])
def test_a_new_benchmark_joins_the_report_through_the_protocol(monkeypatch, bench):
    monkeypatch.setitem(_registry._BY_NAME, "toy", bench)
    results = Results({"hosts": ["n1"]}, [Record(name="toy", node="n1", derived={"value": 7})])
    text = report_html(results)
    assert html_errors(text) == [] and "toy on n1: 7 units" in text and text.count("<figure><img") == 1
    other = Results({"hosts": ["n2"]}, [Record(name="toy", node="n2", derived={"value": 14})])
    compared = comparison_html(results, other)
    if isinstance(bench, _ExplainedToy):
        assert "the toy value is 7" in text and "the toy disagrees with itself" in text
        row = [r for r in compared.split("<tr") if "toy value<" in r][0]
        assert ">x2<" in row and "B 2.0x better" in row
    else:
        assert "What this means" not in text
        assert "declares no headline numbers" in compared


def test_the_same_benchmark_twice_on_one_node_gets_two_sections(monkeypatch):
    monkeypatch.setitem(_registry._BY_NAME, "toy", _Toy())
    records = [Record(name="toy", node="n1", derived={"value": v}) for v in (1, 2)] + \
        [Record(name="machine", node=None, status="skipped", reason="unknown to this version"),
         Record(name="future", node="n1", derived={"x": 1})]
    text = report_html(Results({}, records))
    assert html_errors(text) == []
    assert 'id="toy-n1"' in text and 'id="toy-n1-2"' in text and 'id="machine-node"' in text
    assert "does not know the benchmark &#x27;future&#x27;" in text          # written by a newer version


def test_a_part_that_raises_costs_only_that_part(monkeypatch):
    bench = _ExplainedToy()
    monkeypatch.setattr(bench, "plot", lambda record: 1 / 0)
    monkeypatch.setitem(_registry._BY_NAME, "toy", bench)
    text, views = single_page(Results({}, [Record(name="toy", node="n1", derived={"value": 7})]))
    assert html_errors(text) == [] and "toy on n1: 7 units" in text and "the toy value is 7" in text
    assert views[0].problems == ["the figure: ZeroDivisionError: division by zero"]
    assert "the figure: ZeroDivisionError" in text and "<figure>" not in text


def test_without_matplotlib_the_page_says_why_it_has_no_figures(monkeypatch):
    from hpcbench.report import _page
    monkeypatch.setattr(_page, "matplotlib_missing", lambda: "figures need matplotlib, which is not installed here")
    text = report_html(hpcbench.load(example("network-example.json")))
    assert html_errors(text) == [] and "<figure>" not in text
    assert text.count("figures need matplotlib, which is not installed here") == 2


def test_the_protocol_defaults_say_nothing():
    base = hpcbench.Benchmark()
    assert base.meaning(None) == [] and base.disagreements(None) == [] and base.headlines(None) == []


# ---- what each domain says (known answers) ----------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_headlines_are_unique_typed_numbers(path):
    for rec in hpcbench.load(path).benchmarks:
        heads = _registry.get(rec.name).headlines(rec)
        assert heads and rec.name in EXPLAINED
        labels = [h.label for h in heads]
        assert len(set(labels)) == len(labels), labels
        for h in heads:
            assert h.unit in UNITS and h.better in (None, "higher", "lower")
            assert h.value is None or isinstance(h.value, float)


def test_cache_headlines_and_meaning_are_the_records_numbers():
    rec = hpcbench.load(example("cache-example.json")).get("cache")
    heads = {h.label: h for h in _registry.get("cache").headlines(rec)}
    l2 = next(lv for lv in rec.derived.levels if lv.level == 2)
    assert heads["L2 size"].value == l2.size and heads["L2 latency"].value == pytest.approx(l2.latency_ns * 1e-9)
    assert heads["memory latency"].value == pytest.approx(rec.derived.memory.latency_ns * 1e-9)
    meaning = _registry.get("cache").meaning(rec)
    assert f"L2: data up to 1 MiB costs {l2.latency_ns:.1f} ns per dependent access" in meaning[1]
    ratio_to_l1 = rec.derived.memory.latency_ns / rec.derived.levels[0].latency_ns
    assert f"{ratio_to_l1:.0f}x the L1 latency" in meaning[3]


def test_memory_saturation_is_the_fewest_cores_within_90_percent():
    from hpcbench.memory._records import Scalability, ScalabilityPoint
    from hpcbench.memory._report import saturating_cores
    points = [ScalabilityPoint(cores=k, per_core=v / k, slowest_core=v / k, total=v, aggregate=v)
              for k, v in ((1, 10e9), (2, 19e9), (3, 25e9), (4, 27e9), (5, 27.5e9))]
    assert saturating_cores(Scalability(group="node", cores=[0, 1, 2, 3, 4], points=points)) == 3    # 25 >= 0.9 x 27.5
    assert saturating_cores(Scalability(group="node", cores=[], points=[])) is None


def test_comm_layers_that_ignore_the_placement_are_disagreements():
    rec = copy.deepcopy(hpcbench.load(example("comm-example.json")).get("comm"))
    bench = _registry.get("comm")
    # A baseline where every layer holds one relation of its own: no disagreement.
    for i, lv in enumerate(rec.derived.layers):
        lv.names = {f"relation {i}": sum(lv.names.values())}
    assert bench.disagreements(rec) == []
    layer = rec.derived.layers[0]
    layer.names = {"same L3": 4, "other package": 2}
    lines = bench.disagreements(rec)
    assert len(lines) == 1 and "mixes same L3 (4 pairs), other package (2 pairs)" in lines[0]
    second = copy.deepcopy(layer)
    second.names, second.latency = {"same L3": 2}, 2 * layer.latency
    rec.derived.layers.append(second)
    assert any("pairs 'same L3' fall into 2 latency layers" in x for x in bench.disagreements(rec))


def test_a_multibsp_model_off_by_more_than_twice_is_a_disagreement():
    rec = copy.deepcopy(hpcbench.load(example("multibsp-example.json")).get("multibsp"))
    bench = _registry.get("multibsp")
    assert bench.disagreements(rec) == []                     # x1.50 at 2^24 in the example
    rec.derived.inner_product[-1].measured_over_predicted = 2.5
    assert bench.disagreements(rec) == ["inner product of 2^24 doubles: measured x2.50 the MultiBSP prediction"]


def test_shared_caches_meaning_names_the_groups():
    rec = hpcbench.load(example("node-example.json")).get("shared-caches")
    assert _registry.get("shared-caches").meaning(rec)[2].startswith(
        "L3: measured private to each core, hwloc says shared by {0,1}")


def test_values_read_with_their_units():
    assert format_value(1.52e-6, "s") == "1.52 us" and format_value(1.7e-7, "s") == "170 ns"
    assert format_value(0.25, "s") == "250 ms" and format_value(3.0, "s") == "3 s"
    assert format_value(9.39e9, "bytes/s") == "9.39 GB/s" and format_value(4.81e7, "bytes/s") == "48.1 MB/s"
    assert format_value(32768, "bytes") == "32 KiB" and format_value(None, "bytes") == "-"
    assert format_value(float("nan"), "ratio") == "-" and format_value(2.0, "ratio") == "x2.00"


# ---- whatever the loader accepts --------------------------------------------------------------------
# The report of every mutant the loader accepts is checked in tests/test_fuzz_loader.py, in the same loop as
# `show`, `degr` and `advise`: making and loading the 500 mutants is most of the cost, done once there.
