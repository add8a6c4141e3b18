"""The parameters-file corpus both readers must agree on, and the means to
run them (used by test_params_grammar.py and test_params_capi.py).

- tests/data/params/good/*.params: files the grammar accepts (four are the
  shipped examples' exports); good/expected.json gives each one's dump (the
  lines `params_check --dump` prints, doubles as IEEE 754 bit patterns).
- tests/data/params/bad/*.params: one broken rule each; bad/expected.json
  gives the line both readers name (null: the whole file) and the start of
  the Python reader's message.
- generated(): files too large to check in (100,000 rank lines, a group of
  1,000,001 PUs, a count beyond what the line holds, the 64 MiB limit).
- mutants(): seeded mutants of the good files (bytes and tokens flipped,
  inserted, deleted; lines repeated, dropped, swapped).

An outcome is None (rejected) or the dump lines, so "agree" means the same
parameters with bit-identical doubles.

By hand (valgrind, other compilers): `PYTHONPATH=. python3
tests/params_corpus.py DIR > LIST`, then `valgrind --error-exitcode=1
./params_check --dump < LIST`.
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

from degr_corpus import mutate_once

from hpcbench.network._params import MAX_FILE_BYTES, Parameters, read_parameters_file

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "params")
Outcome = list | None


def _hex(value: float) -> str:
    return f"{struct.unpack('<Q', struct.pack('<d', value))[0]:016x}"


def _groups(groups: list) -> str:
    return "".join(" " + ",".join(str(m) for m in g) for g in groups)


def dump_lines(p: Parameters) -> list[str]:
    """What params_check --dump prints for a file that loads to p."""
    out = [f"caches {len(p.caches)}", *(f"cache {k} {v}" for k, v in sorted(p.caches.items())),
           f"shared {len(p.shared_caches)}",
           *(f"shared {k} {len(g)}{_groups(g)}" for k, g in sorted(p.shared_caches.items())),
           "memory " + ("-" if p.memory_reference is None else _hex(p.memory_reference)),
           f"overheads {len(p.memory)}",
           *(f"overhead {_hex(m.bandwidth)} {_hex(m.relative)} {len(m.groups)}{_groups(m.groups)}" for m in p.memory),
           f"ranks {len(p.ranks)}", *(f"rank {r.node}{_groups([r.pus])}" for r in p.ranks),
           f"layers {len(p.layers)}"]
    for layer in p.layers:
        bandwidth = "-" if layer.bandwidth is None else _hex(layer.bandwidth)
        out.append(f"layer {_hex(layer.latency)} {bandwidth} {len(layer.pairs)}{_groups(layer.pairs)}")
    out.append(" ".join([f"ratDist {len(p.rat_dist)}", *(_hex(p.rat_dist[k]) for k in sorted(p.rat_dist))]))
    out.append(" ".join([f"ratNC {len(p.rat_nc)}", *(_hex(p.rat_nc[k]) for k in sorted(p.rat_nc))]))
    return out


def good_files() -> list:
    """[(path, expected dump lines)] of the checked-in good files."""
    with open(os.path.join(DATA, "good", "expected.json")) as f:
        expected = json.load(f)
    return [(os.path.join(DATA, "good", name), lines) for name, lines in sorted(expected.items())]


def bad_files() -> list:
    """[(path, line or None, start of the Python reader's message)]."""
    with open(os.path.join(DATA, "bad", "expected.json")) as f:
        expected = json.load(f)
    return [(os.path.join(DATA, "bad", name), e["line"], e["says"]) for name, e in sorted(expected.items())]


def checked_in() -> list:
    return sorted(glob.glob(os.path.join(DATA, "*", "*.params")))


def _write(folder: str, name: str, data: bytes) -> str:
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def generated(folder: str) -> list:
    """[(path, accepted?)]: the large files, written into folder."""
    head, tail = b"hpcbench-parameters 1\n", b"ratDist 0\nratNC 0\nend\n"
    ranks = b"".join(b"rank %d %d %d\n" % (r, r // 64, r % 64) for r in range(100_000))
    pairs = b" ".join(b"%d,%d" % (r, r + 1) for r in range(99_999))
    group = b",".join(b"%d" % i for i in range(1_000_001))
    files = [
        ("gen-100000-ranks.params", head + ranks + b"layer 1e-6 1e9 99999 " + pairs + b"\n" + tail, True),
        ("gen-group-1000001-pus.params", head + b"shared-cache 1 1 " + group + b"\n" + tail, True),
        ("gen-group-over-bound.params", head + b"shared-cache 1 1 " + group + b",1000001\n" + tail, False),
        ("gen-count-beyond-line.params", head + b"shared-cache 1 1000000 0\n" + tail, False),
        ("gen-pairs-count-beyond-line.params", head + b"rank 0 0 0\nrank 1 0 1\nlayer 1 1 999999 0,1\n" + tail, False),
    ]
    body = head + tail + b"#"
    at_limit = body + b"x" * (MAX_FILE_BYTES - len(body) - 1) + b"\n"
    files += [("gen-at-size-limit.params", at_limit, True), ("gen-over-size-limit.params", at_limit + b"\n", False)]
    return [(_write(folder, name, data), accepted) for name, data, accepted in files]


_TOKENS = [b"1", b"1.0", b"0", b"01", b"-1", b"+1", b"2", b"1e999", b"1e-400", b"4.9e-324", b"inf", b"nan", b"1.",
           b".5", b"1e", b"-", b"0,1", b"1,0", b"0,0", b"0,1,2", b",", b"0,", b",0", b"1000000", b"1000001",
           b"999999999999999", b"1000000000000000", b"cache", b"shared-cache", b"memory", b"memory-overhead", b"rank",
           b"layer", b"ratDist", b"ratNC", b"end", b"hpcbench-parameters", b"hpcbench-degradation", b"#", b""]
_SEPARATORS = [b" ", b"\t", b"  ", b" \t "]


def mutants(folder: str, count: int = 600, seed: int = 2027) -> list:
    """Paths of `count` mutants of the good files (and truncations), written into folder."""
    rng = random.Random(seed)
    seeds = []
    for path, _ in good_files():
        with open(path, "rb") as f:
            seeds.append(f.read())
    paths = []
    for n in range(count):
        data = rng.choice(seeds)
        if n % 10 == 0:                                 # truncated anywhere
            data = data[:rng.randrange(len(data) + 1)]
        else:
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                data = mutate_once(data, rng, _TOKENS, _SEPARATORS)
        paths.append(_write(folder, f"mutant-{n:04d}.params", data))
    return paths


def py_read(path: str) -> Outcome:
    try:
        return dump_lines(read_parameters_file(path))
    except ValueError:
        return None


def py_line(path: str) -> int | None:
    """The line the Python reader names, None if it names none or accepts."""
    try:
        read_parameters_file(path)
    except ValueError as e:
        m = re.match(re.escape(path) + r": line (\d+): ", str(e))
        return int(m.group(1)) if m else None
    return None


def c_read(program: list, paths: list, env: dict | None = None) -> list:
    """The C reader's outcome per path: (status, dump lines or the message)."""
    out = subprocess.run(program, input="".join(p + "\n" for p in paths), capture_output=True, text=True,
                         check=True, env=env).stdout.splitlines()
    results: list = []
    for line in out:
        if line.startswith("load "):
            results.append((int(line.split()[1]), []))
        else:
            results[-1][1].append(line)
    assert len(results) == len(paths), (len(results), len(paths))
    return results


def c_outcome(result: tuple) -> Outcome:
    return result[1] if result[0] == 0 else None


def c_line(result: tuple, path: str) -> int | None:
    """The line the C reader's message names."""
    m = re.match(r"message " + re.escape(path) + r": line (\d+): ", result[1][0]) if result[0] != 0 else None
    return int(m.group(1)) if m else None


if __name__ == "__main__":
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    print("\n".join(checked_in() + [p for p, _ in generated(folder)] + mutants(folder)))
