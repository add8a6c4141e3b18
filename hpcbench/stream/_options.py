"""The options of the stream benchmark: every default, once."""
from __future__ import annotations

from dataclasses import dataclass

from .._argtypes import pu_list_arg, size_arg
from .._protocol import option
from .._validate import Range

#: Instruction sets of the loops, by option value; auto is the widest this CPU runs.
ISA_CHOICES = ("auto", "scalar", "sse2", "avx2", "avx512")
#: Store kinds: ordinary (what STREAM compiled plainly issues) or non-temporal.
STORE_CHOICES = ("ordinary", "nontemporal")


@dataclass(frozen=True)
class StreamOptions:
    cores: list | None = option(None, "--stream-cores", "PUs to use, one per core (the first listed PU of each "
                                "core), e.g. 0-3,8", metavar="LIST", type=pu_list_arg,
                                default_text="every core this process may use")
    size: int | None = option(None, "--stream-size", "bytes of each of the three arrays per core",
                              metavar="SIZE", type=size_arg,
                              default_text="STREAM's rule: 4 x the largest cache, at least 64 MiB")
    repetitions: int = option(10, "--stream-reps", "timed rounds of the four kernels per core count (STREAM's "
                              "NTIMES)", metavar="N", type=int, range=Range(1, 10000))
    isa: str = option("auto", "--stream-isa", "loads and stores of the kernels: auto is the widest this CPU has",
                      choices=ISA_CHOICES)
    stores: str = option("ordinary", "--stream-stores", "ordinary stores (as STREAM compiled plainly: each line "
                         "written is read first, the write-allocate) or non-temporal ones (no such read)",
                         choices=STORE_CHOICES)
    pages: str = "normal"
