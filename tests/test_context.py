"""The context block's launch record (hpcbench._machine, _launch, _context,
_show): what is collected from fake environments and a fake sysfs, what is
kept out, and old files loading and showing exactly as before."""
from __future__ import annotations

import glob
import json
import os

import pytest

from hpcbench import _launch, _machine
from hpcbench._results import load
from hpcbench._show import summary

HERE = os.path.dirname(os.path.abspath(__file__))
#: Examples recorded after the context gained the launch record (NEW_KEYS): they carry it.
WITH_LAUNCH_RECORD = {"micro-example.json", "stream-example.json", "bandwidth-example.json", "peakflops-example.json",
                      "netmap-example.json", "node-example.json",
                      "numa-example.json"}
EXAMPLES = sorted(p for p in glob.glob(os.path.join(HERE, "..", "hpcbench", "examples", "*-example.json"))
                  if os.path.basename(p) not in WITH_LAUNCH_RECORD)
NEW_KEYS = ("command_line", "launcher", "binding", "slurm", "mpi_environment", "kernel", "cpu_frequency")

FAKE_ENV = {
    "SLURM_JOB_ID": "4242", "SLURM_JOB_NODELIST": "node[01-02]", "SLURM_NTASKS_PER_NODE": "2",
    "SLURM_TASKS_PER_NODE": "2(x2)", "SLURM_JOB_ACCOUNT": "physics",
    "OMPI_MCA_btl": "self,vader", "OMPI_MCA_pml": "ob1", "UCX_TLS": "sm,self", "FI_PROVIDER": "tcp",
    "MPICH_ASYNC_PROGRESS": "1", "I_MPI_PIN": "0", "HYDRA_TOPO_DEBUG": "1",
    "PRTE_MCA_hwloc_default_binding_policy": "core",
    "OMPI_MCA_orte_precondition_transports": "aca64cd8d8f16bd0-d74d9ec0bdef4630",
    "UCX_SECRET_KEY": "hunter2", "MY_API_TOKEN": "abc", "HOME": "/root", "PATH": "/usr/bin",
    "OMPI_COMM_WORLD_SIZE": "2", "PMIX_RANK": "0", "UCX_LONG": "x" * 1000,
}


@pytest.fixture
def fake_env(monkeypatch):
    for name in list(os.environ):
        if name.startswith(("SLURM_", "OMPI_", "PMIX_", "PMI_", "MPI_LOCAL", "PRTE_", "UCX_", "FI_", "MPICH_",
                            "I_MPI_", "HYDRA_")):
            monkeypatch.delenv(name)
    for name, value in FAKE_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(_launch, "launcher_version", lambda launcher, environ=None: "mpiexec (OpenRTE) 4.1.4")


def test_mpi_environment_keeps_only_the_listed_prefixes(fake_env):
    env = _launch.mpi_environment()
    assert env["OMPI_MCA_btl"] == "self,vader" and env["OMPI_MCA_pml"] == "ob1"
    assert env["UCX_TLS"] == "sm,self" and env["FI_PROVIDER"] == "tcp" and env["MPICH_ASYNC_PROGRESS"] == "1"
    assert env["I_MPI_PIN"] == "0" and env["HYDRA_TOPO_DEBUG"] == "1"
    assert env["PRTE_MCA_hwloc_default_binding_policy"] == "core"
    for kept_out in ("HOME", "PATH", "SLURM_JOB_ID", "MY_API_TOKEN", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                     "UCX_SECRET_KEY", "OMPI_MCA_orte_precondition_transports"):
        assert kept_out not in env, kept_out
    assert list(env) == sorted(env)
    assert len(env["UCX_LONG"]) == _launch.MAX_VALUE_CHARS and env["UCX_LONG"].endswith("...")


def test_slurm_job_records_the_four_variables(fake_env):
    assert _launch.slurm_job() == {"SLURM_JOB_ID": "4242", "SLURM_JOB_NODELIST": "node[01-02]",
                                   "SLURM_NTASKS_PER_NODE": "2", "SLURM_TASKS_PER_NODE": "2(x2)"}


def test_no_slurm_key_outside_slurm(monkeypatch):
    for name in list(os.environ):
        if name.startswith("SLURM_"):
            monkeypatch.delenv(name)
    assert "slurm" not in _machine.launch_facts()


def test_launch_facts_from_a_fake_environment(fake_env, monkeypatch):
    monkeypatch.setattr("sys.argv", ["/x/hpcbench/__main__.py", "run", "comm", "-o", "c.json"])
    binding = [{"rank": 0, "host": "node01", "pus": [0], "bound_by": "launcher"},
               {"rank": 1, "host": "node01", "pus": [1], "bound_by": "launcher"}]
    facts = _machine.launch_facts(binding)
    assert facts["command_line"] == ["python", "-m", "hpcbench", "run", "comm", "-o", "c.json"]
    assert facts["launcher"] == {"name": "Open MPI mpiexec", "version": "mpiexec (OpenRTE) 4.1.4"}
    assert facts["binding"] == binding
    assert facts["slurm"]["SLURM_JOB_ID"] == "4242"
    assert "HOME" not in json.dumps(facts) and "hunter2" not in json.dumps(facts)
    assert set(facts["cpu_frequency"]) == {"governor", "turbo"}


def _cpu(root, n, governor=None):
    path = root / "devices" / "system" / "cpu" / f"cpu{n}" / "cpufreq"
    path.mkdir(parents=True)
    if governor:
        (path / "scaling_governor").write_text(governor + "\n")


def test_governor_and_turbo_from_a_fake_sysfs(tmp_path):
    assert _launch.cpu_governor(str(tmp_path)) == "unavailable"
    assert _launch.turbo_state(str(tmp_path)) == "unavailable"
    for n in range(4):
        _cpu(tmp_path, n, "performance")
    assert _launch.cpu_governor(str(tmp_path)) == "performance"
    (tmp_path / "devices/system/cpu/cpu3/cpufreq/scaling_governor").write_text("powersave\n")
    assert _launch.cpu_governor(str(tmp_path)) == "mixed: performance x3, powersave x1"
    (tmp_path / "devices/system/cpu/cpufreq").mkdir()
    (tmp_path / "devices/system/cpu/cpufreq/boost").write_text("1\n")
    assert _launch.turbo_state(str(tmp_path)) == "on (cpufreq boost)"
    (tmp_path / "devices/system/cpu/intel_pstate").mkdir()
    (tmp_path / "devices/system/cpu/intel_pstate/no_turbo").write_text("1\n")
    assert _launch.turbo_state(str(tmp_path)) == "off (intel_pstate)"


def test_command_line_keeps_other_programs_as_typed():
    assert _launch.command_line(["bench.py", "--x"]) == ["bench.py", "--x"]


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_old_examples_have_no_new_key_and_show_as_before(path):
    with open(path) as f:
        context = json.load(f)["context"]
    assert not set(NEW_KEYS) & set(context)
    results = load(path)
    golden = os.path.join(HERE, "golden", os.path.basename(path).replace(".json", ".show.txt"))
    with open(golden) as f:
        assert summary(results) == f.read()


def test_a_context_with_the_launch_record_loads_and_shows_it(fake_env, tmp_path):
    with open(EXAMPLES[0]) as f:
        data = json.load(f)
    data["context"].update(_machine.launch_facts(
        [{"rank": 0, "host": "node01", "pus": [0], "bound_by": "hpcbench"},
         {"rank": 1, "host": "node02", "pus": [0, 1], "bound_by": "none", "why": "HPCBENCH_NO_BIND is set"}]))
    path = tmp_path / "launched.json"
    path.write_text(json.dumps(data))
    results = load(str(path))
    ctx = results.context
    assert ctx.launcher.name == "Open MPI mpiexec" and ctx.binding[1].why == "HPCBENCH_NO_BIND is set"
    assert ctx.slurm["SLURM_JOB_ID"] == "4242" and ctx.cpu_frequency.governor
    text = summary(results)
    assert "launcher: Open MPI mpiexec (mpiexec (OpenRTE) 4.1.4); binding: 2 ranks on 2 hosts, 1 not bound to one PU" \
        in text
    assert "Slurm job 4242 on node[01-02]" in text
