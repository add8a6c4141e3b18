"""Lazy package attributes (PEP 562): a package names what it exports and the
submodule that defines each, and a name's submodule is imported on first use.

Why: `hpcbench list` and `hpcbench show` import every benchmark of the
registry, and a domain package that imported all of its modules up front
(measurement, kernels, fits, plots) cost them a third of their start-up.
Each domain's __init__ keeps its eager imports under TYPE_CHECKING, so type
checkers and readers still see exactly where each name comes from.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, tuple[str, ...]]) -> tuple[Callable[[str], Any],
                                                                           Callable[[], list[str]]]:
    """(__getattr__, __dir__) for `package`, whose public names are listed
    by the submodule that defines them: {"._x": ("name", ...)}, as in a
    `from ._x import name` line ("._x:NAME" as a key where the submodule
    calls it NAME, as `from ._x import NAME as public`)."""
    namespace = importlib.import_module(package).__dict__
    where_of = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        where = where_of.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = where.partition(":")
        value = getattr(importlib.import_module(module, package), attribute or name)
        namespace[name] = value          # the next access is a plain attribute
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where_of))

    return __getattr__, __dir__
