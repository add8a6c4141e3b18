"""`map --format srun` inside a Slurm allocation (issue 26): Slurm's host
list and CPU counts read as Slurm writes them, and a mapping that needs more
CPUs or other nodes than the allocation holds refused in one line, exit 2,
nothing written. Known answers only; the real salloc case is in test_slurm."""
import io
import os
from contextlib import redirect_stderr, redirect_stdout

import pytest

from hpcbench.cli import main
from hpcbench.mapping import SlurmAllocation, check_fits_allocation, expand_hostlist, map_processes, slurm_allocation

HERE = os.path.dirname(os.path.abspath(__file__))
NETWORK = os.path.join(HERE, "..", "hpcbench", "examples", "network-example.json")


@pytest.mark.parametrize("text, names", [
    ("login1", ["login1"]),
    ("n[1-3]", ["n1", "n2", "n3"]),
    ("node[08-11,20]", ["node08", "node09", "node10", "node11", "node20"]),
    ("gpu[1-2]-ib,cpu7", ["gpu1-ib", "gpu2-ib", "cpu7"]),
    ("r[1-2]n[01-02]", ["r1n01", "r1n02", "r2n01", "r2n02"]),
    ("a,b[7],c", ["a", "b7", "c"]),
])
def test_host_lists_expand_as_slurm_writes_them(text, names):
    assert expand_hostlist(text) == names


@pytest.mark.parametrize("text", ["n[1-3", "n1-3]", "n[3-1]", "n[a-b]", "a,,b", "n[1-1000][1-1000][1-1000]"])
def test_a_bad_host_list_is_one_line(text):
    with pytest.raises(ValueError) as e:
        expand_hostlist(text)
    assert "\n" not in str(e.value)


def test_the_allocation_from_slurms_variables():
    env = {"SLURM_JOB_ID": "42", "SLURM_JOB_NODELIST": "hpcb[0-2],big", "SLURM_JOB_CPUS_PER_NODE": "2(x3),64"}
    assert slurm_allocation(env) == SlurmAllocation("42", {"hpcb0": 2, "hpcb1": 2, "hpcb2": 2, "big": 64})
    assert slurm_allocation({"SLURM_JOB_NODELIST": "a"}) is None          # not in a job
    with pytest.raises(ValueError, match="gives 2 node"):
        slurm_allocation({**env, "SLURM_JOB_CPUS_PER_NODE": "2(x2)"})


def test_a_mapping_fits_or_is_refused_with_the_reason():
    mapping = map_processes(NETWORK, 6, "memory")        # hpcb0: 2, hpcb1: 2, hpcb2: 1, hpcb3: 1
    check_fits_allocation(mapping, SlurmAllocation("7", {f"hpcb{i}": 2 for i in range(4)}))
    with pytest.raises(ValueError, match=r"places 2 ranks on hpcb0 but Slurm job 7 holds 1 CPU"):
        check_fits_allocation(mapping, SlurmAllocation("7", {f"hpcb{i}": 1 for i in range(4)}))
    with pytest.raises(ValueError, match=r"on hpcb3, which Slurm job 7 does not hold"):
        check_fits_allocation(mapping, SlurmAllocation("7", {f"hpcb{i}": 2 for i in range(3)}))


def test_map_in_a_small_allocation_is_one_line_and_writes_nothing(monkeypatch, tmp_path):
    monkeypatch.setenv("SLURM_JOB_ID", "9")
    monkeypatch.setenv("SLURM_JOB_NODELIST", "hpcb[0-3]")
    monkeypatch.setenv("SLURM_JOB_CPUS_PER_NODE", "1(x4)")
    out, err, path = io.StringIO(), io.StringIO(), tmp_path / "job.hosts"
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["map", NETWORK, "-n", "6", "--kind", "memory", "--format", "srun", "-o", str(path)])
    assert status == 2 and out.getvalue() == "" and not path.exists()
    assert err.getvalue().count("\n") == 1 and "holds 1 CPU(s) there (6 ranks in all, 4 CPUs)" in err.getvalue()
    monkeypatch.setenv("SLURM_JOB_CPUS_PER_NODE", "2(x4)")                 # now it fits
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["map", NETWORK, "-n", "6", "--kind", "memory", "--format", "srun", "-o", str(path)]) == 0
