"""The context block of a results file: what ran, where, with what."""
from __future__ import annotations

import datetime
import platform
import socket
import sys

import numpy as np

from . import __version__, _core


def transparent_huge_pages() -> str:
    """The system's THP policy (the bracketed word), or 'unavailable'."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            text = f.read()
    except OSError:
        return "unavailable"
    start, end = text.find("["), text.find("]")
    return text[start + 1:end] if 0 <= start < end else text.strip()


def timer_info() -> dict:
    info = _core.timer_calibrate(60)
    info["units"] = {"ticks_per_ns": "ticks/ns", "resolution_ticks": "ticks", "overhead_ticks": "ticks",
                     "resolution_ns": "ns", "overhead_ns": "ns", "calibration_ns": "ns"}
    return info


def collect(topology, comm=None, hosts=None) -> dict:
    """Everything a reader needs to judge and reproduce the numbers."""
    mpi = {"library": "not initialised", "ranks": 1}
    if comm is not None:
        from mpi4py import MPI
        import mpi4py
        mpi = {"library": MPI.Get_library_version().replace("\x00", "").strip().splitlines()[0], "ranks": comm.Get_size(),
               "standard": "%d.%d" % MPI.Get_version(), "mpi4py": mpi4py.__version__,
               "thread_level": {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled",
                                MPI.THREAD_SERIALIZED: "serialized",
                                MPI.THREAD_MULTIPLE: "multiple"}.get(MPI.Query_thread(), "unknown")}
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "hpcbench": __version__,
        "hosts": hosts or [socket.gethostname()],
        "cpu_model": topology.cpu_model,
        "machine": platform.machine(),
        "os": f"{platform.system()} {platform.release()}",
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "mpi": mpi,
        "build": _core.build_info(),
        "transparent_huge_pages": transparent_huge_pages(),
        "timer": timer_info(),
        "topology": topology.summary(),
    }
