"""`python -m hpcbench map`: the launcher file and its command line, and
every bad input as one line with exit status 2 (in-process, main(argv))."""
import io
import os
import stat
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from hpcbench.cli import main

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "hpcbench", "examples")
NETWORK = os.path.join(EXAMPLES, "network-example.json")
NODE = os.path.join(EXAMPLES, "node-example.json")
CACHE = os.path.join(EXAMPLES, "cache-example.json")


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["map", *argv])
    return status, out.getvalue(), err.getvalue()


def test_file_to_stdout_command_to_stderr():
    status, out, err = cli(NETWORK, "-n", "4", "--kind", "communication", "--format", "rankfile")
    assert status == 0
    assert out.splitlines()[1:] == [f"rank {r}=hpcb{r} slot=0" for r in range(4)]
    assert err.strip() == ("hpcbench map: save the above as rankfile and run: mpirun -np 4 --rankfile rankfile "
                           "--mca rmaps_rank_file_physical 1 --use-hwthread-cpus ./your_program")


def test_output_file_and_command(tmp_path):
    path = str(tmp_path / "job.hosts")
    status, out, err = cli(NETWORK, "-n", "6", "--kind", "memory", "--format", "srun", "-o", path,
                           "--program", "./app -x", "--srun-mpi", "pmi2")
    assert status == 0 and err == ""
    assert Path(path).read_text().splitlines()[1:] == ["hpcb0", "hpcb0", "hpcb1", "hpcb1", "hpcb2", "hpcb3"]
    assert out.splitlines()[1] == (f"SLURM_HOSTFILE={path} srun --mpi=pmi2 --ntasks=6 --distribution=arbitrary "
                                   "--cpu-bind=map_cpu:0,1 ./app -x")


def test_several_files_hosts_and_pus():
    # node benchmarks from a one-node run (vm), ratNC from the cluster; two of its nodes, PU 1 only
    status, out, _ = cli(NODE, NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "--hosts",
                         "hpcb1,hpcb2", "--pus", "1")
    assert status == 0
    rows = [line.split() for line in out.splitlines()[2:]]
    assert [(r[1], r[2]) for r in rows] == [("hpcb1", "1"), ("hpcb2", "1")]


def test_fewer_is_faster_is_said(tmp_path):
    from mapping_records import emulated_cluster_results
    path = str(tmp_path / "r.json")
    emulated_cluster_results({1: 1.0, 2: 2.5}).save(path)        # two per node move less than one
    status, _, err = cli(path, "-n", "2", "--kind", "communication", "--format", "list")
    assert status == 0 and "note: ratNC says 1 process per node is fastest" in err
    status, _, err = cli(NETWORK, "-n", "2", "--kind", "communication", "--format", "list")
    assert status == 0 and "faster" not in err                   # ratNC[2] = 1.83: two still move more


@pytest.mark.parametrize("argv, message", [
    ([NETWORK, "-n", "9", "--kind", "memory", "--format", "list"], "9 processes do not fit on the 8 cores"),
    ([NETWORK, "-n", "0", "--kind", "memory", "--format", "list"], "at least 1, got 0"),
    ([NETWORK, "-n", "-2", "--kind", "memory", "--format", "list"], "at least 1, got -2"),
    ([NETWORK, "-n", "two", "--kind", "memory", "--format", "list"], "invalid int value"),
    ([NETWORK, "-n", "2", "--kind", "cpu", "--format", "list"], "invalid choice: 'cpu'"),
    ([NETWORK, "-n", "2", "--kind", "memory", "--format", "pbs"], "invalid choice: 'pbs'"),
    ([NETWORK, "-n", "2", "--format", "list"], "--kind"),
    ([CACHE, "-n", "2", "--kind", "memory", "--format", "list"], "none of the records the mapping reads"),
    ([os.path.join(EXAMPLES, "nope.json"), "-n", "2", "--kind", "memory", "--format", "list"], "not found"),
    ([NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "--pus", "0,7"], "got 7"),
    ([NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "--pus", "x"], "--pus"),
    ([NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "--hosts", "a,,b"], "is not a host name"),
    ([NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "--topology", "/no.xml"], "not found"),
    ([NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "-o", "/nonexistent/dir/f"], "does not exist"),
    ([NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "-o", EXAMPLES], "not a directory"),
    ([NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "-o", NETWORK], "is a results file"),
    ([NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "-o", ""], "must not be empty"),
])
def test_bad_input_is_one_line_exit_2(argv, message):
    status, out, err = cli(*argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("hpcbench map") and message in err, err


def test_unwritable_output(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    status, out, err = cli(NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "-o", str(folder / "f"))
    assert status == 2 and err.count("\n") == 1 and "cannot write" in err


def test_unwritable_output_as_root_too():
    status, _, err = cli(NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "-o", "/proc/version")
    assert status == 2 and err.count("\n") == 1 and "/proc/version exists and is not a launcher file" in err
    status, _, err = cli(NETWORK, "-n", "2", "--kind", "memory", "--format", "list", "-o", "/proc/version", "--force")
    assert status == 2 and err.count("\n") == 1 and "cannot write the launcher file /proc/version" in err
