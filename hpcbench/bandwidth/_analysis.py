"""From a kernel's samples to its bandwidths (pure: tested on synthetic
times with known answers)."""
from __future__ import annotations

import numpy as np

from ._kernels import KERNELS, write_allocate
from ._measure import KernelRun, aggregate_bandwidth
from ._records import KernelBandwidth, RunSamples


def _finite(values: np.ndarray, pick) -> float | None:
    ok = values[np.isfinite(values)]
    return float(pick(ok)) if ok.size else None


def summarize_run(run: KernelRun, labels: list[str]) -> tuple[list[RunSamples], list[KernelBandwidth]]:
    """Per working set (labels: one per size of the run): its samples as
    the record keeps them, and the bandwidth the team delivered (median and
    best sample) with the write-allocate traffic beside it."""
    samples, results = [], []
    k = run.kernel
    for i, label in enumerate(labels):
        rates = aggregate_bandwidth(run.bytes_per_sample[i], run.start_ns[i], run.end_ns[i])
        median = _finite(rates, np.median)
        arr = run.array_bytes[i]
        ratio = write_allocate(k, arr) / (k.reads + k.writes) / arr
        samples.append(RunSamples(kernel=k.name, isa=run.isa, level=label, cores=list(run.pus), array_bytes=arr,
                                  bytes_per_sample=run.bytes_per_sample[i], start_ns=run.start_ns[i],
                                  end_ns=run.end_ns[i]))
        results.append(KernelBandwidth(kernel=k.name, isa=run.isa, nontemporal=k.nontemporal, level=label,
                                       cores=len(run.pus), working_set=k.streams * arr, array_bytes=arr,
                                       bandwidth=median, best=_finite(rates, np.max),
                                       write_allocate=None if median is None else median * ratio))
    return samples, results


def table(results: list[KernelBandwidth]) -> tuple[list[tuple[str, int]], dict]:
    """The results as show's table: the columns (level, cores) in the order
    measured, and {(kernel, isa): {(level, cores): bandwidth}} in KERNELS'
    order, widest ISA first as measured."""
    columns: list[tuple[str, int]] = []
    rows: dict = {}
    order = {name: i for i, name in enumerate(KERNELS)}
    for r in sorted(results, key=lambda r: order.get(r.kernel, len(order))):
        col = (r.level, r.cores)
        if col not in columns:
            columns.append(col)
        rows.setdefault((r.kernel, r.isa), {})[col] = r.bandwidth
    return columns, rows


def widest(results: list[KernelBandwidth]) -> str | None:
    """The ISA of the first result (the benchmark runs the widest first)."""
    return results[0].isa if results else None


#: A result whose best sample is more than this many times its median was disturbed.
SPREAD = 2.0


def spread_warning(results: list[KernelBandwidth]) -> str | None:
    """One warning naming the results whose samples spread more than SPREAD
    (best over median): the core was shared while they ran (another process,
    the hypervisor), so their medians understate the level."""
    bad = [f"{r.kernel} ({r.isa}) {r.level}" + (f" x{r.cores}" if r.cores > 1 else "")
           for r in results if r.bandwidth and r.best and r.best > SPREAD * r.bandwidth]
    if not bad:
        return None
    return (f"bandwidth: the samples of {len(bad)} result(s) spread more than {SPREAD:g}x (best over median), the "
            f"core was shared while they ran: {', '.join(bad[:6])}{', ...' if len(bad) > 6 else ''}; "
            "rerun on an idle node")
