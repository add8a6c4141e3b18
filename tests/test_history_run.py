"""`run --history DIR` under mpiexec: the finished run is appended once, by
rank 0, as a copy of its complete results file, and `history` reads it."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPIEXEC = shutil.which("mpiexec")
pytestmark = [pytest.mark.mpi, pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH")]
#: The quickest run there is: STREAM on 1 MiB arrays, twice.
SMALL_STREAM = ["run", "stream", "--stream-size", "1MiB", "--stream-reps", "2", "-q"]


def _environment(**extra):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMPI_MCA_rmaps_base_oversubscribe="1")
    env.pop("HPCBENCH_HISTORY", None)
    env.update(extra)
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def _mpirun(args, env, timeout=300):
    # The timeout catches a hang, never a slow run (the run takes about a second here).
    try:
        return subprocess.run([MPIEXEC, "-n", "2", sys.executable, "-m", "hpcbench", *args], capture_output=True,
                              text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"mpiexec -n 2 timed out after {timeout}s: {e.stderr}")


def test_run_appends_one_copy_of_its_results(tmp_path):
    out, folder = tmp_path / "r.json", tmp_path / "history"
    proc = _mpirun([*SMALL_STREAM, "-o", str(out), "--history", str(folder)], _environment())
    assert proc.returncode == 0, proc.stderr
    entries = os.listdir(folder)
    assert len(entries) == 1 and proc.stdout.count("run added to the history") == 1
    assert (folder / entries[0]).read_bytes() == out.read_bytes()
    shown = subprocess.run([sys.executable, "-m", "hpcbench", "history", str(folder), "--figure", "triad"],
                           capture_output=True, text=True, timeout=120, env=_environment())
    assert shown.returncode == 0 and "1 run(s)" in shown.stdout and "none moved" in shown.stdout


def test_the_configured_place_takes_the_run_and_a_bad_one_stops_it_before_it_measures(tmp_path):
    folder = tmp_path / "configured"
    proc = _mpirun([*SMALL_STREAM, "-o", str(tmp_path / "a.json")], _environment(HPCBENCH_HISTORY=str(folder)))
    assert proc.returncode == 0, proc.stderr
    assert len(os.listdir(folder)) == 1
    (tmp_path / "file").write_text("x")
    bad = _environment(HPCBENCH_HISTORY=str(tmp_path / "file"))
    proc = _mpirun([*SMALL_STREAM, "-o", str(tmp_path / "b.json")], bad)
    assert proc.returncode != 0 and "is not a folder" in proc.stderr
    assert not (tmp_path / "b.json").exists()
