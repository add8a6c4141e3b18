"""The launcher files of `hpcbench map` work as written: mpiexec started with
them puts every rank on the host and PU the mapping says, as each rank sees
it from inside with hwloc (tests/mapping_binding_check.py). On this machine
with Open MPI's rankfile and, where MPICH is installed, hydra's hostfile and
user binding; across the emulated cluster of tools/netcluster.py (root) with
both."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from hpcbench.mapping import launch, map_processes
from hpcbench.topology import Topology

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECK = os.path.join(ROOT, "tests", "mapping_binding_check.py")
NODE_EXAMPLE = os.path.join(ROOT, "hpcbench", "examples", "node-example.json")
NETWORK_EXAMPLE = os.path.join(ROOT, "hpcbench", "examples", "network-example.json")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import netcluster  # noqa: E402

pytestmark = pytest.mark.mpi


def is_open_mpi(mpiexec: str) -> bool:
    out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True).stdout
    return "Open MPI" in out or "OpenRTE" in out


OPEN_MPI = shutil.which("mpiexec") if shutil.which("mpiexec") and is_open_mpi(shutil.which("mpiexec")) else None
HYDRA = shutil.which("mpiexec.mpich") or shutil.which("mpiexec.hydra")


def env() -> dict:
    out = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMPI_MCA_rmaps_base_oversubscribe="1")
    if os.geteuid() == 0:
        out.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return out


def run(cmd: list, timeout: int = 180) -> dict:
    """Run the launch; {rank: (host, [PUs])} from what every rank wrote."""
    out = tempfile.mkdtemp(dir=os.environ.get("TMPDIR"))
    try:
        try:
            proc = subprocess.run(cmd + [out], capture_output=True, text=True, timeout=timeout, env=env())
        except subprocess.TimeoutExpired as e:
            pytest.fail(f"{' '.join(cmd[:3])} ... timed out after {timeout}s: {e.stderr}")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        seen = {}
        for name in os.listdir(out):
            rank, host, pus = Path(os.path.join(out, name)).read_text().split()
            seen[int(rank)] = (host, [int(p) for p in pus.split(",")])
        return seen
    finally:
        shutil.rmtree(out, ignore_errors=True)


def expected(mapping) -> dict:
    return {c.rank: (c.host, [c.pu]) for c in mapping.choices}


def command(plan, path: str, mpiexec: str, extra: list = ()) -> list:
    """The printed command line, as a list, with the launcher found here."""
    with open(path, "w") as f:
        f.write(plan.text)
    words = plan.command.replace("./your_program", "").split()
    assert words[0] in ("mpirun", "mpiexec")
    return [mpiexec, *extra, *words[1:], sys.executable, CHECK]


def this_machine_mapping(kind: str):
    topo = Topology.load()
    if len(topo.pu_indexes) < 2:
        pytest.skip("a mapping to check needs two PUs")
    n = min(4, len(topo.pu_indexes))
    return map_processes(NODE_EXAMPLE, n, kind, hosts=[socket.gethostname()], topology=topo)


@pytest.mark.skipif(OPEN_MPI is None, reason="no Open MPI mpiexec")
@pytest.mark.parametrize("kind", ["memory", "communication"])
def test_rankfile_binds_every_rank_where_the_mapping_says(kind, tmp_path):
    mapping = this_machine_mapping(kind)
    plan = launch(mapping, "rankfile", str(tmp_path / "rankfile"))
    assert run(command(plan, plan.path, OPEN_MPI)) == expected(mapping)


@pytest.mark.skipif(HYDRA is None, reason="MPICH's hydra (mpiexec.mpich) not installed (tools/check-mpich.sh)")
def test_hydra_binds_every_rank_where_the_mapping_says(tmp_path):
    mapping = this_machine_mapping("memory")
    plan = launch(mapping, "hydra", str(tmp_path / "hosts"))
    assert run(command(plan, plan.path, HYDRA)) == expected(mapping)


@pytest.mark.skipif(OPEN_MPI is None or shutil.which("lstopo-no-graphics") is None,
                    reason="needs Open MPI and lstopo-no-graphics (Debian package hwloc)")
def test_rankfile_binds_one_thread_of_an_smt_core(tmp_path):
    """Open MPI binds a physical rankfile slot to the whole core holding the
    PU unless --use-hwthread-cpus: on a (fake) 2-thread core, PU 1 alone."""
    if not {0, 1} <= set(Topology.load().pu_indexes):
        pytest.skip("needs PUs 0 and 1")
    xml = str(tmp_path / "smt.xml")
    subprocess.run(["lstopo-no-graphics", "--input", "pack:1 core:1 pu:2", "-f", xml], check=True,
                   capture_output=True)
    rankfile = tmp_path / "rf"
    rankfile.write_text(f"rank 0={socket.gethostname()} slot=1\n")
    base = [OPEN_MPI, "--mca", "hwloc_base_topo_file", xml, "-np", "1", "--rankfile", str(rankfile),
            "--mca", "rmaps_rank_file_physical", "1"]
    assert run(base + [sys.executable, CHECK])[0][1] == [0, 1]
    assert run(base + ["--use-hwthread-cpus", sys.executable, CHECK])[0][1] == [1]


# ------------------------------------------------------------ the emulated cluster
# The module-scoped fixture of the network tests: 4 nodes, 400 Mbit/s links,
# skipped with its reason where namespaces cannot be made (not root).
import test_network_emulated  # noqa: E402

cluster = test_network_emulated.cluster

AGENT = """#!/bin/sh
# hydra's ssh launcher: skip the ssh options it passes (-x) before the host
while [ "${1#-}" != "$1" ]; do shift; done
host=$1; shift
exec ip netns exec "$host" unshare --uts sh -c "hostname $host; $*"
"""


@pytest.mark.slow       # the emulated cluster (tests/conftest.py checks it)
@pytest.mark.parametrize("kind", ["memory", "communication"])
def test_rankfile_across_the_emulated_cluster(cluster, kind):
    mapping = map_processes(NETWORK_EXAMPLE, 6, kind)       # ratNC[2] = 1.8: one per node, then a second
    assert [c.host for c in mapping.choices[:4]] == ["hpcb0", "hpcb1", "hpcb2", "hpcb3"]
    plan = launch(mapping, "rankfile", os.path.join(cluster, "rankfile"))
    seen = run(command(plan, plan.path, OPEN_MPI, netcluster.mpiexec_args(2, cluster)))
    assert seen == expected(mapping)


@pytest.mark.slow       # the emulated cluster (tests/conftest.py checks it)
@pytest.mark.skipif(HYDRA is None, reason="MPICH's hydra (mpiexec.mpich) not installed")
def test_hydra_across_the_emulated_cluster(cluster):
    mapping = map_processes(NETWORK_EXAMPLE, 6, "communication")
    plan = launch(mapping, "hydra", os.path.join(cluster, "hydra.hosts"))
    agent = os.path.join(cluster, "hydra-agent")
    with open(agent, "w") as f:
        f.write(AGENT)
    os.chmod(agent, 0o755)
    extra = ["-launcher", "ssh", "-launcher-exec", agent, "-localhost", "10.77.0.254"]
    assert run(command(plan, plan.path, HYDRA, extra)) == expected(mapping)
