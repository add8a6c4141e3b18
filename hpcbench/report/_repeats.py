"""One finding, said once. A record's warnings were written when it ran
and its disagreements are worded when the report reads it; an older file
(or another version) words the same finding differently ("L2: measured
2359296 bytes, hwloc reports 1048576" beside "L2: measured 2.25 MiB, hwloc
reports 1 MiB"). Two lines say the same when their words match and their
numbers match once each is read with its unit (sizes in bytes)."""
from __future__ import annotations

import math
import re

#: Size units and their bytes: a number followed by one is read as bytes.
_SIZES = {"b": 1, "bytes": 1, "byte": 1, "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40,
          "kb": 1e3, "mb": 1e6, "gb": 1e9}
_TOKEN = re.compile(r"(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*([A-Za-z]+)?|([A-Za-z]+)")


def gist(line: str) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """(the words, the numbers) of a line, sizes read as bytes; unit words dropped."""
    words: list[str] = []
    numbers: list[float] = []
    for number, unit, word in _TOKEN.findall(line):
        if word:
            words.append(word.lower())
            continue
        scale = _SIZES.get(unit.lower(), 1) if unit else 1
        numbers.append(float(number) * scale)
        if unit and unit.lower() not in _SIZES:
            words.append(unit.lower())
    return tuple(words), tuple(numbers)


def same_finding(a: str, b: str) -> bool:
    """Whether two lines say the same: the same words, and numbers equal to
    the precision the shorter of them was printed with (3 significant digits)."""
    (words_a, numbers_a), (words_b, numbers_b) = gist(a), gist(b)
    if words_a != words_b or len(numbers_a) != len(numbers_b):
        return False
    return all(math.isclose(x, y, rel_tol=5e-3, abs_tol=1e-12) for x, y in zip(numbers_a, numbers_b))


def new_lines(lines: list[str], said: list[str]) -> list[str]:
    """The lines not already said (in `said`), each once."""
    out: list[str] = []
    for line in lines:
        if not any(same_finding(line, other) for other in [*said, *out]):
            out.append(line)
    return out
