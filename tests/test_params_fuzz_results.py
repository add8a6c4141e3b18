"""`hpcbench params` on the loader fuzzer's mutated results files
(test_fuzz_loader.mutants: 500 seeded mutants of the shipped examples):
every file the loader accepts gives a parameters file or one line and exit
status 2, never a traceback; what is written reads back in Python to what
Python makes of the records, and the C reader reads the same, bit for bit."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from params_corpus import c_outcome, c_read, dump_lines
from test_fuzz_loader import MUTANTS, cli, mutants

import hpcbench
from hpcbench.network import parameters_from_results, read_parameters_file

HERE = os.path.dirname(os.path.abspath(__file__))
CC = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")


@pytest.mark.slow      # 500 mutants, each loaded and, if accepted, exported and read back
@pytest.mark.skipif(CC is None, reason="no C compiler")
def test_params_of_mutated_results_files(tmp_path):
    flags = subprocess.run([sys.executable, "-m", "hpcbench", "config", "--cflags", "--libs"],
                           capture_output=True, text=True, check=True).stdout.split()
    exe = str(tmp_path / "params_check")
    subprocess.run([CC, "-std=c99", os.path.join(HERE, "params_check.c"), "-o", exe, *flags], check=True)
    failures, written, expected = [], [], []
    source = str(tmp_path / "mutant.json")
    for name, n, text in mutants():
        with open(source, "w") as f:
            f.write(text)
        try:
            results = hpcbench.load(source)
        except hpcbench.ResultsError:
            continue
        out = str(tmp_path / f"m{n}.params")
        status, _, err = cli("params", source, "-o", out)
        if status == 2 and len(err.strip().splitlines()) == 1 and "internal error" not in err:
            continue
        if status != 0:
            failures.append(f"{name} #{n}: exit {status}: {err.strip()}")
            continue
        p = parameters_from_results(results)[0]
        if read_parameters_file(out) != p:
            failures.append(f"{name} #{n}: what params wrote reads back differently")
        written.append(out)
        expected.append(dump_lines(p))
    assert not failures, f"{len(failures)} of {MUTANTS} mutants:\n" + "\n".join(failures[:40])
    assert len(written) > 50, len(written)
    assert [c_outcome(r) for r in c_read([exe, "--dump"], written)] == expected
