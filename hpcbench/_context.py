"""The context block of a results file as a typed record: what ran, where,
with what (hpcbench._machine collects it). Every field is optional so that
files from any version load; `show` prints what there is."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._record import Count, Mapping, NonNegative, Positive, optional


@dataclass(kw_only=True)
class MPIFacts(Mapping):
    """The MPI library of the run, the ranks, and the thread level asked for."""
    library: str | None = optional()
    ranks: Count | None = optional()
    standard: str | None = optional()
    mpi4py: str | None = optional()
    thread_level: str | None = optional()


@dataclass(kw_only=True)
class TimerFacts(Mapping):
    """The tick counter's calibration (hpcbench._timer): rate, resolution,
    overhead, each in the unit `units` gives."""
    source: str | None = optional()
    ticks_per_ns: Positive | None = optional()
    resolution_ticks: NonNegative | None = optional()
    overhead_ticks: NonNegative | None = optional()
    resolution_ns: NonNegative | None = optional()
    overhead_ns: NonNegative | None = optional()
    calibration_ns: NonNegative | None = optional()
    units: dict[str, str] | None = optional()


@dataclass(kw_only=True)
class LauncherFacts(Mapping):
    """What started the ranks (hpcbench._launch.detect_launcher) and its
    version as `--version` printed it."""
    name: str | None = optional()
    version: str | None = optional()


@dataclass(kw_only=True)
class RankBindingFacts(Mapping):
    """Where one rank ran: its host, the PU OS indexes it could use, and
    who bound it ("launcher", "hpcbench", or "none" with `why`)."""
    rank: Count | None = optional()
    host: str | None = optional()
    pus: list[Count] | None = optional()
    bound_by: str | None = optional()
    why: str | None = optional()


@dataclass(kw_only=True)
class CPUFrequencyFacts(Mapping):
    """The cpufreq governor and the turbo/boost state ("unavailable" where
    sysfs does not have them, as in most virtual machines)."""
    governor: str | None = optional()
    turbo: str | None = optional()


@dataclass(kw_only=True)
class RunContext(Mapping):
    """Everything a reader needs to judge and reproduce the numbers: date,
    versions, hosts, CPU, MPI, the build of the C core, the THP policy, the
    timer and hwloc's topology summary; and how the run was launched: the
    command line, the launcher, each rank's binding, the Slurm job, the
    MPI-related environment variables, the kernel and the CPU frequency
    policy (files before hpcbench 0.1's launch record have none of these)."""
    date: str | None = optional()
    hpcbench: str | None = optional()
    hosts: list[str] | None = optional()
    cpu_model: str | None = optional()
    machine: str | None = optional()
    os: str | None = optional()
    python: str | None = optional()
    numpy: str | None = optional()
    mpi: MPIFacts | None = optional()
    build: dict[str, Any] | None = optional()
    transparent_huge_pages: str | None = optional()
    timer: TimerFacts | None = optional()
    topology: Any = optional()
    command_line: list[str] | None = optional()
    launcher: LauncherFacts | None = optional()
    binding: list[RankBindingFacts] | None = optional()
    slurm: dict[str, str] | None = optional()
    mpi_environment: dict[str, str] | None = optional()
    kernel: str | None = optional()
    cpu_frequency: CPUFrequencyFacts | None = optional()
