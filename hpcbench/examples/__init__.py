"""The example results files shipped with hpcbench (package data), so that the
notebooks and the README's `show`/`report` commands work from an installed
package as well as from a checkout.

    import hpcbench.examples
    results = hpcbench.load(hpcbench.examples.path("cache-example.json"))

On the command line the same files are `example:NAME`
(`python -m hpcbench show example:cache`), resolved by `resolve()`.
"""
from __future__ import annotations

import os

__all__ = ["DIRECTORY", "PREFIX", "names", "path", "resolve"]

DIRECTORY = os.path.dirname(os.path.abspath(__file__))
PREFIX = "example:"


def names() -> list[str]:
    """The file names of the shipped examples, sorted."""
    return sorted(f for f in os.listdir(DIRECTORY) if f.endswith((".json", ".degr")))


def path(name: str) -> str:
    """The path of the shipped example `name` ("cache-example.json", or
    "cache-example" or "cache" for short). Raises FileNotFoundError with the
    list of names when there is none of that name."""
    for candidate in (name, f"{name}.json", f"{name}-example.json"):
        if os.path.basename(candidate) == candidate and candidate in names():
            return os.path.join(DIRECTORY, candidate)
    raise FileNotFoundError(f"no shipped example {name!r}; there are: {', '.join(names())}")


def resolve(arg: str) -> str:
    """`arg` itself, unless it is `example:NAME`, which names a shipped example."""
    if arg.startswith(PREFIX) and not os.path.exists(arg):
        return path(arg[len(PREFIX):])
    return arg
