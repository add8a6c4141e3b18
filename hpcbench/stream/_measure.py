"""Run STREAM's four kernels on a team (hpcbench._core.stream_team), and the
checks of their options before anything runs."""
from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

import numpy as np

from .. import _core, _validate
from .._errors import OptionError
from .._format import format_size
from .._memory import page_mode, safe_memory_limit
from ._counting import KERNELS
from ._options import ISA_CHOICES, StreamOptions

_D = StreamOptions()

#: Option value -> the C core's instruction set (enum hpcb_isa), and back.
ISAS = {"auto": _core.ISA_AUTO, "scalar": _core.ISA_SCALAR, "sse2": _core.ISA_SSE2, "avx2": _core.ISA_AVX2,
        "avx512": _core.ISA_AVX512}
ISA_NAMES = {v: k for k, v in ISAS.items()}
#: Option value -> the C core's store kind (enum hpcb_stream_stores).
STORES = {"ordinary": _core.STREAM_ORDINARY, "nontemporal": _core.STREAM_NONTEMPORAL}
#: Untimed rounds of the four kernels before the timed ones (STREAM times its first too, and drops it).
WARMUP = 1
#: Arrays each member allocates.
ARRAYS = 3


def supported_isas() -> set:
    """The instruction sets (option values, auto aside) this CPU runs the loops with."""
    return {name for name, isa in ISAS.items() if name != "auto" and _core.load_supported(isa)}


def choose_isa(asked: str, supported: Collection[str]) -> str:
    """The instruction set the loops will use: `asked` if the CPU has it,
    the widest of `supported` for auto; OptionError("isa") naming what the
    CPU has otherwise."""
    widest_first = [name for name in reversed(ISA_CHOICES) if name != "auto"]
    if asked == "auto":
        return next((name for name in widest_first if name in supported), "scalar")
    if asked not in ISAS:
        raise OptionError("isa", f"must be one of {', '.join(ISA_CHOICES)}, got {asked!r}")
    if asked not in supported:
        have = ", ".join(name for name in reversed(widest_first) if name in supported)
        raise OptionError("isa", f"{asked} is not an instruction set this CPU runs; it has {have}")
    return asked


def check_stream(array_bytes: int, repetitions: int, isa: str, stores: str, pages: str = _D.pages) -> None:
    """The kernel's own rules (whole cache lines, the repetitions, the store
    kind the ISA allows), stated once in C (_core.stream_check), named as the options."""
    # The rule's C names of the kinds read as the option values (ISA_SSE2 -> sse2).
    words = {f"ISA_{name.upper()}": name for name in ISAS if name != "auto"}
    words.update({"array_bytes": "size", "page_mode": "pages", "STREAM_NONTEMPORAL": "nontemporal"})
    with _validate.c_rules(words):
        _core.stream_check(array_bytes, repetitions, warmup=WARMUP, page_mode=page_mode(pages), isa=ISAS[isa],
                           stores=STORES[stores])


def check_array_bytes(array_bytes: int, members: int) -> int:
    """Each member holds three arrays; all of them must fit in the safe share
    of memory, or nothing runs (OptionError "size")."""
    limit = safe_memory_limit()
    need = ARRAYS * array_bytes * members
    if need > limit:
        raise OptionError("size", f"must let {members} core(s) hold three arrays each within the "
                                  f"{format_size(limit)} that may be used now; {format_size(array_bytes)} "
                                  f"arrays need {format_size(need)}")
    return array_bytes


class StreamRun(NamedTuple):
    """One run of the four kernels on a team: start and end of each kernel,
    arrays (members, repetitions, kernels) in ns after the run's first
    start (one clock for every member), and the instruction set used."""
    start_ns: np.ndarray
    end_ns: np.ndarray
    isa: str


def stream_run(pus: Sequence[int], array_bytes: int, repetitions: int = _D.repetitions, isa: str = _D.isa,
               stores: str = _D.stores, pages: str = _D.pages) -> StreamRun:
    """Run Copy, Scale, Add and Triad on every PU of `pus` at once,
    `repetitions` rounds after WARMUP untimed ones; the payload is checked
    after timing (RuntimeError if it is wrong)."""
    start, end, used = _core.stream_team(list(pus), array_bytes, repetitions, warmup=WARMUP,
                                         page_mode=page_mode(pages), isa=ISAS[isa], stores=STORES[stores])
    shape = (len(pus), repetitions, len(KERNELS))
    first = start.min()
    return StreamRun((start - first).reshape(shape), (end - first).reshape(shape), ISA_NAMES[used])
