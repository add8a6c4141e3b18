"""The tidy export (hpcbench._tidy, `show --format csv|json`,
`Results.to_frame()`): every shipped example exports, rows are typed,
figures read by hand from the example files are there, CSV and JSON agree."""
import glob
import io
import itertools
import json
import math
import os
import subprocess
import sys

import pytest

import hpcbench.examples
from hpcbench import _registry
from hpcbench._protocol import Benchmark
from hpcbench._record import Record
from hpcbench._results import Results, load
from hpcbench._tidy import COLUMNS, STATISTICS, UNITS, Row, RowBuilder, parse_csv, rows, write_csv, write_json
from hpcbench.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "hpcbench", "examples", "*-example.json")))
CONTEXT = {"hpcbench_version": "0.1.0", "created": "2026-11-26T00:00:00+00:00"}


def table_of(path: str) -> list:
    return rows(load(path), _registry.BENCHMARKS)


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def refuse_constant(name: str):
    raise AssertionError(f"{name} in the JSON export")


def test_the_columns_are_the_documented_ones():
    assert COLUMNS == ("benchmark", "node", "quantity", "parameter", "parameter_value", "value", "unit", "statistic")


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_every_example_exports_typed_rows(path):
    results = load(path)
    table = rows(results, _registry.BENCHMARKS)
    assert {r.benchmark for r in table} == {rec.name for rec in results.benchmarks if rec.ok}
    for row in table:
        assert isinstance(row, Row)
        assert all(isinstance(getattr(row, c), str) for c in ("benchmark", "node", "quantity", "parameter", "unit",
                                                              "statistic")), row
        assert row.quantity and row.node
        assert is_number(row.value), row
        assert (row.parameter == "") == (row.parameter_value is None), row
        assert row.parameter_value is None or is_number(row.parameter_value), row
        assert row.unit in UNITS, row
        assert row.statistic in STATISTICS, row
    # one value per (benchmark, node, quantity, parameter value, statistic): a pivot never collides
    keys = [(r.benchmark, r.node, r.quantity, r.parameter, r.parameter_value, r.statistic) for r in table]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_csv_reads_back_to_the_rows_json_gives(path):
    table = table_of(path)
    text, js = io.StringIO(), io.StringIO()
    write_csv(table, text)
    write_json(table, js)
    assert text.getvalue().splitlines()[0] == ",".join(COLUMNS)
    objects = json.loads(js.getvalue(), parse_constant=refuse_constant)
    assert all(list(o) == list(COLUMNS) for o in objects)
    assert parse_csv(text.getvalue()) == [Row(**o) for o in objects] == table


# Figures read by hand from the example files.
@pytest.mark.parametrize("example, row", [
    # cache-example.json: derived.levels[0] is level 1, size 48640 (47.50 KiB, as `show` prints), 0.9289... ns
    ("cache", Row("cache", "vm", "cache_size", "level", 1, 48640, "bytes", "derived")),
    ("cache", Row("cache", "vm", "cache_latency", "level", 1, 0.9289729876059389, "ns", "derived")),
    # comm-example.json: derived.echo.summary at sizes[0] = 0: median and minimum (seconds)
    ("comm", Row("comm", "hpcb0", "echo_time", "size_bytes", 0, 6.229248700202916e-06, "s", "median")),
    ("comm", Row("comm", "hpcb0", "echo_time", "size_bytes", 0, 5.603319369394745e-06, "s", "min")),
    # network-example.json: distance's rat_dist {"1": 1.0, "2": 2.023671874438499}
    ("network", Row("distance", "hpcb0", "rat_dist", "distance", 2, 2.023671874438499, "ratio", "derived")),
    # matrix-example.json: update_guard, dims[0] = 64, median 8.733... us
    ("matrix", Row("matrix", "vm", "update_guard_time", "dimension", 64, 8.733026015346318e-06, "s", "median")),
])
def test_known_figures_are_rows(example, row):
    assert row in table_of(hpcbench.examples.path(example))


def test_sweeps_have_one_row_per_size():
    results = load(hpcbench.examples.path("cache"))
    cache = results.get("cache")
    latency = [r for r in rows(results, _registry.BENCHMARKS) if r.quantity == "latency"]
    finite = [v for v in cache.derived.ns_per_access if v is not None and math.isfinite(v)]
    assert [r.parameter_value for r in latency] == [s for s, v in zip(cache.raw.sizes, cache.derived.ns_per_access)
                                                    if v is not None and math.isfinite(v)]
    assert [r.value for r in latency] == finite


def test_failed_skipped_and_unknown_records_give_no_rows():
    results = Results(CONTEXT, [Record(name="cache", status="failed", error="boom"),
                                Record(name="comm", status="skipped", reason="one rank"),
                                Record(name="from-a-newer-hpcbench", status="ok")])
    assert rows(results, _registry.BENCHMARKS) == []
    out = io.StringIO()
    write_json([], out)
    assert json.loads(out.getvalue()) == []


def test_missing_and_non_finite_values_give_no_row():
    out = RowBuilder(Record(name="x", node=None))
    out.curve("t", "size_bytes", [0, 1, 2, 3, 4], [1.5, None, math.nan, math.inf, 2], "s", "median")
    out.add("u", 1.0, "s", "median", "size_bytes", math.nan)
    assert out.rows == [Row("x", "", "t", "size_bytes", 0, 1.5, "s", "median"),
                        Row("x", "", "t", "size_bytes", 4, 2, "s", "median")]


def test_a_benchmark_without_its_own_rows_gives_its_headlines():
    from hpcbench._headline import Headline

    class Plain(Benchmark):
        """a benchmark that only has headlines"""
        name = "plain"

        def headlines(self, record):
            return [Headline("speed", 3.0, "bytes/s", "higher"), Headline("odd", 1.0, "furlongs"),
                    Headline("none", None, "s")]

    record = Record(name="plain", node="n0")
    assert rows(Results(CONTEXT, [record]), [Plain()]) == [Row("plain", "n0", "speed", "", None, 3.0, "bytes/s",
                                                               "derived")]


def test_every_registered_benchmark_has_its_own_rows():
    for bench in _registry.BENCHMARKS:
        assert type(bench).tidy is not Benchmark.tidy, f"{bench.name} gives only the generic rows"


def test_show_format_csv_and_json(capsys):
    assert main(["show", "example:network", "--format", "csv"]) == 0
    text = capsys.readouterr().out
    assert parse_csv(text) == table_of(hpcbench.examples.path("network"))
    assert "distance,hpcb0,rat_dist,distance,2,2.023671874438499,ratio,derived" in text.splitlines()
    assert main(["show", "example:network", "--format", "json"]) == 0
    assert [Row(**o) for o in json.loads(capsys.readouterr().out)] == table_of(hpcbench.examples.path("network"))


def test_show_text_is_the_default(capsys):
    assert main(["show", "example:cache"]) == 0
    default = capsys.readouterr().out
    assert main(["show", "example:cache", "--format", "text"]) == 0
    assert capsys.readouterr().out == default and default.startswith("hpcbench ")


def test_unknown_format_is_one_line_and_exit_2():
    proc = subprocess.run([sys.executable, "-m", "hpcbench", "show", "example:cache", "--format", "xml"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--format" in lines[0] and "invalid choice: 'xml'" in lines[0], proc.stderr


def test_to_frame_without_pandas_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)     # `import pandas` raises ImportError
    with pytest.raises(ImportError, match=r"pip install pandas") as info:
        load(hpcbench.examples.path("cache")).to_frame()
    assert "\n" not in str(info.value)


def test_to_frame_has_the_documented_columns():
    pandas = pytest.importorskip("pandas", reason="pandas is not installed (to_frame is optional)")
    results = load(hpcbench.examples.path("node"))
    frame = results.to_frame()
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) == len(rows(results, _registry.BENCHMARKS))
    sizes = frame[(frame.benchmark == "cache") & (frame.quantity == "cache_size")]
    # The example's L1 and L2 (its L3, flagged as held by other tenants, has no cache size)
    assert sizes.set_index("parameter_value")["value"].to_dict() == {1: 49152, 2: 1048576}
    curve = frame[frame.quantity == "latency"].pivot(index="parameter_value", columns="statistic", values="value")
    assert list(curve.columns) == ["trimmed_mean"] and isinstance(curve, pandas.DataFrame)


def test_whatever_loads_exports(tmp_path):
    """The fuzz loader's first 100 mutants (tests/test_fuzz_loader.py, taken
    from the example files in turn; its 500 would take a minute here): every
    one that loads exports typed rows, and its JSON export holds no NaN."""
    from test_fuzz_loader import mutants
    path, accepted = str(tmp_path / "mutant.json"), 0
    for name, n, text in itertools.islice(mutants(), 100):
        with open(path, "w") as f:
            f.write(text)
        try:
            results = load(path)
        except hpcbench.ResultsError:
            continue
        accepted += 1
        table = rows(results, _registry.BENCHMARKS)
        assert all(is_number(r.value) and r.unit in UNITS and r.statistic in STATISTICS for r in table), (name, n)
        out = io.StringIO()
        write_json(table, out)
        json.loads(out.getvalue(), parse_constant=refuse_constant)
    assert accepted > 0


def test_a_reader_that_stops_early_is_no_error():
    """`show --format csv | head -1`: no 'internal error' when the pipe closes."""
    proc = subprocess.Popen([sys.executable, "-m", "hpcbench", "show", "example:comm", "--format", "csv"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout.readline().decode().strip() == ",".join(COLUMNS)
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b"", err
