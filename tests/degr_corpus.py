"""The degradation-file corpus both readers must agree on, and the means to
run them (used by test_degr_grammar.py).

- tests/data/degr/good/*.degr: files the grammar accepts; good/expected.json
  gives the tables each loads to (a value is a JSON number or, where the exact
  double matters, a float.hex() string).
- tests/data/degr/bad/*.degr: one broken rule each; bad/expected.json gives
  the line the Python reader names (null: the whole file) and words of its
  message.
- generated(): files too large to check in (5,000 and 70,000 values on one
  line, a count of 1,000,000, the 64 MiB size limit and one byte over it).
- mutants(): seeded mutants of the good files (bytes and tokens flipped,
  inserted, deleted; lines repeated, dropped, swapped).

An outcome is None (rejected) or (ratDist, ratNC) as lists of the IEEE 754
bit patterns of the values, so "agree" means bit-identical doubles.

By hand (valgrind, other compilers): `PYTHONPATH=. python3
tests/degr_corpus.py DIR > LIST` writes the generated files and the mutants
into DIR and prints every corpus path, the list `degr_check --dump` reads on
stdin: `valgrind --error-exitcode=1 ./degr_check --dump < LIST`.
"""
from __future__ import annotations

import glob
import json
import os
import random
import re
import struct
import subprocess
import sys

from hpcbench.network._degr import MAX_COUNT, MAX_FILE_BYTES, format_degradation, read_degradation_file

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "degr")
Outcome = tuple | None


def bits(value: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def outcome(rat_dist, rat_nc) -> tuple:
    """Two tables (lists, or dicts keyed 1..n) as bit patterns."""
    def table(t):
        values = [t[k] for k in sorted(t)] if isinstance(t, dict) else t
        return [bits(float.fromhex(v) if isinstance(v, str) else float(v)) for v in values]
    return table(rat_dist), table(rat_nc)


def good_files() -> list:
    """[(path, expected outcome)] of the checked-in good files."""
    with open(os.path.join(DATA, "good", "expected.json")) as f:
        expected = json.load(f)
    return [(os.path.join(DATA, "good", name), outcome(e["ratDist"], e["ratNC"]))
            for name, e in sorted(expected.items())]


def bad_files() -> list:
    """[(path, line or None, words of the Python reader's message)]."""
    with open(os.path.join(DATA, "bad", "expected.json")) as f:
        expected = json.load(f)
    return [(os.path.join(DATA, "bad", name), e["line"], e["says"]) for name, e in sorted(expected.items())]


def checked_in() -> list:
    """Every checked-in corpus file (so that none lacks an expectation)."""
    return sorted(glob.glob(os.path.join(DATA, "*", "*.degr")))


def _write(folder: str, name: str, data: bytes) -> str:
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def generated(folder: str, seed: int = 11) -> list:
    """[(path, expected outcome or None)]: the large files, written into folder."""
    rng = random.Random(seed)
    header, tail = b"hpcbench-degradation 1\n", b"ratDist 2 1 1.5\nratNC 1 1\n"
    dist = {1: 1.0, **{d: rng.uniform(1, 8) for d in range(2, 5001)}}
    many = {1: 1.0, **{k: rng.lognormvariate(0, 3) for k in range(2, 70001)}}
    five_thousand = format_degradation(dist, {1: 1.0}).encode()
    files = [
        ("gen-5000-distances.degr", five_thousand, outcome(dist, [1.0])),
        ("gen-70000-values.degr", format_degradation({}, many, ["70,000 values"]).encode(), outcome([], many)),
        ("gen-comment-100KiB.degr", header + b"# " + b"x" * (100 << 10) + b"\n" + tail, outcome([1, 1.5], [1])),
        ("gen-count-1000000.degr", header + b"ratDist 1000000" + b" 1" * MAX_COUNT + b"\nratNC 0\n",
         outcome([1.0] * MAX_COUNT, [])),
        ("gen-count-1000001.degr", header + b"ratDist 1000001" + b" 1" * (MAX_COUNT + 1) + b"\nratNC 0\n", None),
        ("gen-5000-last-value-negative.degr", five_thousand.replace(b"\nratNC", b" -1\nratNC").replace(
            b"ratDist 5000", b"ratDist 5001"), None),
        ("gen-5000-count-lies.degr", five_thousand.replace(b"ratDist 5000", b"ratDist 5001"), None),
    ]
    body = header + tail + b"#"
    at_limit = body + b"x" * (MAX_FILE_BYTES - len(body) - 1) + b"\n"
    files += [("gen-at-size-limit.degr", at_limit, outcome([1, 1.5], [1])),
              ("gen-over-size-limit.degr", at_limit + b"\n", None),
              ("gen-over-size-limit-no-lf.degr", at_limit + b"#", None)]
    return [(_write(folder, name, data), expected) for name, data, expected in files]


_BYTES = b" \t\n\r\x00#+-.,_eE0159x\x0b\x7f\x80\xff"
_TOKENS = [b"1", b"1.0", b"0", b"01", b"00", b"-1", b"+1", b"2", b"12", b"1e0", b"1e999", b"1e-400", b"4.9e-324",
           b"2.2250738585072014e-308", b"1.7976931348623157e+308", b"1.7976931348623159e+308", b"0x1p0", b"inf",
           b"nan", b"Infinity", b"1.", b".5", b"1e", b"1e+", b"1_0", b"1,5", b"\xd9\xa1", b"1000000", b"1000001",
           b"ratDist", b"ratNC", b"hpcbench-degradation", b"#", b"0.99999999999999999", b""]
_SEPARATORS = [b" ", b"\t", b"  ", b" \t ", b"\t\t"]


def mutate_once(data: bytes, rng: random.Random, tokens: list = _TOKENS, separators: list = _SEPARATORS) -> bytes:
    """One random change of a text file's bytes, tokens or lines (tests/params_corpus.py uses it with the
    parameters file's own tokens)."""
    op = rng.randrange(10)
    if op < 3:                                          # bytes: replace, insert, delete
        at = rng.randrange(len(data) + 1)
        new = bytes([rng.choice(_BYTES) if rng.random() < 0.8 else rng.randrange(256)])
        return data[:at] + (b"" if op == 2 else new) + data[at + (op != 1):]
    if op < 7:                                          # tokens: replace, delete, repeat; separators
        parts = re.split(rb"([ \t\n]+)", data)
        words = range(0, len(parts), 2) if op < 6 else range(1, len(parts), 2)
        if not words:
            return data
        at = rng.choice(words)
        if op == 3:
            parts[at] = rng.choice(tokens)
        elif op == 4:
            parts[at] = b""
        elif op == 5:
            parts[at] += b" " + parts[at]
        else:                                           # another separator, keeping a line end
            parts[at] = rng.choice(separators) + (b"\n" if b"\n" in parts[at] else b"")
        return b"".join(parts)
    lines = data.split(b"\n")                           # lines: repeat, drop, swap
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if op == 7:
        lines.insert(i, lines[j])
    elif op == 8:
        del lines[i]
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def mutants(folder: str, count: int = 400, seed: int = 2024) -> list:
    """Paths of `count` mutants of the good files, written into folder."""
    rng = random.Random(seed)
    seeds = []
    for path, _ in good_files():
        with open(path, "rb") as f:
            seeds.append(f.read())
    paths = []
    for n in range(count):
        data = rng.choice(seeds)
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            data = mutate_once(data, rng)
        paths.append(_write(folder, f"mutant-{n:04d}.degr", data))
    return paths


def py_read(path: str) -> Outcome:
    """The Python reader's outcome."""
    try:
        return outcome(*read_degradation_file(path))
    except ValueError:
        return None


def c_read(program: list, paths: list, env: dict | None = None) -> tuple:
    """The C reader's outcomes (one process for all paths) and what else it
    printed first (the --locale line)."""
    out = subprocess.run(program, input="".join(p + "\n" for p in paths), capture_output=True, text=True,
                         check=True, env=env).stdout.splitlines()
    preamble = []
    while out and not out[0].startswith("load "):
        preamble.append(out.pop(0))
    results: list = []
    while out:
        rc = int(out.pop(0).split()[1])
        if rc != 0:
            results.append(rc)
            continue
        tables = []
        for name in ("ratDist", "ratNC"):
            fields = out.pop(0).split()
            assert fields[0] == name and int(fields[1]) == len(fields) - 2, fields[:2]
            tables.append([int(v, 16) for v in fields[2:]])
        results.append(tuple(tables))
    assert len(results) == len(paths), (len(results), len(paths))
    return results, preamble


def c_outcome(result) -> Outcome:
    """None for a rejection (any negative status), else the tables."""
    return None if isinstance(result, int) else result


if __name__ == "__main__":
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    every = checked_in() + [p for p, _ in generated(folder)] + mutants(folder)
    print("\n".join(every))
