"""The bandwidth benchmark's kernels by name, their instruction sets, and
how their bytes are counted: as likwid-bench's "Data volume" counts them
(bytes loaded plus bytes stored), with the write-allocate traffic an
ordinary store adds said beside it (docs/bandwidth.md, "Counting bytes")."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import _core
from .._errors import OptionError


@dataclass(frozen=True)
class Kernel:
    """One kernel as the benchmark names it: the C kernel, whether its
    stores are non-temporal, and the arrays it reads and writes."""
    name: str          #: e.g. "copy_nt"
    code: int          #: _core.BW_*
    nontemporal: bool
    reads: int         #: arrays read per element
    writes: int        #: arrays written per element
    formula: str
    likwid: str        #: likwid-bench's test of the same loop, without the ISA suffix

    @property
    def streams(self) -> int:
        """Distinct arrays: update reads and writes one array."""
        return 1 if self.name == "update" else self.reads + self.writes


def _kernel(name: str, code: int, reads: int, writes: int, formula: str, likwid: str, nt: bool = False) -> Kernel:
    return Kernel(name + ("_nt" if nt else ""), code, nt, reads, writes, formula, likwid + ("_mem" if nt else ""))


_PLAIN = [("load", _core.BW_LOAD, 1, 0, "sum += a[i]", "load"),
          ("store", _core.BW_STORE, 0, 1, "a[i] = s", "store"),
          ("copy", _core.BW_COPY, 1, 1, "a[i] = b[i]", "copy"),
          ("update", _core.BW_UPDATE, 1, 1, "a[i] = s * a[i]", "update"),
          ("triad", _core.BW_TRIAD, 3, 1, "a[i] = b[i] + c[i] * d[i]", "triad"),
          ("stream_triad", _core.BW_STREAM_TRIAD, 2, 1, "a[i] = b[i] + s * c[i]", "stream")]
#: The kernels with non-temporal variants (likwid's *_mem).
NT_KERNELS = ("store", "copy", "triad", "stream_triad")
#: Every kernel, in the order the benchmark runs and shows them.
KERNELS: dict[str, Kernel] = {}
for _args in _PLAIN:
    KERNELS[_args[0]] = _kernel(*_args)
    if _args[0] in NT_KERNELS:
        KERNELS[_args[0] + "_nt"] = _kernel(*_args, nt=True)
#: What a run that names no benchmark measures (the default suite's budget).
SHORT_KERNELS = ("load", "store", "copy", "triad")

#: Instruction sets, narrowest first, by name -> _core.ISA_*.
ISAS = {"scalar": _core.ISA_SCALAR, "sse2": _core.ISA_SSE2, "avx2": _core.ISA_AVX2, "avx512": _core.ISA_AVX512}
ISA_NAMES = {v: k for k, v in ISAS.items()}
#: likwid-bench's suffix of each ISA's tests (its AVX tests are what AVX2 machines run).
LIKWID_SUFFIX = {"scalar": "", "sse2": "_sse", "avx2": "_avx", "avx512": "_avx512"}


def data_volume(kernel: Kernel, array_bytes: int, passes: int = 1) -> int:
    """Bytes loaded plus bytes stored by `passes` passes over arrays of
    `array_bytes`, as likwid-bench counts its data volume."""
    return (kernel.reads + kernel.writes) * array_bytes * passes


def write_allocate(kernel: Kernel, array_bytes: int, passes: int = 1) -> int:
    """The bytes an ordinary store also reads (the line it fills before
    writing), which likwid-bench's and STREAM's counts leave out: one array
    per written array, none for non-temporal stores, none for update (it
    stores to lines it has just read)."""
    if kernel.nontemporal or kernel.name == "update":
        return 0
    return kernel.writes * array_bytes * passes


def supported_isas(supported: Callable[[int], bool] | None = None) -> list[str]:
    """The ISAs this CPU runs, narrowest first (`supported`: ISA code ->
    bool, by default _core.load_supported: the read kernel's choice)."""
    supported = supported or _core.load_supported
    return [name for name, code in ISAS.items() if supported(code)]


def choose_isas(asked: list[str] | None, everything: bool,
                supported: Callable[[int], bool] | None = None) -> list[str]:
    """The ISAs to run: those asked for by name ("auto" is the widest), or
    every one the CPU has (everything) or the widest. OptionError naming
    the ones it has for an ISA it lacks."""
    have = supported_isas(supported)
    if asked is None:
        return list(reversed(have)) if everything else have[-1:]
    out: list[str] = []
    for name in asked:
        name = have[-1] if name == "auto" else name
        if name not in ISAS:
            raise OptionError("isas", f"must name instruction sets of {', '.join(['auto', *ISAS])}, got {name!r}")
        if name not in have:
            raise OptionError("isas", f"must be instruction sets this CPU has ({', '.join(reversed(have))}), "
                              f"got {name}")
        if name not in out:
            out.append(name)
    return out


def choose_kernels(asked: list[str] | None, everything: bool) -> list[Kernel]:
    """The kernels to run, in KERNELS' order: those asked for, or all of
    them (everything) or SHORT_KERNELS. OptionError for an unknown name."""
    names = list(KERNELS) if asked is None and everything else SHORT_KERNELS if asked is None else asked
    for name in names:
        if name not in KERNELS:
            raise OptionError("kernels", f"must name kernels of {', '.join(KERNELS)}, got {name!r}")
    return [k for name, k in KERNELS.items() if name in names]


def runs_on(kernel: Kernel, isa: str) -> bool:
    """Whether the kernel has a loop for that ISA (no scalar non-temporal stores)."""
    return not (kernel.nontemporal and isa == "scalar")
