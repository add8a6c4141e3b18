"""Which instruction sets the peakflops benchmark runs (pure, with the CPU's
answers from hpcbench._core kept apart so tests can hand in a fake set)."""
from __future__ import annotations

from collections.abc import Iterable

from .._errors import OptionError
from ._options import ISA_NAMES


def widest(supported: Iterable[str]) -> str:
    """The widest instruction set of `supported` (scalar runs everywhere)."""
    have = set(supported)
    return next((name for name in ISA_NAMES if name in have), "scalar")


def isas_to_run(asked: str, supported: Iterable[str]) -> list[str]:
    """The instruction sets to measure, widest first: every one supported
    for "all", else the one asked for; one this CPU lacks is an OptionError
    naming what it has."""
    have = [name for name in ISA_NAMES if name in set(supported) | {"scalar"}]
    if asked == "all":
        return have
    if asked not in have:
        raise OptionError("isa", f"must be one this CPU runs ({', '.join(have)}), got {asked}")
    return [asked]


def precisions_to_run(asked: str) -> list[str]:
    return ["double", "single"] if asked == "both" else [asked]


def cpu_isas() -> list[str]:
    """The instruction sets this CPU runs the FMA loop of (AVX2 needs FMA3 too)."""
    from .. import _core
    return [name for name in ISA_NAMES if _core.flops_supported(isa_code(name))]


def isa_code(name: str) -> int:
    from .. import _core
    return int(getattr(_core, f"ISA_{name.upper()}"))


def isa_name(code: int) -> str:
    from .. import _core
    return next(name for name in ISA_NAMES if getattr(_core, f"ISA_{name.upper()}") == code)


def scalar_operation(fma: bool) -> str:
    """What the scalar loop's step is: an FMA where the CPU has FMA3."""
    return "fma" if fma else "mul+add"
