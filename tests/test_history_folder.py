"""A history folder: appending (atomic, never through a link, never over a
file), reading it back in time order, machines apart, unreadable files
skipped, and the figures that moved in a synthetic history made from the
shipped examples (known answer: one figure, at run 6)."""
import json
import os
from datetime import datetime, timedelta, timezone

import pytest

import hpcbench
from hpcbench import _atomic
from hpcbench.cli import main
from hpcbench.cli._common import UsageError
from hpcbench.cli._history import append_to_history, check_run_history
from hpcbench.history import HistoryError, append_run, read_history, trends
from hpcbench.history._names import date_of_name, entry_name
from hpcbench.history._text import history_lines

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "hpcbench", "examples")
START = datetime(2026, 11, 1, 10, tzinfo=timezone.utc)


def _example(name):
    with open(os.path.join(EXAMPLES, f"{name}-example.json"), encoding="utf-8") as f:
        return json.load(f)


def _run_text(day, scale=1.0, extra=("cache", "numa", "peakflops")):
    """A run of the 'vm' machine: the stream example with the records of
    other examples of the same machine, dated `day` days after START, its
    Triad on all cores (derived.triad) times `scale`."""
    data = _example("stream")
    for name in extra:
        data["benchmarks"] += _example(name)["benchmarks"]
    data["context"]["date"] = (START + timedelta(days=day)).isoformat()
    data["benchmarks"][0]["derived"]["triad"] *= scale
    return json.dumps(data, indent=1)


def _history(folder, scaled_from=None, runs=10, factor=0.7):
    for day in range(runs):
        scale = factor if scaled_from is not None and day + 1 >= scaled_from else 1.0
        append_run(_run_text(day, scale), str(folder), START + timedelta(days=day), "vm")
    return str(folder)


def test_a_figure_scaled_from_run_6_on_moves_at_run_6_and_nothing_else(tmp_path):
    folder = _history(tmp_path / "h", scaled_from=6)
    found = trends(read_history(folder))
    assert len(found) > 20                     # every headline of four benchmarks
    moved = [(t, m) for t in found for m in t.moves]
    assert len(moved) == 1
    trend, move = moved[0]
    assert trend.key.benchmark == "stream" and trend.key.unit == "bytes/s" and trend.better == "higher"
    assert (move.run + 1, move.kind, move.direction(trend.better)) == (6, "move", "worse")
    triad = _example("stream")["benchmarks"][0]["derived"]["triad"]
    assert trend.values == pytest.approx([triad] * 5 + [0.7 * triad] * 5)
    assert move.deviation.relative == pytest.approx(0.3)


def test_an_unchanged_history_has_no_move(tmp_path):
    found = trends(read_history(_history(tmp_path / "h")))
    assert found and not any(t.moves for t in found)


def test_the_command_prints_the_trend_and_the_move(tmp_path, capsys):
    folder = _history(tmp_path / "h", scaled_from=6)
    (tmp_path / "h" / "broken.json").write_text("{ not json")
    (tmp_path / "h" / "notes.txt").write_text("not a run")
    assert main(["history", folder]) == 0
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "skipped broken.json" in err          # one warning line, notes.txt ignored
    assert "10 run(s) of 1 machine(s)" in out and "move at run 6" in out and "moved, worse" in out
    assert "1 move(s):" in out
    assert main(["history", folder, "--figure", "TRIAD", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    figures = data["machines"][0]["figures"]
    assert figures and all("triad" in f["label"].lower() for f in figures)
    moved = [f for f in figures if f["moves"]]
    assert len(moved) == 1 and moved[0]["moves"][0]["run"] == 6 and len(moved[0]["values"]) == 10
    assert data["skipped"][0]["file"] == "broken.json"


@pytest.mark.parametrize("args, message", [(["nowhere"], "does not exist"), ([], "HPCBENCH_HISTORY"),
                                           (["EMPTY"], "holds no run"), (["H", "--figure", "zzz"], "no figure")])
def test_bad_folders_are_one_line_and_exit_2(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.delenv("HPCBENCH_HISTORY", raising=False)
    (tmp_path / "EMPTY").mkdir()
    (tmp_path / "EMPTY" / "bad.json").write_text("[]")
    _history(tmp_path / "H", runs=3)
    monkeypatch.chdir(tmp_path)
    assert main(["history", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and all(line.startswith("hpcbench history: ") for line in err)


def test_the_configured_place_is_read_when_dir_is_left_out(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HPCBENCH_HISTORY", _history(tmp_path / "h", runs=3))
    assert main(["history"]) == 0
    assert "3 run(s)" in capsys.readouterr().out


def test_runs_of_different_machines_are_apart_and_in_time_order(tmp_path):
    folder = tmp_path / "h"
    for day in (3, 1, 2):             # appended out of order: read in date order
        append_run(_run_text(day, extra=()), str(folder), START + timedelta(days=day), "vm")
    comm = _example("comm")
    for day in range(3):
        comm["context"]["date"] = (START + timedelta(days=day)).isoformat()
        append_run(json.dumps(comm), str(folder), START + timedelta(days=day), "hpcb0")
    history = read_history(str(folder))
    machines = history.machines()
    # In the order of each machine's first run: comm's cluster ran first.
    assert [m.hosts for m in machines] == [("hpcb0", "hpcb1", "hpcb2", "hpcb3"), ("vm",)]
    assert [r.date.day for r in history.runs_of(machines[1])] == [2, 3, 4]
    found = trends(history)
    assert {t.key.benchmark for t in found if t.machine == machines[0]} == {"comm"}
    assert all(len(t.runs) == 3 for t in found)
    assert "2 machine(s); grouped by machine" in history_lines(history, found)[0]


def test_entry_names_sort_by_date_and_differ_within_a_second():
    a = entry_name(START, "node 1/x")
    b = entry_name(START, "node 1/x")
    assert a != b and a.startswith("20261101T100000Z-node-1-x-") and date_of_name(a) == START
    assert entry_name(START + timedelta(seconds=1), "a") > entry_name(START, "z")


def test_append_writes_a_complete_copy_and_nothing_else(tmp_path):
    text = _run_text(0)
    path = append_run(text, str(tmp_path / "new" / "h"), START, "vm")       # the folder is made
    assert os.listdir(tmp_path / "new" / "h") == [os.path.basename(path)]
    with open(path, encoding="utf-8") as f:
        assert f.read() == text
    assert hpcbench.load(path).context.date == START.isoformat()


def test_a_failed_append_leaves_no_entry_and_no_temporary(tmp_path, monkeypatch):
    folder = tmp_path / "h"
    folder.mkdir()

    def full_disk(fd, data):
        os.write(fd, data[:100])
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(_atomic, "_write_all", full_disk)
    with pytest.raises(HistoryError, match="No space left"):
        append_run(_run_text(0), str(folder), START, "vm")
    assert os.listdir(folder) == []


@pytest.mark.parametrize("planted", ["link", "file"])
def test_append_never_writes_through_a_link_or_over_a_file(tmp_path, planted):
    folder = tmp_path / "h"
    folder.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    name = entry_name(START, "vm", "deadbeef")
    if planted == "link":
        os.symlink(victim, folder / name)
    else:
        (folder / name).write_text("an older entry")
    with pytest.raises(HistoryError, match="symbolic link" if planted == "link" else "never overwritten"):
        append_run(_run_text(0), str(folder), START, "vm", token="deadbeef")
    assert victim.read_text() == "keep me"
    assert planted == "link" or (folder / name).read_text() == "an older entry"
    assert os.listdir(folder) == [name]


def test_a_failed_append_at_the_end_of_a_run_is_one_warning(tmp_path, capsys):
    results = hpcbench.load(os.path.join(EXAMPLES, "stream-example.json"))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    append_to_history(results, str(blocker))          # a file where the folder should be
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "warning" in err and "results file is complete" in err
    append_to_history(results, str(tmp_path / "h"))
    assert "run added to the history" in capsys.readouterr().out and len(os.listdir(tmp_path / "h")) == 1


def test_run_checks_the_history_folder_before_measuring(tmp_path, monkeypatch):
    monkeypatch.delenv("HPCBENCH_HISTORY", raising=False)
    (tmp_path / "file").write_text("x")
    for bad in ("file", "file/below"):
        with pytest.raises(UsageError, match="not a folder"):
            check_run_history(str(tmp_path / bad))
    check_run_history(str(tmp_path / "new" / "deeper"))      # made at the end
    check_run_history(None)
    monkeypatch.setenv("HPCBENCH_HISTORY", str(tmp_path / "file"))
    with pytest.raises(UsageError, match="not a folder"):
        check_run_history(None)


def test_names_from_the_files_stay_on_their_line(tmp_path, capsys):
    data = json.loads(_run_text(0, extra=()))
    data["context"]["cpu_model"] = "EPYC\x1b[2J\nforged line"
    data["benchmarks"][0]["node"] = "vm\rX"
    for day in range(3):
        append_run(json.dumps(data), str(tmp_path / "h"), START + timedelta(days=day), "vm")
    assert main(["history", str(tmp_path / "h")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out and "\nforged line" not in out and "EPYC\\x1b[2J\\nforged line" in out
