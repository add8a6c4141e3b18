"""Every rank of a run must run the same thing: each rank parses its own
command line, and before anything is measured the ranks compare their
verdicts. A usage error on any rank, or two ranks with different options (an
MPMD launch, a site wrapper), ends the job with one line from rank 0 and
exit status 2 on every rank, within seconds, instead of leaving ranks that
went on waiting for ranks that stopped."""
from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TypeVar

from ._common import UsageError

T = TypeVar("T")
_PREFIX = "hpcbench run: "


def agree(comm: Any, verdict: Callable[[], T]) -> T:
    """Run `verdict` on every rank; if it raised UsageError on any rank,
    raise one UsageError on every rank (its text from the lowest failing rank,
    saying which rank when not every rank failed). Collective."""
    try:
        value, error = verdict(), None
    except UsageError as e:
        value, error = None, str(e)
    errors = [(r, e) for r, e in enumerate(comm.allgather(error)) if e]
    if errors:
        raise UsageError(_combined(errors, comm.Get_size()))
    return value  # type: ignore[return-value]


def _combined(errors: list[tuple[int, str]], size: int) -> str:
    rank, text = errors[0]
    if len(errors) == size and all(e == text for _, e in errors):
        return text
    body = text[len(_PREFIX):] if text.startswith(_PREFIX) else text.removeprefix("hpcbench: ")
    more = f" (and {len(errors) - 1} more rank(s))" if len(errors) > 1 else ""
    return f"{_PREFIX}on rank {rank}: {body}{more}"


def same_command_line(comm: Any, args: argparse.Namespace, extra: tuple[str, ...] = ()) -> None:
    """UsageError on every rank unless every rank parsed the same options
    (and the same `extra` facts, such as the MPI thread level asked for)."""
    mine = (sorted((k, repr(v)) for k, v in vars(args).items()), extra)
    everyone = comm.allgather(mine)
    for rank, theirs in enumerate(everyone):
        if theirs != everyone[0]:
            raise UsageError(f"{_PREFIX}every rank must get the same command line; "
                             f"{_difference(everyone[0], theirs, rank)}")


# What each rank compares: its (option, repr of value) pairs and its extra facts.
_Parsed = tuple[list[tuple[str, str]], tuple[str, ...]]


def _difference(first: _Parsed, other: _Parsed, rank: int) -> str:
    a, b = dict(first[0]), dict(other[0])
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            return f"rank {rank} has {_spelling(key)} {_value(b.get(key))}, rank 0 has {_value(a.get(key))}"
    return f"rank {rank} asked for MPI thread level {', '.join(other[1])}, rank 0 for {', '.join(first[1])}"


def _spelling(dest: str) -> str:
    """How a user writes the option behind an argparse destination."""
    names = {"benchmarks": "the benchmarks", "output": "-o", "quiet": "-q"}
    return names.get(dest, dest[len("flag"):] if dest.startswith("flag--") else dest)


def _value(text: str | None) -> str:
    return "(not given)" if text in (None, "None") else str(text)
