"""The options of the bandwidth benchmark: every default, once."""
from __future__ import annotations

import argparse
from dataclasses import dataclass

from .._argtypes import pu_list_arg, size_arg
from .._protocol import option
from .._validate import Range


def name_list_arg(text: str) -> list:
    """'load,copy' -> ['load', 'copy'] (the benchmark checks the names)."""
    names = [t.strip() for t in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected names separated by commas, got {text!r}")
    return names


def size_list_arg(text: str) -> list:
    """'16KiB,1MiB,256MiB' -> bytes."""
    return [size_arg(t.strip()) for t in text.split(",")]


@dataclass(frozen=True)
class BandwidthOptions:
    kernels: list | None = option(None, "--bw-kernels", "kernels to run: load, store, copy, update, triad, "
                                  "stream_triad and the non-temporal store_nt, copy_nt, triad_nt, stream_triad_nt",
                                  metavar="LIST", type=name_list_arg,
                                  default_text="all of them; load,store,copy,triad in a run that names no benchmark")
    isas: list | None = option(None, "--bw-isas", "instruction sets of the loops: scalar, sse2, avx2, avx512 or "
                               "auto (the widest this CPU has)", metavar="LIST", type=name_list_arg,
                               default_text="every one this CPU has; the widest in a run that names no benchmark")
    sizes: list | None = option(None, "--bw-sizes", "working sets (all arrays of a kernel together, as "
                                "likwid-bench's -w) to measure on one core, e.g. 16KiB,1MiB,256MiB",
                                metavar="LIST", type=size_list_arg,
                                default_text="half of each cache level hwloc reports, and 4 x the last level "
                                "(memory)")
    cores: list | None = option(None, "--bw-cores", "PUs that run the memory working set together (the first "
                                "also runs every size alone)", metavar="LIST", type=pu_list_arg,
                                default_text="one PU of every core this process may use")
    samples: int = option(5, "--bw-samples", "timed samples of each kernel and size", metavar="N", type=int,
                          range=Range(1, 1000))
    min_bytes: int = option(64 << 20, "--bw-min-bytes", "data volume of one sample at least (whole passes)",
                            metavar="SIZE", type=size_arg, range=Range(1, 1 << 44, size=True), size=True)
    warmup: int = 1
    pages: str = "normal"
