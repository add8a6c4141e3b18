"""The numa kernel on this machine (structure only: no measured figure is
asserted): shapes, the pages really on the node they were bound to (read
back with hwloc), the C rules; then a short `run numa`, its record, `show`
and the tidy export; and bad input on the command line: one line, exit 2."""
import json
import subprocess
import sys

import numpy as np
import pytest

from hpcbench import _core
from hpcbench.numa import measure_cell, plan_numa
from hpcbench.topology import Topology

SHORT = ["--numa-size", "8MiB", "--numa-reps", "2", "--numa-accesses", "1000"]


def hpcbench(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "hpcbench", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


def first_node():
    return plan_numa(Topology.load())


def test_a_cell_reads_and_chases_memory_bound_where_asked():
    plan = first_node()
    node = plan.cpu_nodes[0]
    readers = plan.readers[node][:2]
    members = len(readers)
    ns, start, end, latency, slice_bytes, isa, strict, chunks, misplaced = _core.numa_cell(
        readers, node, 64 * members * 4096, 3, samples=4, accesses=5000)
    assert ns.shape == start.shape == end.shape == (members, 3) and latency.shape == (4,)
    assert np.all(ns > 0) and np.all(end - start == ns) and np.all(latency > 0)
    assert slice_bytes == 64 * 4096 and isa != _core.ISA_AUTO and strict in (0, 1)
    assert chunks == 64 and misplaced == 0           # every chunk's pages on the node bound
    for other in plan.nodes:                         # and on every other node (several on a NUMA machine)
        assert _core.numa_cell(readers[:1], other, 1 << 20, 1, samples=1, accesses=1000)[7:] == (64, 0)
    samples = measure_cell(readers, node, 1 << 20, 2, accesses=2000)
    assert samples.bandwidth.shape == (2,)
    assert samples.bytes_per_repetition == (1 << 20) // (64 * members) * 64 * members
    assert samples.location_chunks == 64 and samples.misplaced_chunks == 0


def test_the_c_rules():
    node_count = len(Topology.load().numa_nodes)
    with pytest.raises(_core.ParameterError, match=r"^node must be the OS index of a NUMA node of this machine \(0"):
        _core.numa_cell([0], 4096 + node_count, 1 << 20, 1)
    with pytest.raises(_core.ParameterError, match="buffer_bytes must be a multiple of 64 bytes"):
        _core.numa_cell([0], 0, 100, 1)
    with pytest.raises(_core.ParameterError, match="^samples"):
        _core.numa_cell([0], 0, 1 << 20, 1, samples=0)
    with pytest.raises(_core.ParameterError, match="^pus"):
        _core.numa_cell([0, 0], 0, 1 << 20, 1)
    with pytest.raises(_core.ParameterError, match="^window_bytes"):
        _core.numa_check(1, 1 << 20, 1, window_bytes=100)
    assert _core.numa_check(2, 1 << 20, 1) is None


def test_a_short_run_writes_the_matrix(tmp_path):
    out = tmp_path / "numa.json"
    done = hpcbench("run", "numa", *SHORT, "-o", str(out))
    assert done.returncode == 0, done.stderr
    record = next(b for b in json.loads(out.read_text())["benchmarks"] if b["name"] == "numa")
    d, plan = record["derived"], first_node()
    assert record["status"] == "ok" and d["rows"] == plan.cpu_nodes and d["cols"] == plan.nodes
    assert len(record["raw"]["cells"]) == len(plan.cells)
    assert all(c["misplaced_chunks"] == 0 and c["location_chunks"] > 0 for c in record["raw"]["cells"])
    assert d["pages_checked"] is True and d["pages_misplaced"] == 0
    assert all(d["bandwidth_ratio"][r][d["cols"].index(i)] == 1.0 for r, i in enumerate(d["rows"]))
    shown = hpcbench("show", str(out))
    assert shown.returncode == 0 and "numa on" in shown.stdout and "pages: all where bound" in shown.stdout
    if len(plan.nodes) == 1:
        assert "one NUMA node" in shown.stdout
    tidy = hpcbench("show", str(out), "--format", "csv")
    assert tidy.returncode == 0 and "numa" in tidy.stdout and "local_bandwidth" in tidy.stdout


@pytest.mark.parametrize("args, words", [
    (["--numa-nodes", "4096"], "--numa-nodes must name NUMA nodes of this machine ("),
    (["--numa-nodes", "x"], "a NUMA node list is numbers and ranges"),
    (["--numa-size", "1000GiB"], "--numa-size must fit in the"),
    (["--numa-size", "100000GiB"], "--numa-size must fit in the"),
    (["--numa-size", "100"], "--numa-size must be a multiple of"),
    (["--numa-reps", "0"], "--numa-reps"),
    (["--numa-accesses", "10"], "--numa-accesses"),
])
def test_bad_input_is_one_line_and_exit_2(args, words, tmp_path):
    done = hpcbench("run", "numa", *args, cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert words in lines[0] and "Traceback" not in done.stderr
    assert not list(tmp_path.iterdir())          # nothing measured, nothing written


def test_the_chase_covers_the_first_chase_bytes():
    out = _core.numa_cell([0], 0, 1 << 20, 1, samples=2, accesses=1000, chase_bytes=64 * 1024)
    assert out[3].shape == (2,) and out[4] == 1 << 20
    with pytest.raises(_core.ParameterError, match="^chase_bytes must be between 128 and 1048576"):
        _core.numa_cell([0], 0, 1 << 20, 1, chase_bytes=2 << 20)
    with pytest.raises(_core.ParameterError, match="^chase_bytes must be a multiple of 64"):
        _core.numa_check(1, 1 << 20, 1, chase_bytes=1000)
    with pytest.raises(_core.ParameterError, match="^chase_bytes"):
        _core.numa_check(1, 1 << 20, 1, chase_bytes=-5)
