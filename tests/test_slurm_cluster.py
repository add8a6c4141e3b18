"""A real Slurm on the emulated cluster (issue 26): tools/netcluster.py makes
four network namespaces in a ring of shaped links, tools/slurmcluster.py
starts one slurmd inside each (node hpcb<i> at its control address) and
slurmctld in the root namespace. srun then places tasks on the emulated
nodes, and `srun --mpi=pmix` runs hpcbench's network benchmarks across the
ring, as a site's Slurm would across its nodes.

Skipped with the reason where it cannot run (not root, Slurm or munge
missing, no network namespaces, another emulated cluster up). Every command
has a timeout, every srun a Slurm time limit, so nothing hangs. Nothing here
asserts a measured figure: the ratios' structure, not their values
(benchmarks/bench_slurm_ratios.py compares them with mpiexec's)."""
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODES = ["hpcb0", "hpcb1", "hpcb2", "hpcb3"]
STEP_TIMEOUT = 300          # seconds a subprocess may take (the machine is shared and slow)
SLURM_LIMIT = "5"           # minutes: Slurm's own limit of each job step


def _load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "tools", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


netcluster = _load("netcluster")
slurmcluster = _load("slurmcluster")


def _why_not() -> str:
    reason = slurmcluster.why_not()
    if reason:
        return f"Slurm cannot run here: {reason}"
    if shutil.which("nsenter") is None or shutil.which("unshare") is None:
        return "nsenter or unshare missing (util-linux)"
    reason = netcluster.available()
    if reason:
        return f"emulated cluster unavailable: {reason}"
    if netcluster.leftovers():
        return "an emulated cluster is already up here (another run's): its names are machine-wide"
    return ""


@pytest.fixture(scope="module")
def slurm():
    """The 4-node ring at 400 Mbit/s with a Slurm on it, for the module; torn down by PID, then the namespaces."""
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    netcluster.up(4, 400)
    try:
        cluster = slurmcluster.SlurmCluster(nodes=netcluster).start()
        try:
            yield cluster
        finally:
            began = time.monotonic()
            cluster.stop()
            print(f"\nslurm on 4 namespaces: started in {cluster.started_seconds:.1f} s, "
                  f"stopped in {time.monotonic() - began:.1f} s")
    finally:
        netcluster.down()


def _srun(slurm, cwd, *args):
    env = slurm.env()
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    try:
        return subprocess.run(["srun", "-t", SLURM_LIMIT, *args], capture_output=True, text=True, env=env, cwd=cwd,
                              timeout=STEP_TIMEOUT)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"srun on the emulated cluster timed out: {e.stderr}")


# What needs neither root nor a cluster: the configuration text and the bookkeeping.

def test_the_conf_gives_each_node_its_own_files():
    conf = slurmcluster.slurm_conf("/x", "NodeName=hpcb0 NodeAddr=10.77.0.1\nNodeName=hpcb1 NodeAddr=10.77.0.2",
                                   "host", 1, 2, ctld_addr="10.77.0.254", per_node=True)
    for line in ("SlurmctldHost=host(10.77.0.254)", "SlurmdSpoolDir=/x/slurmd/%n", "SlurmdPidFile=/x/slurmd-%n.pid",
                 "SlurmdLogFile=/x/slurmd-%n.log", "TmpFS=/x/tmp/%n", "NodeName=hpcb1 NodeAddr=10.77.0.2"):
        assert line in conf.splitlines(), line
    single = slurmcluster.slurm_conf("/x", "NodeName=h NodeAddr=127.0.0.1", "h", 1, 2)
    assert "SlurmdLogFile=/x/slurmd.log" in single.splitlines() and "TmpFS" not in single
    assert "SlurmctldHost=h(127.0.0.1)" in single.splitlines()


def test_the_daemons_are_read_in_start_order(tmp_path):
    for pid, name in enumerate(["slurmd-hpcb1", "slurmctld", "slurmd-hpcb0", "munged"], start=100):
        (tmp_path / f"{name}.started").write_text(f"{pid}\n")
    assert slurmcluster._daemon_names(str(tmp_path)) == ["munged", "slurmctld", "slurmd-hpcb0", "slurmd-hpcb1"]
    assert slurmcluster._read_pids(str(tmp_path)) == [103, 101, 102, 100]


def test_no_emulated_cluster_is_one_line():
    with pytest.raises(slurmcluster.CannotRun, match=r"^cannot run here: [^\n]+$"):
        slurmcluster.SlurmCluster(nodes=[]).start()


# On the emulated cluster.

@pytest.mark.slow
def test_the_four_nodes_come_up_idle(slurm):
    assert slurm.nodes == NODES
    assert slurm.node_states() == dict.fromkeys(NODES, "idle")
    shown = subprocess.run(["scontrol", "-o", "show", "node"], capture_output=True, text=True, env=slurm.env(),
                           timeout=60).stdout
    addrs = dict(re.findall(r"NodeName=(\S+) .*?NodeAddr=(\S+)", shown))
    assert addrs == {f"hpcb{i}": f"10.77.0.{i + 1}" for i in range(4)}


@pytest.mark.slow
def test_each_task_runs_in_its_own_namespace(slurm, tmp_path):
    # Each task names its Slurm node, its host name and the data address of its namespace.
    proc = _srun(slurm, tmp_path, "-N", "4", "--ntasks-per-node", "1", "sh", "-c",
                 'echo "$SLURMD_NODENAME $(hostname) $(ip -4 -o addr show dev node | awk \'{print $4}\')"')
    assert proc.returncode == 0, proc.stderr
    seen = sorted(tuple(line.split()) for line in proc.stdout.splitlines() if line.strip())
    assert seen == [(f"hpcb{i}", f"hpcb{i}", f"10.78.0.{i + 1}/32") for i in range(4)], proc.stdout


@pytest.mark.mpi
@pytest.mark.slow
def test_srun_runs_the_network_benchmarks_across_the_ring(slurm, tmp_path):
    out = tmp_path / "net.json"
    proc = _srun(slurm, tmp_path, "--mpi=pmix", "-N", "4", "--ntasks-per-node", "2", sys.executable, "-m",
                 "hpcbench", "run", "distance", "network-access", "--net-size", "2MiB", "--net-cap", "1", "-q",
                 "-o", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(out.read_text())
    context = data["context"]
    assert context["hosts"] == NODES
    assert context["launcher"]["name"] == "srun"
    records = {r["name"]: r for r in data["benchmarks"]}
    assert set(records) == {"distance", "network-access"}
    assert all(r["status"] == "ok" for r in records.values()), [(r["name"], r.get("error")) for r in records.values()]
    rat_dist = records["distance"]["derived"]["rat_dist"]
    rat_nc = records["network-access"]["derived"]["rat_nc"]
    # Structure only: distances 1 and 2 on a 4-ring, 1 and 2 processes per node; the first is the reference.
    assert sorted(rat_dist) == ["1", "2"] and rat_dist["1"] == 1.0
    assert sorted(rat_nc) == ["1", "2"] and rat_nc["1"] == 1.0
    assert all(isinstance(v, float) and v > 0 for v in [*rat_dist.values(), *rat_nc.values()])
