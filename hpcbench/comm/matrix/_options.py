"""The options of the matrix benchmark: every default, once (the library
functions' own defaults are the same constants)."""
from __future__ import annotations

import argparse
from dataclasses import dataclass

from ..._adaptive import DEFAULT_RSE
from ..._protocol import option
from ..._validate import Range
from ._layout import DIRECTIONS, KERNELS, parse_mesh

#: Time cap per kernel and dimension (seconds): six kernels over six
#: dimensions stay within a minute even on an oversubscribed machine.
DEFAULT_CAP_S = 0.25
#: Passes over all kernels and dimensions (measure_matrix). More than one
#: spreads bursts of load elsewhere over the dimensions, at the price of the
#: repetitions' start-up per pass (about twice the wall time for 3 here).
DEFAULT_PASSES = 1
#: The largest dimension a sweep takes (the C kernel's limit is 2^26; this
#: one keeps a typo from asking for terabytes before the memory check).
MAX_DIMENSION = 1 << 20


def dims_arg(text: str) -> tuple:
    """'64,128,1024' -> (64, 128, 1024)."""
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or not all(p.isascii() and p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"dimensions are whole numbers separated by commas, got {text!r}")
    dims = [int(p) for p in parts]
    if len(set(dims)) != len(dims):
        raise argparse.ArgumentTypeError(f"dimensions must not repeat, got {text!r}")
    if not all(1 <= n <= MAX_DIMENSION for n in dims):
        raise argparse.ArgumentTypeError(f"dimensions must be between 1 and {MAX_DIMENSION}, got {text!r}")
    return tuple(sorted(dims))


def mesh_arg(text: str) -> tuple | None:
    """'2x4' -> (2, 4); 'auto' -> None."""
    try:
        return parse_mesh(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def kernels_arg(text: str) -> tuple:
    """'transpose,shift_north' -> those kernels, in the benchmark's order."""
    names = [p.strip() for p in text.split(",")]
    for name in names:
        if name not in KERNELS:
            hint = (f" (a shift goes {' or '.join(DIRECTIONS)}, CoMet's two directions)"
                    if name.startswith("shift") else "")
            raise argparse.ArgumentTypeError(f"{name!r} is no matrix kernel; choose from {', '.join(KERNELS)}{hint}")
    return tuple(k for k in KERNELS if k in names)


@dataclass(frozen=True)
class MatrixOptions:
    dims: tuple | None = option(None, "--matrix-dims", "matrix dimensions to sweep (elements per side), each a "
                                "multiple of both sides of the mesh", metavar="N,N,...", type=dims_arg,
                                default_text="the mesh's longer side times 32 to 1024 in steps of sqrt(2) "
                                             "(64..2048 on 2x2)")
    mesh: tuple | None = option(None, "--matrix-mesh", "the mesh of processes, ROWSxCOLS, both at least 2, using "
                                "every rank", metavar="RxC", type=mesh_arg, default_text="as square as possible")
    kernels: tuple = option(tuple(KERNELS), "--matrix-kernels", "the kernels to run, comma-separated",
                            metavar="K,K,...", type=kernels_arg, default_text="all six: " + ", ".join(KERNELS))
    cap_s: float = option(DEFAULT_CAP_S, "--matrix-cap", "time cap per kernel and dimension in seconds, shared by "
                          "the passes", metavar="S", type=float, range=Range(0, 60, lo_open=True, unit="s"))
    passes: int = option(DEFAULT_PASSES, "--matrix-passes", "passes over every dimension and kernel, their samples "
                         "pooled (a burst of load elsewhere hits one pass, not one dimension)", metavar="N", type=int,
                         range=Range(1, 100))
    rse: float = option(DEFAULT_RSE, "--matrix-rse", "stop repeating once the median's relative standard error is "
                        "below this", metavar="F", type=float, range=Range(0, 1, lo_open=True, hi_open=True))
