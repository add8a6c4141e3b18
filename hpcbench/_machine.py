"""The context block of a results file: what ran, where, with what."""
from __future__ import annotations

import datetime
import platform
import socket
import sys
from collections.abc import Mapping
from typing import Any

import numpy as np

from . import _core, _launch
from ._timer import calibration
from ._version import __version__
from .topology import Topology

_THREAD_LEVELS = ("single", "funneled", "serialized", "multiple")


def transparent_huge_pages() -> str:
    """The system's THP policy (the bracketed word), or 'unavailable'."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            text = f.read()
    except OSError:
        return "unavailable"
    start, end = text.find("["), text.find("]")
    return text[start + 1:end] if 0 <= start < end else text.strip()


def mpi_facts(comm: Any) -> dict[str, Any]:
    """The MPI library, standard, mpi4py and thread level of a run (`comm`:
    an mpi4py communicator, or None outside MPI)."""
    if comm is None:
        return {"library": "not initialised", "ranks": 1}
    import mpi4py
    from mpi4py import MPI
    levels = dict(zip((MPI.THREAD_SINGLE, MPI.THREAD_FUNNELED, MPI.THREAD_SERIALIZED, MPI.THREAD_MULTIPLE),
                      _THREAD_LEVELS))
    return {"library": MPI.Get_library_version().replace("\x00", "").strip().splitlines()[0],
            "ranks": comm.Get_size(), "standard": "{}.{}".format(*MPI.Get_version()), "mpi4py": mpi4py.__version__,
            "thread_level": levels.get(MPI.Query_thread(), "unknown")}


def launch_facts(binding: list[dict[str, Any]] | None = None,
                 environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What the context block records of the launch (hpcbench._launch): the
    command line, the launcher and its version, each rank's binding
    (`binding`: the gathered RankBinding.as_dict entries, in rank order),
    the Slurm job, the MPI-related environment, the kernel, and the CPU
    frequency governor and turbo state."""
    launcher = _launch.detect_launcher(environ)
    facts: dict[str, Any] = {"command_line": _launch.command_line(),
                   "launcher": {"name": launcher, "version": _launch.launcher_version(launcher, environ)}}
    if binding:
        facts["binding"] = binding
    slurm = _launch.slurm_job(environ)
    if slurm:
        facts["slurm"] = slurm
    facts["mpi_environment"] = _launch.mpi_environment(environ)
    facts["kernel"] = f"{platform.release()} {platform.version()}"
    facts["cpu_frequency"] = {"governor": _launch.cpu_governor(), "turbo": _launch.turbo_state()}
    return facts


def rank_binding(comm: Any, host: str) -> dict[str, Any]:
    """This rank's entry of the context's `binding` list (what
    hpcbench._launch.bind_ranks did, or the PUs it has if it did not run)."""
    mine = _launch.my_binding()
    if mine is None:
        pus = tuple(_core.thread_binding())
        mine = _launch.RankBinding(pus, "launcher" if len(pus) == 1 else "none",
                                   "" if len(pus) == 1 else "not bound to one PU")
    return mine.as_dict(comm.Get_rank() if comm is not None else 0, host)


def collect(topology: Topology, comm: Any = None, hosts: list[str] | None = None,
            binding: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Everything a reader needs to judge and reproduce the numbers;
    `binding`: every rank's rank_binding, gathered (this process's alone
    when not given)."""
    if binding is None:
        binding = [rank_binding(comm, socket.gethostname())]
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "hpcbench": __version__,
        "hosts": hosts or [socket.gethostname()],
        "cpu_model": topology.cpu_model,
        "machine": platform.machine(),
        "os": f"{platform.system()} {platform.release()}",
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "mpi": mpi_facts(comm),
        "build": _core.build_info(),
        "transparent_huge_pages": transparent_huge_pages(),
        "timer": calibration().to_dict(),
        "topology": topology.summary(),
        **launch_facts(binding),
    }
