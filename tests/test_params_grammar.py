"""One grammar for the parameters file (docs/params.md), two readers: the C
library (libhpcbdegr's hpcb_load_params, through params_check.c compiled
here) and hpcbench.network.read_parameters_file. On every corpus file
(tests/data/params, the generated large files, seeded mutants and
truncations) both must reject naming the same line, or both accept with the
same parameters, bit for bit; the writer writes only what both read back."""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys

import pytest
from params_corpus import (
    bad_files,
    c_line,
    c_outcome,
    c_read,
    checked_in,
    dump_lines,
    generated,
    good_files,
    mutants,
    py_line,
    py_read,
)

from hpcbench.network import (
    Parameters,
    ParamLayer,
    ParamMemoryLevel,
    ParamRank,
    read_parameters_file,
    write_parameters_file,
)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CC = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler")
EFORMAT = -2
LIBRARY_SOURCES = [os.path.join(ROOT, "csrc", "degr", name)
                   for name in ("text.c", "degr.c", "params.c", "params_get.c")]


def build(out: str, *flags: str) -> str:
    subprocess.run([CC, "-std=c99", "-Wall", "-Wextra", "-Werror", os.path.join(HERE, "params_check.c"), "-o", out,
                    *flags], check=True)
    return out


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    """The C reader, linked as applications link it."""
    flags = subprocess.run([sys.executable, "-m", "hpcbench", "config", "--cflags", "--libs"],
                           capture_output=True, text=True, check=True).stdout.split()
    return [build(str(tmp_path_factory.mktemp("params") / "params_check"), *flags), "--dump"]


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    return generated(str(tmp_path_factory.mktemp("large")))


@pytest.fixture(scope="module")
def mutated(tmp_path_factory):
    return mutants(str(tmp_path_factory.mktemp("mutants")))


def test_every_corpus_file_has_an_expectation():
    named = {p for p, _ in good_files()} | {p for p, _, _ in bad_files()}
    assert set(checked_in()) == named
    assert len(good_files()) >= 15 and len(bad_files()) >= 70


def test_good_files_load_to_their_parameters_in_both_readers(program):
    files = good_files()
    results = c_read(program, [p for p, _ in files])
    for (path, expected), result in zip(files, results):
        name = os.path.basename(path)
        assert py_read(path) == expected, name
        assert result == (0, expected), name


def test_bad_files_are_rejected_by_both_readers_naming_the_same_line(program):
    files = bad_files()
    results = c_read(program, [p for p, _, _ in files])
    for (path, line, says), result in zip(files, results):
        name = os.path.basename(path)
        assert result[0] == EFORMAT, (name, result)
        assert len(result[1]) == 1 and result[1][0].startswith(f"message {path}: "), (name, result)
        with pytest.raises(ValueError) as caught:
            read_parameters_file(path)
        message = str(caught.value)
        assert "\n" not in message and message.startswith(f"{path}: "), message
        assert says in message, (name, message)
        assert py_line(path) == line == c_line(result, path), (name, line, result)


def test_large_generated_files(program, large):
    results = c_read(program, [p for p, _ in large])
    for (path, accepted), result in zip(large, results):
        name = os.path.basename(path)
        assert (py_read(path) is not None) == accepted, name
        assert c_outcome(result) == py_read(path), name
        if not accepted:
            assert result[0] == EFORMAT, name


def test_mutants_both_readers_agree(program, mutated):
    results = c_read(program, mutated)
    disagree = [os.path.basename(p) for p, r in zip(mutated, results) if py_read(p) != c_outcome(r)]
    assert not disagree, disagree
    lines = [os.path.basename(p) for p, r in zip(mutated, results) if r[0] != 0 and c_line(r, p) != py_line(p)]
    assert not lines, lines
    accepted = sum(r[0] == 0 for r in results)
    assert len(mutated) >= 500 and 50 <= accepted <= len(mutated) - 50, accepted   # both sides exercised
    assert all(r[0] in (0, EFORMAT) for r in results)


def random_parameters(rng: random.Random) -> Parameters:
    """Parameters of every kind with random sizes, groups and doubles."""
    def value():
        return rng.choice([rng.uniform(1e-7, 1e11), sys.float_info.min, sys.float_info.max, 0.1, rng.random() + 1e-9])

    def groups(n):
        return [sorted(rng.sample(range(1000), rng.randrange(1, 6))) for _ in range(n)]
    ranks = [ParamRank(rng.randrange(8), sorted(rng.sample(range(64), rng.randrange(1, 3))))
             for _ in range(rng.randrange(0, 6))]
    pairs = [(a, b) for a in range(len(ranks)) for b in range(a + 1, len(ranks))]
    return Parameters(
        caches={lv: rng.randrange(1, 10 ** 15) for lv in sorted(rng.sample(range(1, 6), rng.randrange(4)))},
        shared_caches={lv: groups(rng.randrange(4)) for lv in sorted(rng.sample(range(1, 5), rng.randrange(3)))},
        memory_reference=value(),
        memory=[ParamMemoryLevel(value(), value(), groups(2)) for _ in range(rng.randrange(3))],
        ranks=ranks, layers=[ParamLayer(value(), rng.choice([None, value()]), rng.sample(pairs, len(pairs) // 2))
                             for _ in range(rng.randrange(3) if pairs else 0)],
        rat_dist={k: 1.0 if k == 1 else value() for k in range(1, rng.randrange(6))},
        rat_nc={k: 1.0 if k == 1 else value() for k in range(1, rng.randrange(6))})


def test_writer_round_trip_is_exact_in_both_readers(program, tmp_path):
    rng = random.Random(27)
    paths, expected = [], []
    for n in range(40):
        p = random_parameters(rng)
        for layer in p.layers:
            layer.pairs.sort()
        path = str(tmp_path / f"w{n}.params")
        write_parameters_file(path, p, [f"parameters {n}", "\tall\tprintable ~!@#$%^&*()"])
        paths.append(path)
        expected.append(dump_lines(p))
        assert read_parameters_file(path) == p
    assert [c_outcome(r) for r in c_read(program, paths)] == expected


@pytest.mark.parametrize("params, says", [
    (Parameters(caches={0: 1}), "a cache level must be an integer in 1..1000000"),
    (Parameters(caches={1: 10 ** 15}), "L1 size must be an integer"),
    (Parameters(caches={1: 1.5}), "L1 size must be an integer"),
    (Parameters(shared_caches={1: [[1, 0]]}), "strictly ascending"),
    (Parameters(shared_caches={1: [[]]}), "non-empty"),
    (Parameters(memory=[ParamMemoryLevel(1.0, 1.0, [[0]])]), "need the memory reference bandwidth"),
    (Parameters(memory_reference=float("nan")), "must be finite"),
    (Parameters(memory_reference=0.0), "a normal double"),
    (Parameters(ranks=[ParamRank(-1, [0])]), "rank 0 node must be an integer"),
    (Parameters(ranks=[ParamRank(0, [0])], layers=[ParamLayer(1e-6, None, [(0, 1)])]), "layer 1: every pair"),
    (Parameters(layers=[ParamLayer(-1.0, None, [])]), "layer 1 latency must be finite"),
    (Parameters(rat_dist={1: 2.0}), "ratDist[1] is the reference"),
])
def test_writer_refuses_what_the_grammar_forbids(tmp_path, params, says):
    path = tmp_path / "refused.params"
    with pytest.raises(ValueError) as caught:
        write_parameters_file(str(path), params)
    assert says in str(caught.value) and "\n" not in str(caught.value)
    assert not path.exists()


def test_degradation_files_read_as_parameters(program):
    """Every good degradation file of tests/data/degr reads as parameters
    with its ratDist and ratNC and nothing else, in both readers."""
    from degr_corpus import good_files as good_degradation_files

    from hpcbench.network import read_degradation_file
    files = [p for p, _ in good_degradation_files()]
    results = c_read(program, files)
    for path, result in zip(files, results):
        rat_dist, rat_nc = read_degradation_file(path)
        expected = dump_lines(Parameters(rat_dist=rat_dist, rat_nc=rat_nc))
        assert py_read(path) == expected and c_outcome(result) == expected, path


def test_missing_unreadable_and_fifo(program, tmp_path):
    fifo = str(tmp_path / "pipe.params")
    os.mkfifo(fifo)
    missing, folder = str(tmp_path / "missing.params"), str(tmp_path)
    results = c_read(program, [missing, folder, fifo])
    assert [r[0] for r in results] == [-1, -1, -1]
    assert all(r[1][0].startswith("message ") and "not found or unreadable" in r[1][0] for r in results)
    for path, says in ((missing, "not found"), (folder, "is a directory"), (fifo, "is a FIFO")):
        with pytest.raises(ValueError, match=says):
            read_parameters_file(path)


@pytest.mark.slow       # builds the reader with ASan + UBSan first
def test_c_reader_is_clean_under_sanitizers(tmp_path, large, mutated):
    """The library's sources built with AddressSanitizer and UBSan (leak
    checks on) over every corpus file, generated file and mutant: exit 0,
    the same answers as the Python reader."""
    exe = str(tmp_path / "params_check_san")
    try:
        build(exe, "-g", "-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
              "-I", os.path.join(ROOT, "hpcbench", "include"), *LIBRARY_SOURCES, "-lm")
    except subprocess.CalledProcessError:
        pytest.skip("this compiler cannot build with -fsanitize=address,undefined")
    paths = checked_in() + [p for p, _ in large] + mutated
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99",
               UBSAN_OPTIONS="halt_on_error=1:exitcode=98")
    env.pop("LD_PRELOAD", None)
    if subprocess.run([exe, "--dump"], input="", capture_output=True, env=env).returncode != 0:
        pytest.skip("sanitized programs do not run here (LeakSanitizer under ptrace?)")
    sanitized = c_read([exe, "--dump"], paths, env=env)
    assert [c_outcome(r) for r in sanitized] == [py_read(p) for p in paths]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="address-space limits as Linux has them")
def test_c_reader_reports_running_out_of_memory(program, large):
    """The 100,000-rank file with 40 MB of address space: HPCB_PARAMS_ENOMEM
    with a message, not a crash; a small file still loads after it."""
    import resource
    big = next(p for p, _ in large if p.endswith("gen-at-size-limit.params"))
    small = good_files()[0][0]

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (40 << 20, 40 << 20))
    out = subprocess.run(program, input=f"{big}\n{small}\n", capture_output=True, text=True, check=True,
                         preexec_fn=limit).stdout.splitlines()
    assert out[0] == "load -4" and out[1].startswith("message ") and out[2] == "load 0", out[:3]
