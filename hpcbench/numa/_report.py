"""What `show` and `hpcbench report` say about a numa record: the matrices
with their ratios, what they mean for placing memory, the contradictions,
and the headline numbers (local bandwidth and latency; the worst
remote/local ratios where there are several nodes)."""
from __future__ import annotations

from .._format import format_size, gigabytes_per_second
from .._headline import Headline, finite
from ._records import Matrix, NumaRecord


def _cell(value: float | None, ratio: float | None, scale: float, digits: int, hwloc: float | None = None) -> str:
    if value is None:
        return "-"
    extra = f", hwloc {hwloc:.1f}" if hwloc is not None else ""
    return f"{value / scale:.{digits}f}" + (f" ({ratio:.2f}{extra})" if ratio is not None else "")


def _table(record: NumaRecord, values: Matrix, ratios: Matrix, scale: float, digits: int,
           hwloc: Matrix | None = None) -> list:
    """Rows: cores of node i; columns: memory of node j; each column as wide as its widest cell."""
    d = record.derived
    cells = [[_cell(values[r][c], ratios[r][c], scale, digits, hwloc[r][c] if hwloc else None)
              for c in range(len(d.cols))] for r in range(len(d.rows))]
    width = max([len(f"node {j}") for j in d.cols] + [len(x) for row in cells for x in row]) + 2
    lines = ["    cores \\ memory" + "".join(f"node {j}".rjust(width) for j in d.cols)]
    lines += [f"    node {i}".ljust(18) + "".join(x.rjust(width) for x in row) for i, row in zip(d.rows, cells)]
    return lines


def _pages(record: NumaRecord) -> str:
    cells = record.raw.cells
    checked = sum(c.location_chunks for c in cells)
    strict = "strict" if all(c.strict for c in cells) else "not strict on this system"
    if not record.derived.pages_checked:
        return f"  pages: hwloc cannot tell where they are here (binding {strict})"
    where = "all where bound" if not record.derived.pages_misplaced else \
        f"{record.derived.pages_misplaced} chunk(s) elsewhere"
    return f"  pages: {where} ({checked} chunks read back with hwloc), binding {strict}"


def numa_summary(record: NumaRecord) -> list:
    """The lines `show` prints: the one local figure, or both matrices with ratios."""
    p, d = record.parameters, record.derived
    chased = f", chase over its first {format_size(p.chase_bytes)}" if p.chase_bytes not in (None, p.buffer_bytes) \
        else ""
    lines = [f"numa on {record.node or '?'} (buffer of {format_size(p.buffer_bytes)} bound with hwloc{chased}, "
             f"{p.repetitions} reads and chase samples per pair, loads {p.isa})"]
    if len(d.cols) == 1 and d.rows:
        readers = len(record.raw.cells[0].readers) if record.raw.cells else 0
        lines.append(f"  one NUMA node ({d.cols[0]}): local read {gigabytes_per_second(d.local_bandwidth or 0)} "
                     f"by {readers} core(s), load latency {d.local_latency_ns or 0:.1f} ns; no remote memory here")
    else:
        hwloc = " and hwloc's relative distance" if d.hwloc_ratio else ""
        lines.append("  read bandwidth, GB/s of the row's cores together (ratio to local)")
        lines += _table(record, d.bandwidth, d.bandwidth_ratio, 1e9, 1)
        lines.append(f"  load latency, ns (ratio to local{hwloc})")
        lines += _table(record, d.latency_ns, d.latency_ratio, 1.0, 1, d.hwloc_ratio)
        worst = ""
        if d.worst_bandwidth_ratio is not None and d.worst_latency_ratio is not None:
            worst = (f"; worst remote/local: bandwidth {d.worst_bandwidth_ratio:.2f}x, "
                     f"latency {d.worst_latency_ratio:.2f}x")
        lines.append(f"  local (mean of the diagonal): {gigabytes_per_second(d.local_bandwidth or 0)}, "
                     f"{d.local_latency_ns or 0:.1f} ns{worst}")
    lines.append(_pages(record))
    return lines


def numa_meaning(record: NumaRecord) -> list:
    """Local figures, and what remote memory costs."""
    d = record.derived
    lines = [f"Cores reading their own node's memory get {gigabytes_per_second(d.local_bandwidth or 0)} per node "
             f"together; one load that misses every cache takes {d.local_latency_ns or 0:.0f} ns."]
    if len(d.cols) == 1:
        lines.append("This machine has one NUMA node (or one was chosen): all memory is local, placement of "
                     "memory does not matter here.")
    elif d.worst_bandwidth_ratio is not None and d.worst_latency_ratio is not None:
        lines.append(f"The farthest memory delivers {100 * d.worst_bandwidth_ratio:.0f}% of the local bandwidth "
                     f"and takes {d.worst_latency_ratio:.1f}x the local latency: keep each process's data on its own "
                     "node (first touch by the process that uses it, or numactl --membind).")
    return lines


def numa_disagreements(record: NumaRecord) -> list:
    """Remote faster than local and orders against hwloc's distances (the
    analysis's words, kept among the warnings), and pages not where bound."""
    out = [w for w in record.warnings or [] if w.startswith("cores of node")]
    if record.derived.pages_misplaced:
        out.append(f"{record.derived.pages_misplaced} chunk(s) of the bound buffers had pages on another node "
                   "than bound: those cells measured other memory than they say")
    return out


def numa_headlines(record: NumaRecord) -> list:
    """Local read bandwidth and latency; the worst remote/local ratios with several nodes."""
    d = record.derived
    out = [Headline("local read bandwidth", finite(d.local_bandwidth), "bytes/s", "higher"),
           Headline("local load latency", None if d.local_latency_ns is None else finite(d.local_latency_ns * 1e-9),
                    "s", "lower")]
    if d.worst_bandwidth_ratio is not None:
        out.append(Headline("worst remote/local bandwidth", finite(d.worst_bandwidth_ratio), "ratio", "higher"))
    if d.worst_latency_ratio is not None:
        out.append(Headline("worst remote/local latency", finite(d.worst_latency_ratio), "ratio", "lower"))
    return out
