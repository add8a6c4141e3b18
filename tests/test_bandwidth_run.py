"""The bandwidth benchmark on this machine, structure only (never a
measured figure): the C kernel's byte counts against the hand-computed
ones, its rules, a short run through the command line, and bad input as
one line and exit status 2 before anything is measured."""
import io
import json
import math
from contextlib import redirect_stderr, redirect_stdout

import pytest

import hpcbench
from hpcbench import _core, _registry
from hpcbench.bandwidth import KERNELS, data_volume, run_kernel
from hpcbench.bandwidth._kernels import ISAS, supported_isas
from hpcbench.cli import main

KIB = 1 << 10


def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", list(KERNELS))
def test_the_kernel_counts_whole_passes_of_its_arrays(name):
    k = KERNELS[name]
    isa = supported_isas()[-1]
    run = run_kernel(k, [0], [16 * KIB, 24 * KIB + 100], isa, min_bytes=100 * KIB, samples=2)
    for size, arr, volume in zip([16 * KIB, 24 * KIB + 100], run.array_bytes, run.bytes_per_sample):
        assert arr == size // k.streams // 256 * 256        # whole 256-byte blocks per array
        passes = math.ceil(100 * KIB / data_volume(k, arr))
        assert volume == data_volume(k, arr, passes)
    assert run.isa == isa and run.start_ns.shape == (2, 1, 2)
    assert (run.end_ns > run.start_ns).all()


def test_every_isa_this_cpu_has_runs_and_auto_is_the_widest():
    for isa in supported_isas():
        assert run_kernel(KERNELS["copy"], [0], [8 * KIB], isa, min_bytes=KIB, samples=1).isa == isa
    _, _, _, _, used = _core.bandwidth_team([0], _core.BW_LOAD, [4 * KIB], min_bytes=KIB)
    assert used == ISAS[supported_isas()[-1]]


@pytest.mark.parametrize("kwargs, rule", [
    (dict(kernel=_core.BW_LOAD, nontemporal=True), "nontemporal must be 0 for BW_LOAD"),
    (dict(kernel=_core.BW_COPY, nontemporal=True, isa=_core.ISA_SCALAR), "nontemporal must be 0 with ISA_SCALAR"),
    (dict(kernel=_core.BW_TRIAD, sizes=[512]), "sizes must each be 1024.."),
    (dict(kernel=99), "kernel must be BW_LOAD"),
    (dict(kernel=_core.BW_COPY, samples=0), "samples must be between 1 and"),
])
def test_the_c_rules(kwargs, rule):
    args = {"sizes": [64 * KIB], **kwargs}
    with pytest.raises(_core.ParameterError, match=rule):
        _core.bandwidth_check(args.pop("kernel"), args.pop("sizes"), **args)


def test_a_short_run_has_every_kernel_level_and_isa(tmp_path):
    out = tmp_path / "bw.json"
    status, text, err = cli("run", "bandwidth", "-q", "--bw-kernels", "load,copy_nt", "--bw-sizes", "32KiB,1MiB",
                            "--bw-isas", "auto", "--bw-samples", "2", "--bw-min-bytes", "1MiB", "-o", str(out))
    assert status == 0, err
    rec = hpcbench.load(str(out)).get("bandwidth")
    p, results = rec.parameters, rec.derived.results
    team = len(p.team) > 1
    assert [lv.label for lv in p.levels] == ["32 KiB", "1 MiB"] and p.kernels == ["load", "copy_nt"]
    assert len(results) == len(rec.raw.runs) == 2 * (2 + team)
    assert {(r.kernel, r.level, r.cores) for r in results} >= {("load", "32 KiB", 1), ("copy_nt", "1 MiB", 1)}
    assert all(r.isa == supported_isas()[-1] and r.bandwidth > 0 for r in results)
    assert all(r.write_allocate == 0 for r in results)       # load stores nothing; copy_nt skips it
    shown = cli("show", str(out))[1]
    assert "load (" in shown and "copy_nt (" in shown and "32 KiB" in shown
    rows = json.loads(cli("show", str(out), "--format", "json")[1])
    assert any(r["quantity"].startswith("bandwidth load") for r in rows)
    assert _registry.get("bandwidth").headlines(rec)


def test_the_unnamed_run_is_the_short_subset():
    bench = _registry.get("bandwidth")
    o = bench.unnamed_options(bench.options_type())
    assert o.kernels == ["load", "store", "copy", "triad"] and o.isas == ["auto"]


@pytest.mark.parametrize("argv, message", [
    (["--bw-kernels", "load,sum"], "--bw-kernels must name kernels of load, store"),
    (["--bw-isas", "avx3"], "--bw-isas must name instruction sets of"),
    (["--bw-sizes", "100000GiB"], "--bw-sizes must fit in the memory available"),
    (["--bw-sizes", "512"], "--bw-sizes must each be"),
    (["--bw-sizes", "1x"], "a size is a number"),
    (["--bw-cores", "0,0"], "--bw-cores must be distinct PUs"),
    (["--bw-cores", "100000"], "--bw-cores must be distinct PUs"),
    (["--bw-samples", "0"], "--bw-samples must be in"),
    (["--bw-kernels", ","], "expected names separated by commas"),
    (["--bw-kernels", "store_nt", "--bw-isas", "scalar"], "--bw-kernels must each have a loop in the instruction sets"),
])
def test_bad_input_is_one_line_and_exit_2(monkeypatch, argv, message):
    monkeypatch.setattr(_core, "bandwidth_team", lambda *a, **k: pytest.fail("measured"))
    status, _, err = cli("run", "bandwidth", *argv)
    assert status == 2 and err.count("\n") == 1 and message in err, err


def test_an_isa_the_cpu_lacks_names_what_it_has(monkeypatch):
    monkeypatch.setattr(_core, "load_supported", lambda code: code in (_core.ISA_SCALAR, _core.ISA_SSE2))
    status, _, err = cli("run", "bandwidth", "--bw-isas", "avx2")
    assert status == 2 and "--bw-isas must be instruction sets this CPU has (sse2, scalar), got avx2" in err, err
