"""The record the numa benchmark writes (see hpcbench._record)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._outliers import Outliers
from .._record import Count, Mapping, One, Record, optional, required

#: A matrix of a record: rows = nodes whose cores ran, columns = nodes whose memory they used; None = not measured.
Matrix = list[list[float | None]]


@dataclass(kw_only=True)
class NumaParameters(Mapping):
    """How the cells ran: the chosen nodes, the buffer (bytes), reads and
    chase samples per cell, loads per chase sample, page kind, the chase's
    order and window (bytes), the read loop's instruction set, the kernel,
    and the bytes chased (the buffer's first; absent: all of it)."""
    nodes: list[int]
    buffer_bytes: One
    repetitions: One
    accesses: One
    pages: str
    order: str
    window_bytes: One
    isa: str
    seed: int
    kernel: str
    chase_bytes: One | None = optional()


@dataclass(kw_only=True)
class NumaCell(Mapping):
    """One cell: the cores of node `cpu_node` (readers; chaser the one that
    chased) on a buffer bound to node `memory_node`. Raw samples: each
    read's aggregate bandwidth (bytes/s) and each chase sample (ns per
    load); where hwloc found the pages (chunks read back, chunks with a page
    elsewhere; 0 chunks: the system cannot tell) and whether the binding
    was strict."""
    cpu_node: Count
    memory_node: Count
    readers: list[int]
    chaser: Count
    bytes_per_read: One
    bandwidth: Any                  #: (repetitions,) bytes/s, all readers together
    latency_ns: Any                 #: (repetitions,) ns per dependent load
    strict: bool
    location_chunks: Count
    misplaced_chunks: Count


@dataclass(kw_only=True)
class NumaRaw(Mapping):
    """Every cell measured, rows first."""
    cells: list[NumaCell]


@dataclass(kw_only=True)
class NumaDerived(Mapping):
    """The matrices (best bytes/s read by a row's cores together over the
    repetitions; lowest ns per load of one of them over the samples), remote/local ratios within each row, the
    local figures (mean of the diagonal), the worst remote/local ratios
    (absent with one node), hwloc's relative distances beside them (absent
    where hwloc has none), and whether every cell's pages were where bound."""
    rows: list[int]
    cols: list[int]
    bandwidth: Matrix
    latency_ns: Matrix
    bandwidth_ratio: Matrix
    latency_ratio: Matrix
    local_bandwidth: float | None
    local_latency_ns: float | None
    worst_bandwidth_ratio: float | None = optional()
    worst_latency_ratio: float | None = optional()
    hwloc_ratio: Matrix | None = optional()
    pages_checked: bool
    pages_misplaced: Count
    outliers: Outliers | None = optional()


@dataclass(kw_only=True)
class NumaRecord(Record):
    """The `numa` benchmark's record: the NUMA local/remote matrix of read
    bandwidth and load latency."""
    parameters: NumaParameters = required()
    raw: NumaRaw = required()
    derived: NumaDerived = required()
