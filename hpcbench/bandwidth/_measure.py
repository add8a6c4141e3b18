"""Running the bandwidth kernels (hpcbench._core.bandwidth_team, the timed
loops in C) and turning each sample's start and end times into bytes/s.
What several cores deliver together is counted as likwid-bench counts
it: all members' bytes over the time from the first start to the last end."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _core, _validate
from .._errors import OptionError
from .._format import format_size
from .._memory import page_mode, safe_memory_limit
from ._kernels import ISA_NAMES, ISAS, Kernel


@dataclass
class KernelRun:
    """One kernel on one team over several working sets: per size the
    array bytes, the data volume of one member's sample (loads + stores),
    and per sample the start and end of every member (ns, one clock)."""
    kernel: Kernel
    isa: str                 #: the ISA the loops used
    pus: list[int]
    array_bytes: list[int]
    bytes_per_sample: list[float]   #: per size, one member's data volume per sample
    start_ns: np.ndarray     #: (sizes, members, samples)
    end_ns: np.ndarray


def aggregate_bandwidth(bytes_per_member: float, start_ns: np.ndarray, end_ns: np.ndarray) -> np.ndarray:
    """Bytes/s of each sample: every member's bytes over the time from the
    first member's start to the last member's end. start_ns and end_ns are
    (members, samples)."""
    start, end = np.asarray(start_ns, dtype=float), np.asarray(end_ns, dtype=float)
    span = end.max(axis=0) - start.min(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(span > 0, bytes_per_member * start.shape[0] / (span * 1e-9), np.nan)


def check_kernel(kernel: Kernel, sizes: list[int], isa: str, min_bytes: int, samples: int, pages: str) -> None:
    """The C kernel's own rules, named as the options (_core.bandwidth_check)."""
    with _validate.c_rules({"sizes": "sizes", "min_bytes": "min_bytes", "samples": "samples", "isa": "isas",
                            "nontemporal": "kernels", "page_mode": "pages"}):
        _core.bandwidth_check(kernel.code, sizes, isa=ISAS[isa], nontemporal=kernel.nontemporal,
                              min_bytes=min_bytes, samples=samples, page_mode=page_mode(pages))


def check_memory(sizes: list[int], members: int, parameter: str = "sizes") -> None:
    """Refuse, before measuring, working sets the memory available now
    cannot hold (each member holds its own)."""
    need, limit = max(sizes) * members, safe_memory_limit()
    if need > limit:
        raise OptionError(parameter, f"must fit in the memory available ({format_size(need)} asked for on "
                          f"{members} core(s), at most {format_size(limit)} now), got {format_size(max(sizes))}")


def run_kernel(kernel: Kernel, pus: list[int], sizes: list[int], isa: str, min_bytes: int, samples: int,
               warmup: int = 1, pages: str = "normal") -> KernelRun:
    """Time `kernel` on the team `pus` (each member its own arrays) over
    each working set of `sizes` (bytes per member), `samples` samples of at
    least min_bytes of data volume each."""
    start, end, volume, arrays, used = _core.bandwidth_team(
        pus, kernel.code, [int(s) for s in sizes], isa=ISAS[isa], nontemporal=kernel.nontemporal,
        min_bytes=min_bytes, warmup=warmup, samples=samples, page_mode=page_mode(pages))
    shape = (len(pus), len(sizes), samples)
    return KernelRun(kernel=kernel, isa=ISA_NAMES.get(used, str(used)), pus=list(pus),
                     array_bytes=[int(a) for a in arrays], bytes_per_sample=[float(v) for v in volume],
                     start_ns=start.reshape(shape).transpose(1, 0, 2), end_ns=end.reshape(shape).transpose(1, 0, 2))
