"""`check RESULTS --against DIR`, a history folder: each figure judged
against the machine's earlier runs by the robust rule (known answers on a
synthetic history made from the shipped examples, with a per-run wobble)."""
import json
import os
from datetime import datetime, timedelta, timezone

import pytest

from hpcbench.check import check_files
from hpcbench.check._history import judge_against_runs
from hpcbench.check._verdict import DEFAULTS
from hpcbench.cli import main
from hpcbench.history import append_run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START = datetime(2026, 11, 1, 10, tzinfo=timezone.utc)


def _stream(scale):
    with open(os.path.join(ROOT, "hpcbench", "examples", "stream-example.json"), encoding="utf-8") as f:
        data = json.load(f)
    data["benchmarks"][0]["derived"]["triad"] *= scale
    return data


def _history(folder, scales):
    for day, scale in enumerate(scales):
        data = _stream(scale)
        data["context"]["date"] = (START + timedelta(days=day)).isoformat()
        append_run(json.dumps(data), str(folder), START + timedelta(days=day), "vm")
    return str(folder)


WOBBLE = [1.0, 1.04, 0.97, 1.02, 0.99, 1.06, 0.95, 1.01, 1.03, 0.98]     # +-6 % between runs


@pytest.mark.parametrize("scale, word, status", [(1.0, "same", 0), (0.96, "same", 0), (0.7, "worse", 1),
                                                 (1.3, "better", 0)])
def test_a_run_against_its_machines_history(tmp_path, scale, word, status):
    folder = _history(tmp_path / "h", WOBBLE)
    current = tmp_path / "now.json"
    current.write_text(json.dumps(_stream(scale)))
    comparison, kind = check_files(str(current), folder)
    assert kind == "history"
    triad = [r for r in comparison.rows if r.benchmark == "stream" and r.label.startswith("Triad, all cores")]
    assert triad and triad[0].verdict.word == word and triad[0].verdict.test == "history"
    assert comparison.exit_status == status
    assert main(["check", str(current), "--against", folder]) == status


def test_every_run_of_an_unchanged_history_is_within_the_others(tmp_path):
    for k, scale in enumerate(WOBBLE):
        folder = _history(tmp_path / f"h{k}", WOBBLE[:k] + WOBBLE[k + 1:])
        current = tmp_path / f"run{k}.json"
        current.write_text(json.dumps(_stream(scale)))
        assert check_files(str(current), folder)[0].exit_status == 0


def test_too_few_earlier_runs_judge_nothing():
    from hpcbench._headline import Headline
    verdict = judge_against_runs(Headline("x", 0.5, "bytes/s", "higher"), [1.0], "higher", DEFAULTS)
    assert verdict.word == "same" and "too few" in verdict.why


def test_a_history_of_another_machine_is_one_line(tmp_path, capsys):
    folder = _history(tmp_path / "h", WOBBLE[:3])
    data = _stream(1.0)
    data["context"]["hosts"] = ["elsewhere"]
    current = tmp_path / "now.json"
    current.write_text(json.dumps(data))
    assert main(["check", str(current), "--against", folder]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds no run of this machine" in err[0]
