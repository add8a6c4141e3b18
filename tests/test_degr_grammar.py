"""One grammar for the degradation file (docs/network.md, "The degradation
file"), two readers: the C library (libhpcbdegr, through degr_check.c
compiled here) and hpcbench.network.read_degradation_file. On every corpus
file (tests/data/degr, the generated large files, seeded mutants) both must
reject, or both accept with the same tables, bit for bit; and the writer
must write only what both read back exactly."""
from __future__ import annotations

import math
import os
import random
import shutil
import struct
import subprocess
import sys

import pytest
from degr_corpus import bad_files, c_outcome, c_read, checked_in, generated, good_files, mutants, outcome, py_read

from hpcbench.network import read_degradation_file, write_degradation_file
from hpcbench.network._degr import MAX_COUNT, MAX_FILE_BYTES

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CC = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler")
EFORMAT = -2


def build(out: str, *flags: str) -> str:
    """degr_check.c compiled with `flags` (the library's link flags, or its
    source and sanitizer options) into out."""
    subprocess.run([CC, "-std=c99", "-Wall", "-Wextra", "-Werror", os.path.join(HERE, "degr_check.c"), "-o", out,
                    *flags], check=True)
    return out


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    """The C reader, linked as applications link it."""
    flags = subprocess.run([sys.executable, "-m", "hpcbench", "config", "--cflags", "--libs"],
                           capture_output=True, text=True, check=True).stdout.split()
    return [build(str(tmp_path_factory.mktemp("grammar") / "degr_check"), *flags), "--dump"]


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    return generated(str(tmp_path_factory.mktemp("large")))


@pytest.fixture(scope="module")
def mutated(tmp_path_factory):
    return mutants(str(tmp_path_factory.mktemp("mutants")))


def test_every_corpus_file_has_an_expectation():
    named = {p for p, _ in good_files()} | {p for p, _, _ in bad_files()}
    assert set(checked_in()) == named
    assert len(good_files()) >= 10 and len(bad_files()) >= 80


def test_good_files_load_to_their_tables_in_both_readers(program):
    files = good_files()
    results, _ = c_read(program, [p for p, _ in files])
    for (path, expected), result in zip(files, results):
        name = os.path.basename(path)
        assert py_read(path) == expected, name
        assert result == expected, (name, result)


def test_bad_files_are_rejected_by_both_readers_with_the_line_named(program):
    files = bad_files()
    results, _ = c_read(program, [p for p, _, _ in files])
    for (path, line, says), result in zip(files, results):
        name = os.path.basename(path)
        assert result == EFORMAT, (name, result)
        with pytest.raises(ValueError) as caught:
            read_degradation_file(path)
        message = str(caught.value)
        assert "\n" not in message and message.startswith(f"{path}: "), message
        assert says in message, (name, message)
        if line is not None:
            assert message.startswith(f"{path}: line {line}: "), (name, message)


def test_large_generated_files(program, large):
    results, _ = c_read(program, [p for p, _ in large])
    for (path, expected), result in zip(large, results):
        name = os.path.basename(path)
        assert py_read(path) == expected, name
        assert c_outcome(result) == expected, name
        if expected is None:
            assert result == EFORMAT, name


def test_mutants_both_readers_agree(program, mutated):
    results, _ = c_read(program, mutated)
    disagree = [os.path.basename(p) for p, r in zip(mutated, results) if py_read(p) != c_outcome(r)]
    assert not disagree, disagree
    accepted = sum(r != EFORMAT for r in results)
    assert len(mutated) >= 300 and 30 <= accepted <= len(mutated) - 30, accepted   # both sides exercised
    assert all(r == EFORMAT or isinstance(r, tuple) for r in results)   # EFORMAT is the only error


def random_table(rng: random.Random, size: int) -> dict:
    """{1: 1.0, 2.., size: positive normal doubles}: everyday ratios, exact
    edges, and random bit patterns over the whole exponent range."""
    def value():
        kind = rng.randrange(4)
        if kind == 0:
            return rng.uniform(1, 10)
        if kind == 1:
            return rng.choice([sys.float_info.min, sys.float_info.max, math.nextafter(1.0, 2.0), 0.1, 1e16])
        return struct.unpack("<d", struct.pack("<Q", rng.randrange(1, 2047) << 52 | rng.getrandbits(52)))[0]
    return {k: 1.0 if k == 1 else value() for k in range(1, size + 1)}


def test_writer_round_trip_is_exact_in_both_readers(program, tmp_path):
    rng = random.Random(7)
    paths, expected = [], []
    for n in range(40):
        rat_dist, rat_nc = random_table(rng, rng.choice([0, 1, 2, 9, 300])), random_table(rng, rng.randrange(20))
        path = str(tmp_path / f"w{n}.degr")
        write_degradation_file(path, rat_dist, rat_nc, [f"table {n}", "\tall\tprintable ~!@#$%^&*()"])
        paths.append(path)
        expected.append(outcome(rat_dist, rat_nc))
    results, _ = c_read(program, paths)
    assert results == expected
    assert [py_read(p) for p in paths] == expected


@pytest.mark.parametrize("rat_dist, rat_nc, comments, says", [
    ({2: 1.0}, {}, [], "every value from 1 to 1"),
    ({1: 1.0, 3: 2.0}, {}, [], "every value from 1 to 2"),
    ({0: 1.0}, {}, [], "every value from 1 to 1"),
    ({"1": 1.0}, {}, [], "keys must be integers"),
    ({1.0: 1.0}, {}, [], "keys must be integers"),
    ({True: 1.0}, {}, [], "keys must be integers"),
    ({1: 1.0, 2: math.nan}, {}, [], "ratDist[2] must be finite"),
    ({}, {1: 1.0, 2: math.inf}, [], "ratNC[2] must be finite"),
    ({1: 1.0, 2: -1.5}, {}, [], "ratDist[2] must be finite and at least"),
    ({1: 1.0, 2: 10 ** 400}, {}, [], "ratDist[2] must be finite"),
    ({1: 1.0, 2: 0.0}, {}, [], "at least"),
    ({1: 1.0, 2: 5e-324}, {}, [], "a normal double"),
    ({1: 1.0, 2: "1.5"}, {}, [], "must be a number"),
    ({1: 1.0, 2: None}, {}, [], "must be a number"),
    ({1: 1.0, 2: True}, {}, [], "must be a number"),
    ({1: 2.0}, {}, [], "ratDist[1] is the reference and must be 1"),
    ({}, {1: 0.5, 2: 1.0}, [], "ratNC[1] is the reference"),
    ({}, {}, ["two\nlines"], "comment 1 must be one line of printable ASCII"),
    ({}, {}, ["ok", "cr\r"], "comment 2"),
    ({}, {}, ["caf\u00e9"], "printable ASCII"),
    ({}, {}, ["nul\x00"], "printable ASCII"),
    ({}, {}, [5], "comment 1"),
    ({}, {}, ["x" * MAX_FILE_BYTES], "more than the limit"),
])
def test_writer_refuses_what_the_grammar_forbids(tmp_path, rat_dist, rat_nc, comments, says):
    path = tmp_path / "refused.degr"
    with pytest.raises(ValueError) as caught:
        write_degradation_file(str(path), rat_dist, rat_nc, comments)
    assert says in str(caught.value) and "\n" not in str(caught.value)
    assert not path.exists()


def test_writer_refuses_a_count_over_the_bound(tmp_path):
    too_many = dict.fromkeys(range(1, MAX_COUNT + 2), 1.0)
    with pytest.raises(ValueError, match=f"at most {MAX_COUNT} values"):
        write_degradation_file(str(tmp_path / "big.degr"), too_many, {})


def test_writer_takes_numpy_numbers(tmp_path, program):
    np = pytest.importorskip("numpy")
    path = str(tmp_path / "np.degr")
    write_degradation_file(path, {np.int64(1): np.float64(1.0), np.int32(2): np.float32(1.5)}, {})
    assert py_read(path) == outcome([1.0, 1.5], []) == c_read(program, [path])[0][0]


def test_c_reader_ignores_a_decimal_comma_locale(program, tmp_path):
    """An application that calls setlocale(LC_ALL, "") in a locale whose
    decimal point is ',' reads the same doubles (strtod alone would stop at
    the '.')."""
    localedef = shutil.which("localedef")
    if localedef is None:
        pytest.skip("no localedef to make a de_DE locale")
    made = subprocess.run([localedef, "-i", "de_DE", "-f", "UTF-8", str(tmp_path / "de_DE.UTF-8")],
                          capture_output=True)
    if not (tmp_path / "de_DE.UTF-8").is_dir():
        pytest.skip(f"localedef could not make de_DE.UTF-8: {made.stderr.decode(errors='replace').strip()}")
    env = dict(os.environ, LOCPATH=str(tmp_path), LC_ALL="de_DE.UTF-8")
    paths = [p for p, _ in good_files()]
    results, preamble = c_read([*program, "--locale"], paths, env=env)
    assert preamble == ["decimal_point ,"]
    assert results == [expected for _, expected in good_files()]


@pytest.mark.slow       # builds the reader with ASan + UBSan first: 3 s here
def test_c_reader_is_clean_under_sanitizers(tmp_path, large, mutated):
    """The library's source built with AddressSanitizer and UBSan (leak
    checks on) over every corpus file: exit 0, the same answers."""
    exe = str(tmp_path / "degr_check_san")
    try:
        build(exe, "-g", "-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
              "-I", os.path.join(ROOT, "hpcbench", "include"), os.path.join(ROOT, "csrc", "degr", "degr.c"),
              os.path.join(ROOT, "csrc", "degr", "text.c"), "-lm")
    except subprocess.CalledProcessError:
        pytest.skip("this compiler cannot build with -fsanitize=address,undefined")
    paths = checked_in() + [p for p, _ in large] + mutated
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99",
               UBSAN_OPTIONS="halt_on_error=1:exitcode=98")
    env.pop("LD_PRELOAD", None)
    if subprocess.run([exe, "--dump"], input="", capture_output=True, env=env).returncode != 0:
        pytest.skip("sanitized programs do not run here (LeakSanitizer under ptrace?)")
    sanitized, _ = c_read([exe, "--dump"], paths, env=env)
    assert [c_outcome(r) for r in sanitized] == [py_read(p) for p in paths]


def test_missing_and_unreadable_files(program, tmp_path):
    """Not grammar but I/O: ENOFILE in C, a one-line ValueError in Python."""
    missing, folder = str(tmp_path / "missing.degr"), str(tmp_path)
    assert c_read(program, [missing, folder])[0] == [-1, -1]
    with pytest.raises(ValueError, match="not found"):
        read_degradation_file(missing)
    with pytest.raises(ValueError, match="is a directory"):
        read_degradation_file(folder)


def test_fifo_is_refused_by_both_readers(program, tmp_path):
    """A FIFO named as the degradation file: ENOFILE in C and one line in
    Python, at once (opened non-blocking and checked with fstat), not a
    wait for a writer that never comes."""
    fifo = str(tmp_path / "pipe.degr")
    os.mkfifo(fifo)
    assert c_read(program, [fifo])[0] == [-1]
    with pytest.raises(ValueError, match="is a FIFO, not a regular file"):
        read_degradation_file(fifo)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="address-space limits as Linux has them")
def test_c_reader_reports_running_out_of_memory(program, large):
    """A 64 MiB file with 40 MB of address space: HPCB_DEGR_ENOMEM, not a
    crash; a small file still loads in the same process."""
    import resource
    at_limit = next(p for p, _ in large if p.endswith("gen-at-size-limit.degr"))
    small = good_files()[0]

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (40 << 20, 40 << 20))
    out = subprocess.run(program, input=f"{at_limit}\n{small[0]}\n", capture_output=True, text=True, check=True,
                         preexec_fn=limit).stdout.splitlines()
    assert out[0] == "load -4" and out[1] == "load 0", out[:2]
