"""`python -m hpcbench doctor`: what this machine and this launch give a run, on one screen.

Each line is one check: "ok", "FAIL" (something a run needs is wrong: the
exit status is 1), "info" (a fact that explains the figures) or "limit"
(what a run cannot do here, and why). Under `mpiexec -n N` every rank starts
MPI through the same path as `run` (so unbound ranks are bound first), rank
0 gathers every rank's host and binding and prints them all; every rank
exits with the same status. docs/doctor.md explains every line.

Only the standard library at the top: `hpcbench --help` imports this module.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from types import ModuleType
from typing import Any

from ._common import SUMMARIES, Parser, UsageError

_NAME = "hpcbench doctor"

#: One line of the screen: (mark, name, text); mark is ok, FAIL, info or limit.
Check = tuple[str, str, str]
#: What each rank tells rank 0: its entry of the context's binding list, and its launcher.
RankFacts = tuple[dict[str, Any], str]

#: What to install for a shared library the C core or mpi4py could not load.
_INSTALL = (("hwloc", "hwloc (Debian/Ubuntu: apt-get install libhwloc15; to build: libhwloc-dev)"),
            ("mpich", "MPICH (Debian/Ubuntu: apt-get install libmpich12), the MPI hpcbench was built against"),
            ("mpi", "the MPI library hpcbench was built against (Debian/Ubuntu: apt-get install libopenmpi3 "
                    "openmpi-bin, or MPICH's libmpich12)"),
            ("numpy", "NumPy (pip install numpy)"))


def add_doctor_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    sub.add_parser("doctor", help=SUMMARIES["doctor"],
                   description="Check what a run needs here, one line each (ok, FAIL, info, limit); exit 0 when "
                               "nothing FAILs, 1 otherwise. Under mpiexec, rank 0 prints every rank's binding.")


def missing_library_line(what: str, error: BaseException) -> str:
    """One line for an import that failed because a shared library (or a
    module) is missing: which one, and what to install."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    library = re.search(r"(lib[\w.+-]*\.so[\w.]*)", text)
    name = library.group(1) if library else getattr(error, "name", None) or ""
    lowered = f"{name} {text}".lower()
    if "mpi4py" in lowered and not library:
        advice = "mpi4py (pip install mpi4py, built against the same MPI as hpcbench)"
    else:
        advice = next((a for key, a in _INSTALL if key in lowered), "")
    missing = f"{name} is missing" if library else f"the import failed ({text})"
    return f"{_NAME}: {what} cannot be loaded: {missing}" + (f"; install {advice}" if advice else "")


def cmd_doctor(args: argparse.Namespace) -> int:
    try:
        from .. import _core
    except (ImportError, OSError) as e:
        print(missing_library_line("hpcbench._core (the C core)", e), file=sys.stderr)
        return 1
    try:
        from ._run import start_mpi
        comm, problem = start_mpi()
    except (ImportError, OSError) as e:
        print(missing_library_line("mpi4py", e), file=sys.stderr)
        return 1
    if problem:
        raise UsageError(problem)
    import socket

    from .. import _launch, _machine
    mine = (_machine.rank_binding(comm, socket.gethostname()), _launch.detect_launcher())
    everyone = comm.gather(mine, root=0)
    status = None
    if comm.Get_rank() == 0:
        lines = checks(_core, comm, everyone or [])
        sys.stdout.write(screen(lines, comm.Get_size(), len({b["host"] for b, _ in everyone or []})))
        sys.stdout.flush()
        status = 1 if any(mark == "FAIL" for mark, _, _ in lines) else 0
    return int(comm.bcast(status, root=0))


def screen(lines: list[Check], ranks: int, hosts: int) -> str:
    """The text doctor prints: a heading, one line per check, and the verdict."""
    from .._version import __version__
    out = [f"hpcbench doctor (hpcbench {__version__}, {ranks} rank{'s' if ranks != 1 else ''} "
           f"on {hosts} node{'s' if hosts != 1 else ''})"]
    out += [f"  {mark:<5} {name:<14} {text}" for mark, name, text in lines]
    failed = sum(1 for mark, _, _ in lines if mark == "FAIL")
    out.append(f"{failed} check{'s' if failed != 1 else ''} FAILED (marked FAIL)" if failed
               else "all checks passed")
    return "\n".join(out) + "\n"


def checks(core: ModuleType, comm: Any, everyone: list[RankFacts]) -> list[Check]:
    """Every check as (mark, name, text), in the order doctor prints them."""
    lines = mpi_checks(core)
    lines += binding_checks(everyone)
    lines += hwloc_checks(core)
    lines += timer_checks()
    lines += memory_checks()
    lines += frequency_checks()
    lines += limits(comm.Get_size(), len({b["host"] for b, _ in everyone}))
    return lines


# ------------------------------------------------------------ MPI and the launcher

def mpi_libraries(path: str) -> list[str]:
    """The MPI shared libraries `path` (an extension module) is linked
    against, resolved by the dynamic loader (ldd), as real paths."""
    import subprocess
    try:
        done = subprocess.run(["ldd", path], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in done.stdout.splitlines():
        match = re.match(r"\s*(lib(?:mpi|mpich)[\w.+-]*\.so[\w.]*)\s*=>\s*(\S+)", line)
        if match and match.group(2) != "not":
            found.append(os.path.realpath(match.group(2)))
    return sorted(set(found))


def mpi_checks(core: ModuleType) -> list[Check]:
    import mpi4py
    from mpi4py import MPI
    build = core.build_info()
    version = MPI.Get_library_version().replace("\x00", "").strip().splitlines()[0]
    core_libs = mpi_libraries(core.__file__ or "")     # an extension module always has its file
    mpi4py_libs = mpi_libraries(MPI.__file__)
    sanitized = " (sanitized)" if build.get("sanitized") else ""
    lines = [("info", "core", f"hpcbench._core built with {build.get('compiler', '?')}{sanitized}, links "
              f"{', '.join(core_libs) or 'no MPI library ldd can see'}"),
             ("info", "mpi4py", f"mpi4py {mpi4py.__version__}: {version}, links {', '.join(mpi4py_libs) or '?'}")]
    if core_libs and mpi4py_libs:
        same = core_libs == mpi4py_libs
        lines.append(("ok" if same else "FAIL", "mpi", "_core and mpi4py use the same MPI library" if same else
                      "_core and mpi4py use different MPI libraries: rebuild one against the other's MPI"))
    else:
        lines.append(("info", "mpi", "could not tell which MPI library _core and mpi4py load (no ldd?)"))
    return lines


def binding_checks(everyone: list[RankFacts]) -> list[Check]:
    """The launcher, then one line per rank: host, PUs, who bound it."""
    from .. import _launch
    launchers = sorted({launcher for _, launcher in everyone})
    name = launchers[0] if len(launchers) == 1 else " / ".join(launchers)
    version = _launch.launcher_version(launchers[0]) if len(launchers) == 1 else ""
    lines = [("info", "launcher", f"{name}{f' ({version})' if version else ''}"
              f"{'; ' + _launch.NO_BIND_VARIABLE + ' is set' if _launch.binding_disabled() else ''}")]
    for binding, _ in everyone:
        pus = binding["pus"]
        where = f"rank {binding['rank']} on {binding['host']}: "
        if len(pus) == 1:
            lines.append(("ok", "binding", f"{where}PU {pus[0]} (bound by {binding['bound_by']})"))
        else:
            lines.append(("FAIL", "binding", f"{where}PUs {_ranges(pus)}, not bound to one PU "
                          f"({binding.get('why') or 'unknown why'}): comm layers and predict --measure "
                          "see only 'same node'"))
    return lines


def _ranges(pus: list[int]) -> str:
    """0-3,8 for [0, 1, 2, 3, 8]."""
    out: list[str] = []
    start: int | None = None
    for i, p in enumerate(pus):
        if start is None:
            start = p
        if i + 1 == len(pus) or pus[i + 1] != p + 1:
            out.append(f"{start}" if start == p else f"{start}-{p}")
            start = None
    return ",".join(out)


# ------------------------------------------------------------ hwloc, timer, memory, frequency

def hwloc_checks(core: ModuleType) -> list[Check]:
    from ..topology import Topology
    build = core.build_info()
    compiled, runtime = build.get("hwloc_api_compiled", "?"), build.get("hwloc_api_runtime", "?")
    same_major = compiled.split(".")[0] == runtime.split(".")[0]
    t = Topology.load()
    caches = sorted({(c.level, c.size) for c in t.caches if c.kind != "instruction"})
    levels = ", ".join(f"L{level} {size // 1024} KiB" for level, size in caches)
    return [("ok" if same_major else "FAIL", "hwloc", f"API {compiled} at build, library {runtime} at run time"
             + ("" if same_major else ": different major versions, rebuild hpcbench")),
            ("info", "topology", f"{t.cpu_model}: {len(t.packages)} package(s), {len(t.cores)} core(s), "
             f"{len(t.pus)} PU(s), {len(t.numa_nodes)} NUMA node(s); {levels}")]


def invariant_tsc(cpuinfo: str = "/proc/cpuinfo") -> bool | None:
    """True when the CPU flags say the TSC ticks at a constant rate through
    frequency changes and idle states (constant_tsc and nonstop_tsc), False
    when they do not, None where there are no such flags (not x86)."""
    try:
        with open(cpuinfo) as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), None)
    except OSError:
        return None
    if flags is None:
        return None
    return "constant_tsc" in flags and "nonstop_tsc" in flags


def timer_checks() -> list[Check]:
    from .._timer import calibration
    c = calibration()
    text = f"{c.source} at {c.ticks_per_ns:.3f} ticks/ns, overhead {c.overhead_ns:.0f} ns, " \
           f"resolution {c.resolution_ns:.1f} ns"
    if c.source != "tsc":
        return [("ok", "timer", text)]
    invariant = invariant_tsc()
    if invariant is False:
        return [("FAIL", "timer", f"{text}; the TSC is not invariant (no constant_tsc/nonstop_tsc): "
                 "ticks change with the frequency")]
    return [("ok", "timer", f"{text}; invariant TSC")]


def huge_pages(meminfo: str = "/proc/meminfo") -> str:
    """Reserved huge pages: "0 of 2048 kB reserved" (or "unknown")."""
    try:
        with open(meminfo) as f:
            values = dict(line.split(":", 1) for line in f if ":" in line)
    except OSError:
        return "unknown"
    total, size = values.get("HugePages_Total", "?").strip(), values.get("Hugepagesize", "?").strip()
    return f"{total} of {size} reserved"


def pagemap_readable() -> bool:
    """Whether /proc/self/pagemap gives this process physical frame numbers
    (it needs CAP_SYS_ADMIN; others read zeros)."""
    import ctypes
    page = os.sysconf("SC_PAGE_SIZE")
    buffer = (ctypes.c_char * page)()
    buffer[0] = b"x"                        # touched: the page has a frame
    address = ctypes.addressof(buffer)
    try:
        with open("/proc/self/pagemap", "rb") as f:
            f.seek(address // page * 8)
            entry = int.from_bytes(f.read(8), "little")
    except OSError:
        return False
    return bool(entry & ((1 << 55) - 1))


def memory_checks() -> list[Check]:
    from .._machine import transparent_huge_pages
    lines = [("info", "huge-pages", f"transparent huge pages: {transparent_huge_pages()}; "
              f"huge pages: {huge_pages()}")]
    if pagemap_readable():
        lines.append(("ok", "pagemap", "physical frame numbers readable: cache placement is read back"))
    else:
        lines.append(("limit", "pagemap", "no physical frame numbers (needs CAP_SYS_ADMIN, e.g. root): "
                      "cache placement unknown, the cache sweep fits page-set models instead"))
    return lines


def frequency_checks() -> list[Check]:
    from .. import _launch
    return [("info", "cpu-freq", f"governor {_launch.cpu_governor()}, turbo {_launch.turbo_state()}")]


def limits(ranks: int, nodes: int) -> list[Check]:
    """What a run cannot do with this many ranks and nodes: one line per
    benchmark the registry says needs more."""
    from .. import _registry
    out: list[Check] = []
    for b in _registry.BENCHMARKS:
        if b.min_nodes > nodes:
            out.append(("limit", b.name, f"needs {b.min_nodes} nodes or more (this job has {nodes}): not run here"))
        elif b.min_ranks > ranks:
            out.append(("limit", b.name, f"needs {b.min_ranks} ranks or more (this job has {ranks}): not run here"))
    return out
