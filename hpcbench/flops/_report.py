"""What `show` and `hpcbench report` say about a peakflops record."""
from __future__ import annotations

from .._headline import Headline, finite, sample_tuple
from ._analysis import sample_rates, together_rates
from ._records import FlopsRecord, FlopsRun


def _gf(value: float | None) -> str:
    return "?" if value is None else f"{value / 1e9:.1f} Gflop/s"


def flops_summary(record: FlopsRecord) -> list:
    """The headline, then one line per instruction set and precision."""
    p, d = record.parameters, record.derived
    lines = [f"peak FLOP/s of {record.node or '?'} ({p.chains} FMA chains per core, {p.samples} samples of "
             f"{p.sample_ms:g} ms; scalar steps: {p.scalar_operation})",
             f"  peak, {d.headline_isa} double precision (best sample): {_gf(d.peak_per_core)} per core, "
             f"{_gf(d.peak_node)} with {d.node_cores} cores together"]
    for r in d.rates:
        lines.append(f"  {r.isa:<7} {r.precision:<6} {r.cores:>3} core(s): {r.per_core / 1e9:8.1f} Gflop/s per core "
                     f"(max {r.per_core_max / 1e9:.1f}, spread {100 * r.per_core_spread:.0f}%), together "
                     f"{r.together / 1e9:.1f} (max {r.together_max / 1e9:.1f})"
                     + (f", overlap {r.overlap:.2f}" if r.cores > 1 else ""))
    return lines


def flops_meaning(record: FlopsRecord) -> list:
    """The peak per core and per node, and what each narrower ISA gives up."""
    d = record.derived
    lines = [f"One core computes at most {_gf(d.peak_per_core)} in double precision ({d.headline_isa} FMA), "
             f"the node {_gf(d.peak_node)} with {d.node_cores} cores: a code reaches it only with "
             f"{d.headline_isa} FMAs on data in registers or L1."]
    ones = {(r.isa, r.precision): r.per_core for r in d.rates if r.cores == 1}
    top = ones.get((d.headline_isa, "double"))
    for (isa, precision), rate in ones.items():
        if precision == "double" and isa != d.headline_isa and top:
            lines.append(f"Code compiled for {isa} only reaches {100 * rate / top:.0f}% of that peak per core.")
    return lines


def _isa_words(isa: str) -> str:
    return {"avx512": "AVX-512 FMA", "avx2": "AVX2 FMA", "sse2": "SSE2 multiply-add"}.get(isa, "scalar")


def flops_machine_figures(record: FlopsRecord) -> list:
    """For the report's machine header: the peak of the node and of one core."""
    d = record.derived
    what = f"{_isa_words(d.headline_isa)}, double"
    return [Headline(f"Peak FLOP/s, node ({what})", finite(d.peak_node), "flop/s", "higher"),
            Headline(f"Peak FLOP/s, one core ({what})", finite(d.peak_per_core), "flop/s", "higher")]


def flops_headlines(record: FlopsRecord) -> list:
    """The peak per core and per node (widest ISA, double), and every ISA's 1-core rate."""
    d = record.derived
    widest = max((r.cores for r in d.rates if r.isa == d.headline_isa and r.precision == "double"), default=0)
    out = [Headline("peak per core (double)", finite(d.peak_per_core), "flop/s", "higher",
                    _run_samples(record, d.headline_isa, "double", 1)),
           Headline("peak of the node (double)", finite(d.peak_node), "flop/s", "higher",
                    _run_samples(record, d.headline_isa, "double", widest, together=True))]
    out += [Headline(f"{r.isa} {r.precision}, one core", finite(r.per_core), "flop/s", "higher",
                     _run_samples(record, r.isa, r.precision, 1))
            for r in d.rates if r.cores == 1]
    return out


def _run_samples(record: FlopsRecord, isa: str, precision: str, cores: int,
                 together: bool = False) -> tuple[float, ...] | None:
    """The per-sample rates (flop/s) of the run of `isa`/`precision` on
    `cores` cores: each member's (one core), or the team's together; None
    where the record keeps no such run."""
    run: FlopsRun | None = next((r for r in record.raw.runs
                                 if (r.isa, r.precision, len(r.pus)) == (isa, precision, cores)), None)
    if run is None or cores < 1:
        return None
    try:
        rates = together_rates(run) if together else sample_rates(run).ravel()
    except (TypeError, ValueError):
        return None
    return sample_tuple(rates)
