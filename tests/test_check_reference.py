"""The hand-written reference file: a good one reads into its figures; every
malformed line gives one line (CheckError, an InputError) naming that line."""
import pytest

from hpcbench import load
from hpcbench.check import CheckError, compare_reference, read_reference
from hpcbench.check._units import parse_share, parse_value

GOOD = '''# the figures node01 must reach
[defaults]
tolerance = "8%"

[[figure]]
benchmark = "stream"
label = "Triad, all cores"
node = "vm"
value = "48 GB/s"
tolerance = "10%"

[[figure]]
benchmark = "comm"
label = "echo latency 8 B"
value = 6.2e-6
unit = "s"
'''


def _write(tmp_path, text, name="ref.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_good_reference_reads():
    figures, default = read_reference_text(GOOD)
    assert default == pytest.approx(0.08)
    triad, echo = figures
    assert (triad.benchmark, triad.node, triad.label, triad.unit, triad.line) == ("stream", "vm", "Triad, all cores",
                                                                                   "bytes/s", 5)
    assert triad.value == pytest.approx(48e9) and triad.tolerance == pytest.approx(0.10)
    assert (echo.node, echo.value, echo.unit, echo.tolerance, echo.line) == (None, 6.2e-6, "s", None, 12)


def read_reference_text(text, tmp_path_factory=None):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = f"{d}/ref.toml"
        with open(path, "w") as f:
            f.write(text)
        return read_reference(path)


@pytest.mark.parametrize("old, new, line, words", [
    ('value = "48 GB/s"', 'value = "48 furlongs"', 9, "unknown unit 'furlongs'"),
    ('value = "48 GB/s"', 'value = "fast"', 9, "not a number and a unit"),
    ('value = "48 GB/s"', 'value = true', 9, "not a number"),
    ('tolerance = "10%"', 'tolerance = "ten percent"', 10, "not a percentage"),
    ('tolerance = "10%"', 'tolerance = 0.1', 10, "not a percentage"),
    ('tolerance = "10%"', 'tolerance = "150%"', 10, "under 100 %"),
    ('tolerance = "10%"', 'tolerance = "-5%"', 10, "at least 0 %"),
    ('tolerance = "8%"', 'tolerance = "8"', 3, "not a percentage"),
    ('benchmark = "stream"', 'benchmark = "streem"', 6, "unknown benchmark 'streem'"),
    ('node = "vm"', 'nodes = "vm"', 8, "unknown key 'nodes'"),
    ('unit = "s"', 'unit = "fortnights"', 16, "unknown unit"),
    ('value = 6.2e-6', 'value = "6.2 us"', 15, "give the unit once"),
    ('label = "echo latency 8 B"', 'label = ""', 14, "label must be a non-empty string"),
    ('label = "echo latency 8 B"', 'label = "echo latency 8 B"\nlabel = "x"', 15, "TOML"),
])
def test_every_malformed_line_is_named(tmp_path, old, new, line, words):
    text = GOOD.replace(old, new, 1)
    assert text != GOOD
    with pytest.raises(CheckError) as e:
        read_reference(_write(tmp_path, text))
    message = str(e.value)
    assert "\n" not in message and words in message
    if line:
        assert f"line {line}:" in message


def test_a_figure_without_a_value_names_its_table(tmp_path):
    with pytest.raises(CheckError, match=r"line 12: this figure has no value"):
        read_reference(_write(tmp_path, GOOD.replace("value = 6.2e-6\n", "")))


def test_a_repeated_figure_names_both_lines(tmp_path):
    with pytest.raises(CheckError, match=r"line 12: .* already given on line 5"):
        read_reference(_write(tmp_path, GOOD.replace('benchmark = "comm"\nlabel = "echo latency 8 B"',
                                                     'benchmark = "stream"\nlabel = "Triad, all cores"\nnode = "vm"')))


def test_not_toml_and_no_figures(tmp_path):
    with pytest.raises(CheckError, match="not a reference file"):
        read_reference(_write(tmp_path, "[[figure]\nvalue = "))
    with pytest.raises(CheckError, match="no \\[\\[figure\\]\\] tables"):
        read_reference(_write(tmp_path, "[defaults]\ntolerance = \"5%\"\n"))
    with pytest.raises(CheckError, match="unknown table or key 'figures'"):
        read_reference(_write(tmp_path, "[[figures]]\nvalue = 1\n"))


def test_unknown_figure_and_wrong_unit_against_the_results(tmp_path):
    stream = load("example:stream")
    figures, default = read_reference(_write(tmp_path, GOOD.replace("Triad, all cores", "Triad all cores")))
    with pytest.raises(CheckError, match=r"line 5: stream has no headline figure 'Triad all cores' \(its figures"):
        compare_reference(stream, figures, default, "ref.toml")
    figures, default = read_reference(_write(tmp_path, GOOD.replace('"48 GB/s"', '"48 us"')))
    with pytest.raises(CheckError, match=r"line 5: 'Triad, all cores' of stream is in bytes/s; the reference gives s"):
        compare_reference(stream, figures, default, "ref.toml")


def test_a_reference_file_judges_by_its_tolerances(tmp_path):
    stream = load("example:stream")                  # Triad, all cores: 48.3 GB/s on vm
    figures, default = read_reference(_write(tmp_path, GOOD))
    comparison = compare_reference(stream, figures, default, "ref.toml")
    triad, echo = comparison.rows
    assert triad.verdict.word == "same" and triad.verdict.tolerance == pytest.approx(0.10) and triad.line == 5
    assert echo.verdict.word == "missing" and echo.node == "-"      # no comm record in a stream file
    assert comparison.exit_status == 1
    figures, default = read_reference(_write(tmp_path, GOOD.replace('"48 GB/s"', '"60 GB/s"')))
    triad = compare_reference(stream, figures, default, "ref.toml").rows[0]
    assert triad.verdict.word == "worse" and triad.verdict.change == pytest.approx(48.35 / 60 - 1, abs=1e-3)


def test_units_and_shares():
    assert parse_value("1.5 us") == (pytest.approx(1.5e-6), "s")
    assert parse_value("32 KiB") == (32768.0, "bytes")
    assert parse_value("130 Gflop/s") == (pytest.approx(130e9), "flop/s")
    assert parse_value("12") == (12.0, None)
    assert parse_share("5 %") == pytest.approx(0.05)
