"""The parameters file: every parameter hpcbench measured, as plain text for
the C and Fortran API (libhpcbdegr, `hpcb_load_params`) and any other reader
(Servet's API for autotuners).

    hpcbench-parameters 1
    # comment lines start with '#'
    cache 1 49152                               <- level, bytes
    shared-cache 2 2 0,1 2,3                    <- level, count, groups of PUs
    memory 6.28e10                              <- bytes/s of one core alone
    memory-overhead 2.7e10 0.43 1 0,1           <- bytes/s per core, ratio, count, groups
    rank 0 0 0                                  <- rank, node, its PUs
    rank 1 0 1
    layer 4.69e-06 1.289e10 1 0,1               <- seconds, bytes/s (or -), count, rank pairs
    ratDist 0
    ratNC 2 1.0 1.8
    end

The grammar is docs/params.md; this reader and the C one
(csrc/degr/params.c) implement it exactly, and tests/test_params_grammar.py
runs both over one corpus. A degradation file (`hpcbench degr`) reads as
parameters holding only ratDist and ratNC. Written by `python -m hpcbench
params RESULTS.json` (network/_params_export.py).
"""
from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .._files import read_file, write_file
from ._degr import (
    _COMMENT_TEXT,
    _COUNT,
    _FIELD,
    MAX_COUNT,
    MAX_FILE_BYTES,
    _brief,
    _count,
    _lines,
    _table,
    _table_line,
    _value,
)

MAGIC = "hpcbench-parameters"
VERSION = 1
HEADER = f"{MAGIC} {VERSION}"
DEGRADATION_HEADER = "hpcbench-degradation 1"
DEFAULT_NAME = "hpcbench-results.params"
#: The line kinds, in the order a file has them (the header first).
KINDS = (MAGIC, "cache", "shared-cache", "memory", "memory-overhead", "rank", "layer", "ratDist", "ratNC", "end")
#: The kinds that may have more than one line.
REPEATED = frozenset({"cache", "shared-cache", "memory-overhead", "rank", "layer"})
#: The largest cache size (bytes): 15 digits.
MAX_SIZE = 10 ** 15 - 1
_SIZE = re.compile(r"[1-9][0-9]{0,14}")
_ORDER = "header, cache, shared-cache, memory, memory-overhead, rank, layer, ratDist, ratNC, end"

Groups = list[list[int]]


@dataclass
class ParamMemoryLevel:
    """One memory-access overhead level: bandwidth per core (bytes/s) with
    both cores of a pair copying, its ratio to one core alone, the groups of
    cores whose pairs lose this much."""
    bandwidth: float
    relative: float
    groups: Groups


@dataclass
class ParamRank:
    """Where one rank of the comm run ran: its node's index in the job and its PUs."""
    node: int
    pus: list[int]


@dataclass
class ParamLayer:
    """One communication layer: one-way latency (s) at the probe size, the
    peak bandwidth of its sweep (bytes/s; None if not measured), and its
    pairs of ranks (low, high)."""
    latency: float
    bandwidth: float | None
    pairs: list[tuple[int, int]]


@dataclass
class Parameters:
    """Everything a parameters file holds; an empty table or list means the
    benchmark did not run (or the file is a degradation file)."""
    caches: dict[int, int] = field(default_factory=dict)                 #: level -> bytes
    shared_caches: dict[int, Groups] = field(default_factory=dict)       #: level -> groups of PUs
    memory_reference: float | None = None                                #: bytes/s, one core alone
    memory: list[ParamMemoryLevel] = field(default_factory=list)
    ranks: list[ParamRank] = field(default_factory=list)             #: ranks[r]: rank r of the comm run
    layers: list[ParamLayer] = field(default_factory=list)
    rat_dist: dict[int, float] = field(default_factory=dict)
    rat_nc: dict[int, float] = field(default_factory=dict)


# ---------------------------------------------------------------- reading

def _index(text: str, where: str, what: str, least: int = 0) -> int:
    if not _COUNT.fullmatch(text) or int(text) > MAX_COUNT or int(text) < least:
        raise ValueError(f"{where}: {what} must be digits without sign or leading zero, {least}..{MAX_COUNT}, "
                         f"got {_brief(text)}")
    return int(text)


def _group(text: str, where: str) -> list[int]:
    """'a,b,c': indexes, strictly ascending."""
    members = [_index(part, where, "a PU or rank in a group (a,b,c)") for part in text.split(",")]
    if any(b <= a for a, b in zip(members, members[1:])):
        raise ValueError(f"{where}: the members of a group must be strictly ascending, got {_brief(text)}")
    return members


def _groups(fields: list[str], where: str, name: str) -> Groups:
    """COUNT GROUP.. to the end of the line."""
    if not fields:
        raise ValueError(f"{where}: {name} has no group count")
    count = _count(name, fields[0], where)
    if len(fields) - 1 != count:
        raise ValueError(f"{where}: {name} group count {count} does not match the {len(fields) - 1} group(s) "
                         "that follow")
    return [_group(text, where) for text in fields[1:]]


def _arity(fields: list[str], n: int, where: str, form: str) -> None:
    if len(fields) - 1 != n:
        raise ValueError(f"{where}: expected '{form}', got {len(fields) - 1} field(s) after {fields[0]}")


class _Reader:
    """The state of one file's reading: what was read and the last line's kind."""

    def __init__(self, path: str):
        self.path, self.p = path, Parameters()
        self.last = -1              # index in KINDS of the last line's kind; -1 before the header
        self.degradation = False

    def header(self, fields: list[str], where: str) -> None:
        if fields in ([MAGIC, str(VERSION)], DEGRADATION_HEADER.split()):
            self.degradation = fields[0] != MAGIC
            self.last = 0
            return
        if fields[0] == MAGIC and len(fields) == 2 and _COUNT.fullmatch(fields[1]):
            raise ValueError(f"{where}: version {fields[1]} is not supported (this hpcbench reads version {VERSION})")
        raise ValueError(f"{where}: expected the header '{HEADER}' (or '{DEGRADATION_HEADER}'), got "
                         f"{_brief(' '.join(fields))}")

    def order(self, name: str, where: str) -> int:
        """KINDS' index of a line that may come next, or ValueError saying why not."""
        if name not in KINDS[1:] and name != MAGIC and name != "hpcbench-degradation":
            raise ValueError(f"{where}: {_brief(name)} is not a line of the parameters grammar ({_ORDER})")
        last = KINDS[self.last]
        if last == "end" or (self.degradation and last == "ratNC"):
            raise ValueError(f"{where}: nothing but comments may follow the {last} line, got {_brief(name)}")
        if name in (MAGIC, "hpcbench-degradation"):
            raise ValueError(f"{where}: a second header line")
        k = KINDS.index(name)
        if self.degradation and name not in ("ratDist", "ratNC"):
            raise ValueError(f"{where}: a degradation file holds only ratDist and ratNC, got {name}")
        if k == self.last and name not in REPEATED:
            raise ValueError(f"{where}: a second {name} line")
        if k < self.last:
            raise ValueError(f"{where}: {name} after {last} (the order is {_ORDER})")
        if name == "memory-overhead" and self.last < KINDS.index("memory"):
            raise ValueError(f"{where}: memory-overhead before the memory line (its reference bandwidth)")
        expected = "ratDist" if k > KINDS.index("ratDist") > self.last else "ratNC" if (
            k > KINDS.index("ratNC") > self.last) else None
        if expected:
            raise ValueError(f"{where}: {name} before {expected} (the order is {_ORDER})")
        return k

    def line(self, fields: list[str], where: str) -> None:
        if self.last < 0:
            self.header(fields, where)
            return
        k = self.order(fields[0], where)
        self.last = k
        getattr(self, "_" + KINDS[k].replace("-", "_").lower())(fields, where)

    def _cache(self, fields: list[str], where: str) -> None:
        _arity(fields, 2, where, "cache LEVEL SIZE")
        level = self._level(fields[1], self.p.caches, where)
        if not _SIZE.fullmatch(fields[2]):
            raise ValueError(f"{where}: a cache size is 1 to 15 digits (bytes) without a leading zero, got "
                             f"{_brief(fields[2])}")
        self.p.caches[level] = int(fields[2])

    def _shared_cache(self, fields: list[str], where: str) -> None:
        if len(fields) < 2:
            raise ValueError(f"{where}: expected 'shared-cache LEVEL COUNT GROUP..'")
        level = self._level(fields[1], self.p.shared_caches, where)
        self.p.shared_caches[level] = _groups(fields[2:], where, "shared-cache")

    @staticmethod
    def _level(text: str, before: dict, where: str) -> int:
        level = _index(text, where, "a level", least=1)
        if before and level <= max(before):
            raise ValueError(f"{where}: level {level} after level {max(before)} (levels ascend)")
        return level

    def _memory(self, fields: list[str], where: str) -> None:
        _arity(fields, 1, where, "memory REFERENCE")
        self.p.memory_reference = _value(fields[1], f"{where}: the memory reference bandwidth")

    def _memory_overhead(self, fields: list[str], where: str) -> None:
        if len(fields) < 4:
            raise ValueError(f"{where}: expected 'memory-overhead BANDWIDTH RELATIVE COUNT GROUP..'")
        bandwidth = _value(fields[1], f"{where}: the bandwidth")
        relative = _value(fields[2], f"{where}: the relative bandwidth")
        self.p.memory.append(ParamMemoryLevel(bandwidth, relative, _groups(fields[3:], where, "memory-overhead")))

    def _rank(self, fields: list[str], where: str) -> None:
        _arity(fields, 3, where, "rank RANK NODE GROUP")
        rank = _index(fields[1], where, "a rank")
        if rank != len(self.p.ranks):
            raise ValueError(f"{where}: rank {rank} where rank {len(self.p.ranks)} comes next (ranks go 0, 1, 2, ...)")
        node = _index(fields[2], where, "a node")
        self.p.ranks.append(ParamRank(node, _group(fields[3], where)))

    def _layer(self, fields: list[str], where: str) -> None:
        if len(fields) < 4:
            raise ValueError(f"{where}: expected 'layer LATENCY BANDWIDTH|- COUNT PAIR..'")
        latency = _value(fields[1], f"{where}: the latency")
        bandwidth = None if fields[2] == "-" else _value(fields[2], f"{where}: the bandwidth")
        pairs = _groups(fields[3:], where, "layer")
        for pair in pairs:
            if len(pair) != 2:
                raise ValueError(f"{where}: a layer pair is two ranks 'a,b', got {len(pair)} rank(s)")
            if pair[1] >= len(self.p.ranks):
                raise ValueError(f"{where}: rank {pair[1]} of a layer pair has no rank line "
                                 f"({len(self.p.ranks)} rank(s) before it)")
        self.p.layers.append(ParamLayer(latency, bandwidth, [(a, b) for a, b in pairs]))

    def _ratdist(self, fields: list[str], where: str) -> None:
        self.p.rat_dist = _table(fields, where)

    def _ratnc(self, fields: list[str], where: str) -> None:
        self.p.rat_nc = _table(fields, where)

    def _end(self, fields: list[str], where: str) -> None:
        _arity(fields, 0, where, "end")

    def finish(self, lines: int) -> Parameters:
        final = KINDS.index("ratNC" if self.degradation else "end")
        if self.last != final:
            missing = "header" if self.last < 0 else \
                f"{KINDS[max(self.last + 1, KINDS.index('ratDist'))]} line"
            raise ValueError(f"{self.path}: line {lines}: the file ends before the {missing} (truncated?)")
        return self.p


def parse_parameters(data: bytes, path: str = "<text>") -> Parameters:
    """The Parameters of a file's bytes; ValueError with one line naming the
    path, the line and the broken rule."""
    lines = _lines(path, data, HEADER, "a parameters file")
    reader = _Reader(path)
    for number, line in enumerate(lines, 1):
        fields = _FIELD.findall(line)
        if fields and not fields[0].startswith("#"):
            reader.line(fields, f"{path}: line {number}")
    return reader.finish(len(lines))


def read_parameters_file(path: str) -> Parameters:
    """Read a parameters file (or a degradation file); ValueError with one
    line naming the path, the line and the broken rule."""
    return parse_parameters(read_file(path, "parameters file", MAX_FILE_BYTES), path)


# ---------------------------------------------------------------- writing

def _int(value: object, what: str, least: int, most: int) -> str:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or not least <= int(value) <= most:
        raise ValueError(f"{what} must be an integer in {least}..{most}, got {_brief(value)}")
    return str(int(value))


def _real(value: object, what: str) -> str:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ValueError(f"{what} must be a number, got {_brief(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not (math.isfinite(number) and number >= 2.2250738585072014e-308):
        raise ValueError(f"{what} must be finite and at least 2.2250738585072014e-308 (a normal double), "
                         f"got {number!r}")
    return repr(number)


def _group_text(group: Sequence[int], what: str) -> str:
    members = [_int(m, f"{what}'s members", 0, MAX_COUNT) for m in group]
    if not members or any(int(b) <= int(a) for a, b in zip(members, members[1:])):
        raise ValueError(f"{what} must be a non-empty, strictly ascending list of indexes, got {_brief(list(group))}")
    return ",".join(members)


def _groups_text(groups: Sequence[Sequence[int]], what: str) -> str:
    return " ".join([str(len(groups))] + [_group_text(g, f"{what} group {i}") for i, g in enumerate(groups, 1)])


def _body_lines(p: Parameters) -> list[str]:
    """Every line of p after the header and comments, checked."""
    lines = [f"cache {_int(k, 'a cache level', 1, MAX_COUNT)} {_int(v, f'L{k} size', 1, MAX_SIZE)}"
             for k, v in sorted(p.caches.items())]
    lines += [f"shared-cache {_int(k, 'a shared-cache level', 1, MAX_COUNT)} {_groups_text(g, f'shared L{k}')}"
              for k, g in sorted(p.shared_caches.items())]
    if p.memory and p.memory_reference is None:
        raise ValueError("memory-overhead levels need the memory reference bandwidth")
    if p.memory_reference is not None:
        lines.append(f"memory {_real(p.memory_reference, 'the memory reference bandwidth')}")
    lines += [f"memory-overhead {_real(m.bandwidth, f'memory level {i} bandwidth')} "
              f"{_real(m.relative, f'memory level {i} relative')} {_groups_text(m.groups, f'memory level {i}')}"
              for i, m in enumerate(p.memory, 1)]
    lines += [f"rank {r} {_int(rp.node, f'rank {r} node', 0, MAX_COUNT)} {_group_text(rp.pus, f'rank {r} PUs')}"
              for r, rp in enumerate(p.ranks)]
    for i, layer in enumerate(p.layers, 1):
        if any(len(pair) != 2 or pair[1] >= len(p.ranks) for pair in layer.pairs):
            raise ValueError(f"layer {i}: every pair must be two ranks (a < b) of the {len(p.ranks)} rank(s)")
        bandwidth = "-" if layer.bandwidth is None else _real(layer.bandwidth, f"layer {i} bandwidth")
        lines.append(f"layer {_real(layer.latency, f'layer {i} latency')} {bandwidth} "
                     f"{_groups_text(layer.pairs, f'layer {i} pair')}")
    return lines + [_table_line("ratDist", p.rat_dist), _table_line("ratNC", p.rat_nc), "end"]


def format_parameters(p: Parameters, comments: Iterable[str] = ()) -> str:
    """The text of a parameters file; ValueError (one line) if a value or a
    comment breaks the grammar."""
    lines = [HEADER]
    for i, comment in enumerate(comments, 1):
        if not isinstance(comment, str) or not _COMMENT_TEXT.fullmatch(comment):
            raise ValueError(f"comment {i} must be one line of printable ASCII (tabs allowed), got {_brief(comment)}")
        lines.append(f"# {comment}")
    text = "\n".join(lines + _body_lines(p)) + "\n"
    if len(text) > MAX_FILE_BYTES:
        raise ValueError(f"the parameters file would be {len(text)} bytes, more than the limit of {MAX_FILE_BYTES}")
    return text


def is_parameters_text(head: bytes) -> bool:
    """True if a file's first bytes start like a parameters file."""
    return head.startswith(f"{MAGIC} ".encode())


def write_parameters_file(path: str, p: Parameters, comments: Iterable[str] = (), force: bool = False) -> None:
    """Write p and comment lines; ValueError (one line) before anything is
    written if they break the grammar, or if `path` is a link, not a regular
    file, or (unless `force`) an existing file that is not a parameters file.
    Atomic write (temporary file, then rename)."""
    write_file(path, format_parameters(p, comments), "parameters file", is_parameters_text, force=force,
               what="an hpcbench parameters file")
