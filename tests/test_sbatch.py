"""hpcbench sbatch: the batch script's lines from the arguments and the
estimate, -o and its own header, bad input (one line, nothing written), and,
where tools/slurmcluster.py's Slurm can run, the script submitted for real."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import time

import pytest

from hpcbench import _estimate, _registry, cli
from hpcbench._protocol import Job
from hpcbench.cli import _sbatch
from hpcbench.topology import Topology

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMALL = ["cache", "--cache-max", "3MiB", "--cache-passes", "2", "--cache-samples", "2"]


@pytest.fixture(autouse=True)
def _no_cluster(monkeypatch):
    """Tests see no Slurm unless they give one (sinfo's answer is the test's)."""
    monkeypatch.setattr(_sbatch, "cluster_nodes", lambda: None)


def _sbatch_out(capsys, *argv):
    status = cli.main(["sbatch", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_script_has_the_allocation_the_time_and_the_run(capsys):
    status, out, err = _sbatch_out(capsys, "-N", "1", "--ntasks-per-node", "2", "--report", *SMALL)
    assert status == 0, err
    bench = _registry.get("cache")
    topology = Topology.load()
    options = bench.check(bench.options_type(max_size=3 << 20, passes=2, samples=2), topology, Job(2, 1))
    minutes = _estimate.slurm_minutes(bench.estimate(options, topology, Job(2, 1)))
    lines = out.splitlines()
    assert lines[:2] == ["#!/bin/bash", _sbatch.HEADER]
    assert lines[3:8] == ["#SBATCH --nodes=1", "#SBATCH --ntasks=2", "#SBATCH --ntasks-per-node=2",
                          f"#SBATCH --time={minutes}", "#SBATCH -o hpcbench-%j.out"]
    assert lines[-1] == ("srun --mpi=pmix python3 -m hpcbench run --cache-max 3145728 --cache-passes 2 "
                         "--cache-samples 2 cache -o hpcbench-results-\"${SLURM_JOB_ID}\".json --report")
    assert "-N was not checked" in err


def test_tasks_default_to_one_per_node_and_the_plugin_can_be_set(capsys):
    status, out, _ = _sbatch_out(capsys, "-N", "2", "--srun-mpi", "pmi2", "--no-cache-refine", "--results", "r x.json")
    assert status == 0
    assert "#SBATCH --ntasks=2" in out and "--ntasks-per-node" not in out
    assert out.splitlines()[-1] == "srun --mpi=pmi2 python3 -m hpcbench run --no-cache-refine -o 'r x.json'"


def test_more_time_for_a_larger_cache(capsys, monkeypatch):
    """--time follows the estimate: a 4x larger L3 (a fake topology) asks for more minutes."""
    times = []
    for l3 in ("32MiB", "128MiB"):
        fake = Topology.from_synthetic(f"pack:1 l3:1(size={l3}) l2:2(size=1MiB) l1d:1(size=48KiB) core:1 pu:1")
        monkeypatch.setattr(Topology, "load", classmethod(lambda cls, fake=fake: fake))
        status, out, _ = _sbatch_out(capsys, "cache", "--cache-max", "64MiB" if l3 == "32MiB" else "256MiB")
        assert status == 0
        times.append(int(next(x for x in out.splitlines() if x.startswith("#SBATCH --time=")).split("=")[1]))
    assert times[0] < times[1]


def test_more_nodes_than_the_cluster_has_is_one_line_and_nothing_written(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(_sbatch, "cluster_nodes", lambda: 2)
    status, out, err = _sbatch_out(capsys, "-N", "3", "-o", str(tmp_path / "job.sh"))
    assert status == 2 and out == ""
    assert err.strip() == "hpcbench sbatch: -N 3 asks for more nodes than the cluster has (2, sinfo)"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, words", [
    (["-n", "3", "-N", "1", "--ntasks-per-node", "2"], "-n 3 is not -N 1 x --ntasks-per-node 2"),
    (["-n", "1", "-N", "2"], "-n 1 gives some of the 2 nodes no task"),
    (["--cache-passes", "0"], "hpcbench sbatch: --cache-passes must be in 1..100, got 0"),
    (["-N", "0"], "argument -N/--nodes: must be a positive whole number, got '0'"),
    (["--srun-mpi", "pmix; rm -rf"], "--srun-mpi must be a plugin name such as pmix"),
    (["nosuch"], "unknown benchmark 'nosuch'"),
])
def test_bad_input_is_one_line(capsys, argv, words):
    status, out, err = _sbatch_out(capsys, *argv)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and words in err, err


def test_o_writes_the_script_and_overwrites_only_its_own(capsys, tmp_path):
    target = tmp_path / "job.sh"
    status, out, _ = _sbatch_out(capsys, "-o", str(target), *SMALL)
    assert status == 0 and "batch script written to" in out
    assert _sbatch.is_sbatch_script(target.read_bytes())
    assert _sbatch_out(capsys, "-o", str(target), *SMALL)[0] == 0          # its own: replaced
    other = tmp_path / "mine.sh"
    other.write_text("#!/bin/bash\necho mine\n")
    status, _, err = _sbatch_out(capsys, "-o", str(other), *SMALL)
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert other.read_text() == "#!/bin/bash\necho mine\n"
    assert _sbatch_out(capsys, "-o", str(other), "--force", *SMALL)[0] == 0


def test_sbatch_appears_in_help():
    assert "sbatch" in cli.build_parser("").format_help()


# ------------------------------------------------------------ a real Slurm, where it can run

def _slurmcluster():
    spec = importlib.util.spec_from_file_location("slurmcluster", os.path.join(ROOT, "tools", "slurmcluster.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_script_runs_under_a_real_sbatch(tmp_path, monkeypatch):
    slurmcluster = _slurmcluster()
    reason = slurmcluster.why_not()
    if reason:
        pytest.skip(f"Slurm cannot run here: {reason}")
    cluster = slurmcluster.SlurmCluster().start()
    try:
        env = cluster.env()
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        script = tmp_path / "job.sh"
        made = subprocess.run(["python3", "-m", "hpcbench", "sbatch", "-N", "1", "-n", "2", "-o", str(script),
                               "-q", *SMALL], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        assert made.returncode == 0, made.stderr
        assert "not checked" not in made.stderr          # sinfo answered: -N was checked
        done = subprocess.run(["sbatch", "--parsable", str(script)], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=60)
        assert done.returncode == 0, done.stderr
        job = done.stdout.strip().split(";")[0]
        deadline = time.monotonic() + 300
        state = None
        while time.monotonic() < deadline:
            shown = subprocess.run(["scontrol", "-o", "show", "job", job], capture_output=True, text=True,
                                   env=env, timeout=60).stdout
            fields = dict(f.split("=", 1) for f in shown.split() if "=" in f)
            state = fields.get("JobState")
            if state not in (None, "PENDING", "CONFIGURING", "RUNNING", "COMPLETING"):
                break
            time.sleep(0.5)
        assert state == "COMPLETED", (state, (tmp_path / f"hpcbench-{job}.out").read_text()
                                      if (tmp_path / f"hpcbench-{job}.out").exists() else "")
        assert (tmp_path / f"hpcbench-results-{job}.json").exists()
    finally:
        cluster.stop()


def test_time_overrides_the_estimate(capsys):
    """--time sets the limit the estimate cannot know (a slow network, a busy node); the note says so."""
    status, out, err = _sbatch_out(capsys, "--time", "90", *SMALL)
    assert status == 0, err
    assert "#SBATCH --time=90" in out.splitlines() and "--time given" in out.splitlines()[2]
    assert "--time" not in out.splitlines()[-1]           # the run itself takes no such option
    status, out, err = _sbatch_out(capsys, "--time", "0", *SMALL)
    assert status == 2 and "must be a positive whole number" in err
