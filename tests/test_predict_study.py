"""hpcbench.predict.study: the workflow of `predict wavefront` as one
function; the command line is parse, call, print (it prints the study's
lines and writes its dict), and imports nothing private of predict. The
errors: PredictError (an InputError) and its two subclasses; the old names
are aliases."""
import ast
import io
import json
import os
from contextlib import redirect_stderr, redirect_stdout

import pytest

from hpcbench._errors import InputError
from hpcbench.cli import main
from hpcbench.predict import (
    ClassError,
    Deadlock,
    Machine,
    MachineError,
    NetworkProfile,
    ParameterError,
    PlacementError,
    PredictError,
    ProfileError,
    Program,
    ProgramError,
    SimulationError,
    SizeError,
    StudyInputs,
    WavefrontParams,
    WhatIfError,
    allocate,
    replay,
    study,
    wavefront,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE3 = os.path.join(ROOT, "hpcbench", "examples", "francesca-profile.json")
INPUTS = StudyInputs(grid="48x48x24", procs="4x4", profile=TABLE3, machine="8x2x2", wg=3e-7, sweep="1,4,16",
                     what_if="latency=+50%", simulate=True)


def test_a_study_is_the_model_on_the_projected_machine():
    s = study(INPUTS)
    projected = NetworkProfile.from_table(TABLE3).scaled(latency=1.5)
    want = wavefront(WavefrontParams(48, 48, 24, m=4, n=4, wg=3e-7), projected, allocate(16, Machine(8, 2, 2),
                                                                                           "node-fill"))
    assert s.prediction.time == pytest.approx(want.time, rel=1e-12)
    assert s.wg == 3e-7 and s.wg_how == "given (--wg)" and s.projection.core_speed == 1.0
    assert [row.count for row in s.sweep] == [1, 4, 16] and s.sweep[0].efficiency == 1.0
    assert s.simulation is not None and s.simulation.nranks == 16
    assert sorted(s.figures()) == ["communication", "idle", "sweep"]   # the sweep is drawn too


def test_the_command_line_prints_and_writes_what_the_study_gives(tmp_path):
    path = str(tmp_path / "p.json")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["predict", "wavefront", "--profile", TABLE3, "--grid", "48x48x24", "--procs", "4x4",
                       "--machine", "8x2x2", "--wg", "3e-7", "--sweep", "1,4,16", "--what-if", "latency=+50%",
                       "--simulate", "-o", path])
    assert status == 0, err.getvalue()
    s = study(INPUTS)
    assert out.getvalue().splitlines() == s.lines()
    with open(path, encoding="utf-8") as f:
        written = json.load(f)
    # The same inputs give the same numbers: the file is the study as written.
    assert written == json.loads(s.to_json())


def test_bad_inputs_are_predict_errors_naming_the_flag():
    with pytest.raises(PredictError, match="^--wg must be a positive number"):
        study(StudyInputs(grid="8", procs="1x1", profile=TABLE3, machine="1x1", wg=-1.0))
    with pytest.raises(PredictError, match="^give --results RESULTS.json"):
        study(StudyInputs(grid="8", procs="1x1", machine="1x1", wg=1e-7))
    with pytest.raises(PredictError, match="^--measure runs the kernel on this job's ranks"):
        study(StudyInputs(grid="8", procs="1x2", profile=TABLE3, machine="1x2", wg=1e-7, measure=True))


def test_one_hierarchy_with_the_old_names_as_aliases():
    assert issubclass(PredictError, InputError) and issubclass(PredictError, ValueError)
    assert issubclass(ProfileError, PredictError) and issubclass(Deadlock, PredictError)
    for old in (ParameterError, MachineError, PlacementError, SimulationError, ProgramError, SizeError, WhatIfError,
                ClassError):
        assert old is PredictError


def test_a_deadlock_names_its_waiting_ranks():
    program = Program.from_lists([[("recv", 1, 8), ("send", 1, 8)], [("recv", 0, 8), ("send", 0, 8)]])
    with pytest.raises(Deadlock) as info:
        replay(program, [1.0] * 4)
    assert info.value.waiting == (0, 1) and "deadlock: 2 rank(s)" in str(info.value)


def test_the_command_line_imports_only_what_predict_exports():
    with open(os.path.join(ROOT, "hpcbench", "cli", "_predict.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    private = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
               and node.module.startswith("predict.")]
    assert not private
    import hpcbench.predict
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "predict":
            assert all(alias.name in hpcbench.predict.__all__ for alias in node.names)
