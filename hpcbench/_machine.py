"""The context block of a results file: what ran, where, with what."""
from __future__ import annotations

import datetime
import platform
import socket
import sys

import numpy as np

from . import _core
from ._timer import calibration
from ._version import __version__

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


def mpi_facts(comm) -> dict:
    """The MPI library, standard, mpi4py and thread level of a run."""
    if comm is None:
        return {"library": "not initialised", "ranks": 1}
    import mpi4py
    from mpi4py import MPI
    levels = dict(zip((MPI.THREAD_SINGLE, MPI.THREAD_FUNNELED, MPI.THREAD_SERIALIZED, MPI.THREAD_MULTIPLE),
                      _THREAD_LEVELS))
    return {"library": MPI.Get_library_version().replace("\x00", "").strip().splitlines()[0],
            "ranks": comm.Get_size(), "standard": "{}.{}".format(*MPI.Get_version()), "mpi4py": mpi4py.__version__,
            "thread_level": levels.get(MPI.Query_thread(), "unknown")}


def collect(topology, comm=None, hosts=None) -> dict:
    """Everything a reader needs to judge and reproduce the numbers."""
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
    }
