"""The options of the peakflops benchmark: every default, once."""
from __future__ import annotations

from dataclasses import dataclass

from .._argtypes import pu_list_arg
from .._protocol import option
from .._validate import Range

#: Instruction sets by name, widest first (the C enum's ISA_* without ISA_AUTO).
ISA_NAMES = ("avx512", "avx2", "sse2", "scalar")
PRECISIONS = ("double", "single")


@dataclass(frozen=True)
class FlopsOptions:
    isa: str = option("all", "--flops-isa", "instruction set of the FMA chains: all those this CPU runs, or one "
                      "by name", choices=("all", *ISA_NAMES))
    precision: str = option("both", "--flops-precision", "floating-point precision of the chains",
                            choices=("both", *PRECISIONS))
    cores: list | None = option(None, "--flops-cores", "PUs of the all-cores run (the 1-core run takes the first), "
                                "e.g. 0-3,8", metavar="LIST", type=pu_list_arg,
                                default_text="every PU this process may use")
    samples: int = option(5, "--flops-samples", "timed samples of each instruction set, precision and team",
                          metavar="N", type=int, range=Range(1, 1000))
    sample_ms: float = option(3.0, "--flops-sample-ms", "length of one sample", metavar="MS", type=float,
                              range=Range(0.1, 10000))
    chains: int = option(12, "--flops-chains", "independent FMA chains per core (FMA latency x FMA units, "
                         "docs/flops.md)", type=int, choices=(8, 12, 16))
