"""The `peakflops` benchmark of the suite: peak FLOP/s of FMA chains per
instruction set and precision, on one core and on all the cores at once."""
from __future__ import annotations

import dataclasses

from .. import _estimate
from .._errors import OptionError
from .._outliers import find_outliers
from .._protocol import Benchmark, Context, Job
from ..topology import Topology
from ._analysis import headline, overlap_warning, run_rate, sample_rates
from ._isa import cpu_isas, isas_to_run, precisions_to_run, scalar_operation, widest
from ._measure import check_flops, flops_run
from ._options import FlopsOptions
from ._plot import flops_figure
from ._records import FlopsDerived, FlopsParameters, FlopsRaw, FlopsRecord
from ._report import flops_headlines, flops_machine_figures, flops_meaning, flops_summary
from ._tidy import flops_rows

UNITS = {"per_core": "flop/s", "per_core_max": "flop/s", "together": "flop/s, all cores' flops over the slowest "
         "core's time in the sample", "together_max": "flop/s",
         "overlap": "share of the slowest core's time in which every core ran its sample",
         "peak_per_core": "flop/s", "peak_node": "flop/s",
         "per_core_spread": "(max - min) / median of the per-sample rates", "ns": "ns per sample",
         "start_ns": "ns after the run's first start", "end_ns": "ns after the run's first start",
         "flops_per_sample": "flops of one core's sample (2 per FMA lane, 2 per multiply-add lane)",
         "sample_ms": "ms"}
KERNEL = ("independent chains x = x * a + b on registers, one vector register each; FMA (AVX-512, AVX2), "
          "multiply then add (SSE2), scalar as scalar_operation says; 2 flops per lane per step")


def check_cores(topology: Topology, cores: list | None) -> list[int]:
    """The PUs of the all-cores run: PUs this process may use, none twice;
    every such PU by default."""
    allowed = sorted(topology.pu_indexes)
    pus = allowed if cores is None else [int(p) for p in cores]
    unknown = [p for p in pus if p not in allowed]
    if unknown:
        raise OptionError("cores", f"must be PUs this process may use ({allowed[0]}-{allowed[-1]}); "
                                   f"{unknown[0]} is not one")
    if len(set(pus)) != len(pus):
        raise OptionError("cores", "must not list a PU twice")
    if not pus:
        raise OptionError("cores", "must hold at least one PU")
    return pus


class FlopsBenchmark(Benchmark[FlopsOptions, FlopsRecord]):
    """peak FLOP/s per core and per node: FMA throughput of each instruction set, double and single precision

    Independent FMA chains on registers, on one core and on every core at
    once, for each instruction set the CPU runs (AVX-512, AVX2, SSE2,
    scalar), as likwid-bench's peakflops kernels measure it (docs/flops.md)."""

    name = "peakflops"
    scope = "node"
    options_type = FlopsOptions
    record_type = FlopsRecord

    def resolve(self, options: FlopsOptions, topology: Topology, job: Job) -> FlopsOptions:
        isas_to_run(options.isa, cpu_isas())
        check_flops(options.samples, options.chains)
        return dataclasses.replace(options, cores=check_cores(topology, options.cores))

    def estimate(self, options: FlopsOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.flops_seconds(options, topology)

    def run(self, ctx: Context[FlopsOptions]) -> FlopsRecord:
        o = ctx.options
        have = cpu_isas()
        isas, precisions = isas_to_run(o.isa, have), precisions_to_run(o.precision)
        pus = check_cores(ctx.topology, o.cores)
        teams = [pus[:1]] + ([pus] if len(pus) > 1 else [])
        runs, scalar_fma = [], False
        for isa in isas:
            for precision in precisions:
                for team in teams:
                    run, scalar_fma = flops_run(team, isa, precision, o.samples, o.sample_ms, o.chains)
                    runs.append(run)
            ctx.progress(f"peakflops: {isa} measured")
        rates = [run_rate(r) for r in runs]
        top = widest(isas)
        one, node, cores = headline(rates, top)
        outliers = find_outliers([sample_rates(r) for r in runs], slower="lower")
        warnings = [w for w in (outliers.warning("peakflops", unit="flop/s"), overlap_warning(rates)) if w]
        return FlopsRecord(
            name=self.name,
            parameters=FlopsParameters(isas=isas, precisions=precisions, pus=pus, samples=o.samples,
                                       sample_ms=o.sample_ms, chains=o.chains,
                                       scalar_operation=scalar_operation(scalar_fma), kernel=KERNEL),
            raw=FlopsRaw(runs=runs),
            derived=FlopsDerived(rates=rates, headline_isa=top, peak_per_core=one, peak_node=node,
                                 node_cores=cores, outliers=outliers),
            units=UNITS, warnings=warnings)

    def summary(self, record: FlopsRecord) -> list:
        return flops_summary(record)

    def plot(self, record: FlopsRecord):
        return flops_figure(record)

    def meaning(self, record: FlopsRecord) -> list:
        return flops_meaning(record)

    def headlines(self, record: FlopsRecord) -> list:
        return flops_headlines(record)

    def machine_figures(self, record: FlopsRecord) -> list:
        return flops_machine_figures(record)

    def tidy(self, record: FlopsRecord) -> list:
        return flops_rows(record)


BENCHMARK: Benchmark = FlopsBenchmark()
