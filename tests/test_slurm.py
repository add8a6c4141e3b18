"""hpcbench under a real single-node Slurm (issue 26): tools/slurmcluster.py
starts munged, slurmctld and slurmd once for this module; `srun --mpi=pmix`
runs hpcbench and writes a results file that names its launcher and job, an
sbatch job completes, and --cpu-bind=map_cpu puts each rank on its PU.

Skipped with the reason where Slurm cannot run (not root, slurm-wlm or
munge not installed: tools/install.sh installs them). Every command has a
timeout, srun and sbatch a Slurm time limit too, so nothing hangs. No test
asserts a measured figure: only what the files and the kernel say.
"""
import importlib.util
import json
import os
import subprocess
import sys
import time

import pytest

import hpcbench

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMALL = ["--cache-max", "3MiB", "--cache-passes", "2", "--cache-samples", "2", "-q"]
STEP_TIMEOUT = 300          # seconds a subprocess may take (the machine is shared and slow)
SLURM_LIMIT = "5"           # minutes: Slurm's own limit of each job (srun -t, sbatch -t)

_spec = importlib.util.spec_from_file_location("slurmcluster", os.path.join(ROOT, "tools", "slurmcluster.py"))
slurmcluster = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(slurmcluster)

REASON = slurmcluster.why_not()
pytestmark = pytest.mark.skipif(bool(REASON), reason=f"Slurm cannot run here: {REASON}")


@pytest.fixture(scope="module")
def slurm():
    """One Slurm for the module; its start and stop seconds are printed (issue 26 allows 60 s)."""
    cluster = slurmcluster.SlurmCluster().start()
    try:
        yield cluster
    finally:
        began = time.monotonic()
        cluster.stop()
        print(f"\nslurm: started in {cluster.started_seconds:.1f} s, stopped in {time.monotonic() - began:.1f} s")


def _owner(folder):
    """The PID that started a Slurm folder, or "" (gone meanwhile)."""
    try:
        with open(os.path.join(folder, "owner")) as f:
            return f.read().strip()
    except OSError:
        return ""


def _env(slurm):
    env = slurm.env()
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _srun(slurm, cwd, *args):
    return subprocess.run(["srun", "--mpi=pmix", "-t", SLURM_LIMIT, *args], capture_output=True, text=True,
                          env=_env(slurm), cwd=cwd, timeout=STEP_TIMEOUT)


def _wait_for_job(slurm, job):
    """The job's final state and exit code ("COMPLETED", "0:0"), polled
    (`sbatch --wait` polls every few seconds, which doubles this test's time)."""
    deadline = time.monotonic() + STEP_TIMEOUT
    while time.monotonic() < deadline:
        shown = subprocess.run(["scontrol", "-o", "show", "job", job], capture_output=True, text=True,
                               env=slurm.env(), timeout=60).stdout
        fields = dict(f.split("=", 1) for f in shown.split() if "=" in f)
        if fields.get("JobState") not in (None, "PENDING", "CONFIGURING", "RUNNING", "COMPLETING"):
            return fields["JobState"], fields.get("ExitCode")
        time.sleep(0.2)
    pytest.fail(f"job {job} did not end within {STEP_TIMEOUT} s")


# ------------------------------------------------------------ the tool's own cleanup
# (before the module's cluster starts, so the clusters of these tests never overlap it)

@pytest.mark.slow
def test_a_failed_start_leaves_nothing_and_the_next_start_works(monkeypatch):
    failing = slurmcluster.SlurmCluster(timeout=3)
    monkeypatch.setattr(failing, "_node_state", lambda: "down")       # the node never becomes idle
    with pytest.raises(slurmcluster.SlurmError, match="timed out after 3 s waiting for node .* to be idle"):
        failing.start()
    assert set(failing.procs) == set() and failing.folder == ""
    assert not [f for f in os.listdir("/tmp") if f.startswith(slurmcluster.FOLDER_PREFIX)
                and _owner(os.path.join("/tmp", f)) == str(os.getpid())]
    with slurmcluster.SlurmCluster() as again:
        assert again._node_state() == "idle"
        daemons = dict(again.procs)
    assert all(p.poll() is not None for p in daemons.values())


def test_a_start_stops_the_daemons_of_a_killed_run():
    """A run killed before its cleanup leaves its daemons; the next start (clean_orphans) ends them by PID."""
    code = ("import os, sys; sys.path.insert(0, 'tools'); import slurmcluster; "
            "c = slurmcluster.SlurmCluster().start(); print(c.folder, flush=True); os._exit(9)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    folder = done.stdout.strip()
    assert folder.startswith("/tmp/" + slurmcluster.FOLDER_PREFIX), done.stderr
    pids = slurmcluster._read_pids(folder)
    assert len(pids) == 3 and all(slurmcluster._alive(p) for p in pids)
    assert folder in slurmcluster.clean_orphans()
    assert not os.path.exists(folder)
    assert not any(slurmcluster._alive(p) for p in pids)


def test_not_root_is_one_line(monkeypatch):
    monkeypatch.setattr(slurmcluster.os, "geteuid", lambda: 1000)
    with pytest.raises(slurmcluster.CannotRun, match=r"^cannot run here: not root"):
        slurmcluster.SlurmCluster().start()


# ------------------------------------------------------------ hpcbench under srun and sbatch

@pytest.mark.slow
def test_srun_pmix_runs_hpcbench_and_the_results_name_slurm(slurm, tmp_path):
    out = tmp_path / "r.json"
    done = _srun(slurm, tmp_path, "-n", "2", sys.executable, "-m", "hpcbench", "run", "cache", "-o", str(out), *SMALL)
    assert done.returncode == 0, done.stderr[-2000:]
    with open(out) as f:
        results = json.load(f)
    context = results["context"]
    assert context["launcher"]["name"] == "srun"
    assert context["launcher"]["version"].startswith("slurm")
    assert context["slurm"]["SLURM_JOB_NODELIST"] == slurm.node
    assert context["slurm"]["SLURM_JOB_ID"].isdigit()
    assert context["mpi"]["ranks"] == 2
    assert [b["rank"] for b in context["binding"]] == [0, 1]
    assert hpcbench.load(str(out)).get("cache")["status"] == "ok"


@pytest.mark.slow
def test_an_sbatch_job_completes_and_writes_its_output(slurm, tmp_path):
    script = tmp_path / "job.sh"
    script.write_text(f"#!/bin/sh\n#SBATCH -n 2\n#SBATCH -t {SLURM_LIMIT}\n#SBATCH -o {tmp_path}/job-%j.out\n"
                      f"srun --mpi=pmix {sys.executable} -m hpcbench run cache -o {tmp_path}/job.json "
                      f"{' '.join(SMALL)}\n")
    done = subprocess.run(["sbatch", "--parsable", str(script)], capture_output=True, text=True,
                          env=_env(slurm), cwd=tmp_path, timeout=STEP_TIMEOUT)
    assert done.returncode == 0, done.stderr
    job = done.stdout.strip().split(";")[0]
    assert _wait_for_job(slurm, job) == ("COMPLETED", "0:0"), (tmp_path / f"job-{job}.out").read_text()
    assert (tmp_path / f"job-{job}.out").exists()
    with open(tmp_path / "job.json") as f:
        assert json.load(f)["context"]["slurm"]["SLURM_JOB_ID"] == job


# ------------------------------------------------------------ binding

_AFFINITY = ("import os, json; from mpi4py import MPI; "
             "print(json.dumps([MPI.COMM_WORLD.Get_rank(), sorted(os.sched_getaffinity(0))]))")


@pytest.mark.parametrize("order", ["first-second", "second-first"])
def test_map_cpu_binds_each_rank_to_its_pu(slurm, tmp_path, order):
    pus = sorted(os.sched_getaffinity(0))[:2]
    if len(pus) < 2:
        pytest.skip("one PU: nothing to map")
    wanted = pus if order == "first-second" else pus[::-1]
    done = _srun(slurm, tmp_path, "-n", "2", f"--cpu-bind=map_cpu:{wanted[0]},{wanted[1]}",
                 sys.executable, "-c", _AFFINITY)
    assert done.returncode == 0, done.stderr
    seen = dict(json.loads(line) for line in done.stdout.splitlines())
    assert seen == {0: [wanted[0]], 1: [wanted[1]]}


def test_the_map_srun_line_runs_as_written(slurm, tmp_path):
    """`map --format srun -o FILE` on this node: the hostfile it writes (with
    its `# hpcbench map` comment line) and the command line it prints run
    under this Slurm as printed, and every rank sits on the PU the mapping
    chose for it."""
    import shlex
    pus = sorted(os.sched_getaffinity(0))[:2]
    if len(pus) < 2:
        pytest.skip("one PU: nothing to map")
    hosts = tmp_path / "slurm.hosts"
    program = f"{sys.executable} -c {shlex.quote(_AFFINITY)}"
    done = subprocess.run([sys.executable, "-m", "hpcbench", "map", "example:mapping-node", "-n", "2", "--kind",
                           "memory", "--format", "srun", "--hosts", slurm.node, "--pus", ",".join(map(str, pus)),
                           "-o", str(hosts), "--program", program], capture_output=True, text=True,
                          env=_env(slurm), cwd=tmp_path, timeout=STEP_TIMEOUT)
    assert done.returncode == 0, done.stderr
    line = done.stdout.splitlines()[-1]
    assert line.startswith(f"SLURM_HOSTFILE={hosts} srun --mpi=pmix ")
    ran = subprocess.run(line, shell=True, capture_output=True, text=True, env=_env(slurm), cwd=tmp_path,
                         timeout=STEP_TIMEOUT)
    assert ran.returncode == 0, ran.stderr
    chosen = [int(p) for p in line.split("--cpu-bind=map_cpu:")[1].split()[0].split(",")]
    seen = dict(json.loads(out) for out in ran.stdout.splitlines())
    assert seen == {rank: [chosen[rank]] for rank in range(2)}


def test_a_mapping_larger_than_the_allocation_is_one_line(slurm, tmp_path):
    """`map --format srun` in a one-CPU job (srun -n 1 sets SLURM_JOB_*)
    for two ranks: one line naming the job's CPUs, exit 2, no file."""
    hosts = tmp_path / "slurm.hosts"
    done = _srun(slurm, tmp_path, "-n", "1", sys.executable, "-m", "hpcbench", "map", "example:mapping-node",
                 "-n", "2", "--kind", "memory", "--format", "srun", "--hosts", slurm.node, "-o", str(hosts))
    ours = [line for line in done.stderr.splitlines() if line.startswith("hpcbench")]
    assert done.returncode != 0 and len(ours) == 1, done.stderr
    assert f"places 2 ranks on {slurm.node} but Slurm job" in ours[0] and "holds 1 CPU(s)" in ours[0]
    assert not hosts.exists()


@pytest.mark.parametrize("plugin", ["none", "pmi2"])
def test_srun_without_pmix_is_one_line_and_exit_2(slurm, tmp_path, plugin):
    """Open MPI starts under srun only through PMIx: with another plugin,
    task 0 says which to use in one line and every task exits 2 (Slurm then
    reports the step as failed), before MPI_Init can abort them."""
    done = subprocess.run(["srun", f"--mpi={plugin}", "-t", SLURM_LIMIT, "-n", "2", sys.executable, "-m",
                           "hpcbench", "run", "cache", "-o", str(tmp_path / "r.json"), *SMALL],
                          capture_output=True, text=True, env=_env(slurm), cwd=tmp_path, timeout=STEP_TIMEOUT)
    ours = [line for line in done.stderr.splitlines() if line.startswith("hpcbench")]
    assert done.returncode != 0 and len(ours) == 1, done.stderr
    assert "run srun --mpi=pmix" in ours[0] and not (tmp_path / "r.json").exists()


@pytest.mark.slow       # the whole default suite at 2 ranks, small: about 15 s here
def test_the_default_suite_runs_under_srun(slurm, tmp_path):
    """`srun --mpi=pmix -n 2 python -m hpcbench run`: every benchmark of the
    default suite finishes; the node-local ones once (one node), the world
    ones with both ranks."""
    from hpcbench._registry import default_suite
    fast = ["--cache-max", "2MiB", "--cache-passes", "1", "--cache-samples", "1", "--no-cache-refine",
            "--mbsp-hmax", "8", "--mbsp-niters", "10", "--mbsp-max-vector", "12", "--memory-size", "8MiB",
            "--memory-reps", "2", "--memory-rounds", "1", "--shared-rounds", "1", "--comm-max", "64KiB",
            "--comm-cap", "0.02", "-q"]
    out = tmp_path / "r.json"
    done = _srun(slurm, tmp_path, "-n", "2", sys.executable, "-m", "hpcbench", "run", "-o", str(out), *fast)
    assert done.returncode == 0, done.stderr
    results = hpcbench.load(str(out))
    names = [r.name for r in results.benchmarks]
    assert sorted(set(names)) == sorted(default_suite(2, 1)) and len(names) == len(set(names))
    assert all(r.status in ("ok", "skipped") for r in results.benchmarks), [(r.name, r.error) for r in
                                                                            results.benchmarks]
    assert results.context.launcher.name == "srun" and results.context.mpi.ranks == 2
