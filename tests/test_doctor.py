"""`hpcbench doctor`, the binding rule and the launcher detection
(hpcbench._launch): the screen's structure and its exit status, every rank
bound under mpiexec, the one-line message for a missing library, and the
rule's known answers as pure functions."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from hpcbench import _launch
from hpcbench.cli._doctor import missing_library_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINE = re.compile(r"^  (ok|FAIL|info|limit) +(\S.*?) +(\S.*)$")


def _env(**extra) -> dict:
    env = dict(os.environ, **extra)
    if os.getuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.update(OMPI_MCA_rmaps_base_oversubscribe="1", PRTE_MCA_rmaps_default_mapping_policy=":oversubscribe")
    return env


def _check_screen(out: str, status: int, ranks: int) -> list:
    """The screen is a heading, check lines and a verdict that agrees with
    the lines and the exit status."""
    lines = out.splitlines()
    assert lines[0].startswith("hpcbench doctor (hpcbench ") and f"{ranks} rank" in lines[0]
    checks = [LINE.match(line) for line in lines[1:-1]]
    assert all(checks), [line for line, m in zip(lines[1:-1], checks) if not m]
    failed = sum(1 for m in checks if m and m.group(1) == "FAIL")
    if failed:
        assert lines[-1] == f"{failed} check{'s' if failed != 1 else ''} FAILED (marked FAIL)" and status == 1
    else:
        assert lines[-1] == "all checks passed" and status == 0
    names = [m.group(2) for m in checks if m]
    for name in ("core", "mpi4py", "mpi", "launcher", "binding", "hwloc", "topology", "timer", "huge-pages",
                 "pagemap", "cpu-freq"):
        assert name in names, name
    return [m.groups() for m in checks if m]


def test_doctor_singleton_screen_matches_its_status():
    done = subprocess.run([sys.executable, "-m", "hpcbench", "doctor"], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=_env())
    assert done.returncode in (0, 1), done.stderr
    checks = _check_screen(done.stdout, done.returncode, 1)
    assert ("info", "launcher", "singleton") in checks
    # one rank: the benchmarks that need two or more are named as limits
    assert any(mark == "limit" and name == "comm" for mark, name, _ in checks)


@pytest.mark.skipif(shutil.which("mpiexec") is None, reason="no mpiexec")
@pytest.mark.parametrize("placement", [[], ["--bind-to", "none"]], ids=["launcher-binds", "unbound"])
def test_doctor_under_mpiexec_every_rank_bound(placement):
    done = subprocess.run(["timeout", "120", "mpiexec", "-n", "2", *placement, sys.executable, "-m", "hpcbench",
                           "doctor"], capture_output=True, text=True, timeout=150, cwd=ROOT, env=_env())
    checks = _check_screen(done.stdout, done.returncode, 2)
    bindings = [text for mark, name, text in checks if name == "binding"]
    assert len(bindings) == 2 and all(re.match(r"rank [01] on \S+: PU \d+ \(bound by \w+\)", b) for b in bindings)
    assert all(mark == "ok" for mark, name, _ in checks if name == "binding")
    if placement:        # the launcher left them unbound: hpcbench bound them, one PU each in rank order
        assert all("bound by hpcbench" in b for b in bindings)
    assert done.stdout.count("hpcbench doctor (") == 1        # rank 0 alone prints


@pytest.mark.skipif(shutil.which("mpiexec") is None, reason="no mpiexec")
def test_doctor_no_bind_keeps_the_launchers_placement_and_fails_the_check():
    done = subprocess.run(["timeout", "120", "mpiexec", "-n", "2", "--bind-to", "none", sys.executable, "-m",
                           "hpcbench", "doctor"], capture_output=True, text=True, timeout=150, cwd=ROOT,
                          env=_env(HPCBENCH_NO_BIND="1"))
    checks = _check_screen(done.stdout, done.returncode, 2)
    assert done.returncode == 1
    assert [mark for mark, name, _ in checks if name == "binding"] == ["FAIL", "FAIL"]


_FAILING_IMPORT = """
import importlib.abc, sys
class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == {name!r}:
            raise ImportError({message!r})
        return None
sys.meta_path.insert(0, Missing())
from hpcbench.cli import main
sys.exit(main(["doctor"]))
"""


@pytest.mark.parametrize("module, message, expected", [
    ("hpcbench._core", "libhwloc.so.15: cannot open shared object file: No such file or directory",
     "hpcbench doctor: hpcbench._core (the C core) cannot be loaded: libhwloc.so.15 is missing; install hwloc"),
    ("hpcbench._core", "libmpi.so.40: cannot open shared object file: No such file or directory",
     "hpcbench doctor: hpcbench._core (the C core) cannot be loaded: libmpi.so.40 is missing; install the MPI "
     "library hpcbench was built against"),
    ("mpi4py", "No module named 'mpi4py'",
     "hpcbench doctor: mpi4py cannot be loaded: the import failed (No module named 'mpi4py'); install mpi4py"),
])
def test_doctor_names_the_missing_library_in_one_line(module, message, expected):
    code = _FAILING_IMPORT.format(name=module, message=message)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env=_env())
    assert done.returncode == 1
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(expected), done.stderr


def test_missing_library_line_is_pure():
    line = missing_library_line("hpcbench._core (the C core)", OSError("libmpich.so.12: cannot open shared object"))
    assert line.startswith("hpcbench doctor: hpcbench._core (the C core) cannot be loaded: libmpich.so.12 is missing; "
                           "install MPICH")


# ------------------------------------------------------------ the binding rule (pure)

@pytest.mark.parametrize("allowed, local_rank, pu", [
    ([0, 1, 2, 3], 0, 0), ([0, 1, 2, 3], 3, 3),
    ([0, 1, 2, 3], 4, 0), ([0, 1, 2, 3], 6, 2),          # more ranks than PUs: round again
    ([9, 4, 6], 0, 4), ([9, 4, 6], 1, 6), ([9, 4, 6], 2, 9),   # ascending OS index, whatever the order given
    ([8, 9, 10, 11], 1, 9),                                # a cpuset (Slurm's cgroup) that does not start at 0
    ([5], 3, 5),
])
def test_pu_for_local_rank(allowed, local_rank, pu):
    assert _launch.pu_for_local_rank(allowed, local_rank) == pu


def test_pu_for_local_rank_refuses_nothing_allowed():
    with pytest.raises(ValueError, match="no PU"):
        _launch.pu_for_local_rank([], 0)


def test_pu_for_rank_counts_only_ranks_with_the_same_pus():
    # MPICH's default: every rank may use the whole node
    node = [[0, 1, 2, 3]] * 4
    assert [_launch.pu_for_rank(node[k], node, k) for k in range(4)] == [0, 1, 2, 3]
    # a launcher that bound each pair of ranks to one core of two hardware threads
    node = [[0, 1], [0, 1], [2, 3], [2, 3]]
    assert [_launch.pu_for_rank(node[k], node, k) for k in range(4)] == [0, 1, 2, 3]
    # bound to a socket each, two ranks per socket, ranks interleaved
    node = [[0, 1, 2, 3], [4, 5, 6, 7], [0, 1, 2, 3], [4, 5, 6, 7]]
    assert [_launch.pu_for_rank(node[k], node, k) for k in range(4)] == [0, 4, 1, 5]


@pytest.mark.parametrize("env, launcher", [
    ({"OMPI_COMM_WORLD_SIZE": "2", "PMIX_RANK": "0"}, "Open MPI mpiexec"),
    ({"PMI_RANK": "0", "PMI_SIZE": "2", "PMI_FD": "6", "MPI_LOCALRANKID": "0"}, "MPICH mpiexec (hydra)"),
    ({"SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_JOB_ID": "7"}, "srun"),
    ({"OMPI_COMM_WORLD_SIZE": "2", "SLURM_STEP_ID": "0", "SLURM_PROCID": "0"}, "Open MPI mpiexec"),
    ({"PMIX_RANK": "0"}, "PMIx launcher"),
    ({"PMI_RANK": "0"}, "PMI launcher"),
    ({"HOME": "/root"}, "singleton"),
])
def test_detect_launcher(env, launcher):
    assert _launch.detect_launcher(env) == launcher


@pytest.mark.parametrize("env, rank", [({"OMPI_COMM_WORLD_LOCAL_RANK": "3"}, 3), ({"MPI_LOCALRANKID": "1"}, 1),
                                       ({"SLURM_LOCALID": "2"}, 2), ({"SLURM_LOCALID": "x"}, None), ({}, None)])
def test_local_rank_from_env(env, rank):
    assert _launch.local_rank_from_env(env) == rank


@pytest.mark.parametrize("value, off", [("1", True), ("yes", True), ("0", False), ("", False)])
def test_binding_can_be_turned_off(value, off):
    assert _launch.binding_disabled({_launch.NO_BIND_VARIABLE: value}) is off


def test_rank_binding_entry_keys():
    entry = _launch.RankBinding((3,), "hpcbench").as_dict(1, "node7")
    assert entry == {"rank": 1, "host": "node7", "pus": [3], "bound_by": "hpcbench"}
    entry = _launch.RankBinding((0, 1), "none", "HPCBENCH_NO_BIND is set").as_dict(0, "node7")
    assert entry["why"] == "HPCBENCH_NO_BIND is set"


def test_the_recorded_context_keys():
    from hpcbench import _machine
    from hpcbench.topology import Topology
    ctx = _machine.collect(Topology.load())
    for key in ("command_line", "launcher", "binding", "mpi_environment", "kernel", "cpu_frequency"):
        assert key in ctx, key
    assert set(ctx["launcher"]) == {"name", "version"}
    assert set(ctx["binding"][0]) >= {"rank", "host", "pus", "bound_by"}
    assert set(ctx["cpu_frequency"]) == {"governor", "turbo"}
