"""The `multibsp` benchmark of the suite: the tree, g and L of every
component of every level, and the inner-product validation."""
from __future__ import annotations

import numpy as np

from .. import _core, _estimate, _validate
from .._errors import OptionError, Skipped
from .._format import format_size, groups_text
from .._memory import safe_memory_limit
from .._protocol import Benchmark, Context, Job
from ..topology import Topology
from ._measure import leaf_kernel_rate, measure_component, measure_inner_product
from ._model import BOUND_FROM, PREDICTION_BOUND, fits_side_by_side, predict_inner_product, prediction_error
from ._options import MultiBSPOptions
from ._plot import multibsp_figure
from ._records import (
    GLComponent,
    GLLevel,
    HcommSamples,
    InnerProductPoint,
    MultiBSPDerived,
    MultiBSPParameters,
    MultiBSPRaw,
    MultiBSPRecord,
)
from ._report import multibsp_disagreements, multibsp_headlines, multibsp_meaning
from ._tidy import multibsp_rows
from ._tree import describe, plain_value, tree

UNITS = {"m": "bytes", "g": "flops per word", "L": "flops", "rate": "flops/s (DAXPY)",
         "inner_product_kernel_rate": "flops/s (the inner product's own loop on one core)",
         "ticks_per_superstep": "TSC ticks", "flops": "flops per superstep", "predicted_s": "s", "measured_s": "s",
         "n": "doubles"}
PATTERN = ("every thread writes h single words cyclically into the other threads' slots of one shared buffer, "
           "then a barrier (one superstep)")
#: g of one level's components may differ by this much before it is reported.
G_SPREAD_WARNING = 0.25
#: Supersteps one component may take: about half an hour at 1 us each.
MAX_SUPERSTEPS = 2e9


def _spread(values: list) -> float | None:
    return float(max(values) / min(values) - 1) if min(values) > 0 else None


def check_buffer(hmax: int, topology: Topology) -> None:
    """The h-communications of a component of p children share one buffer of
    p * p * HMAX doubles: for the widest component of this machine's tree it
    must fit in the memory a benchmark may take."""
    try:
        widest = max(c.p for lv in tree(topology) for c in lv.components)
    except ValueError:          # no tree (one PU): the benchmark is skipped when it runs
        return
    need = widest * widest * hmax * 8
    if need > safe_memory_limit():
        raise OptionError("hmax", f"must keep the buffer of {widest} threads ({widest} x {widest} x HMAX doubles) "
                                  f"within the {format_size(safe_memory_limit())} that may be used now, got {hmax}")


def _error_line(points: list) -> str:
    """The prediction error from BOUND_FROM doubles on, against the bound."""
    lo_bound, hi_bound = PREDICTION_BOUND
    n = [v.n for v in points]
    parts = []
    for label, ratios in (("r = DAXPY", [v.measured_over_predicted for v in points]),
                          ("the loop's own rate", [v.measured_over_predicted_kernel_rate for v in points])):
        err = prediction_error(n, ratios)
        if err:
            within = "within" if lo_bound <= err[0] and err[1] <= hi_bound else "OUTSIDE"
            parts.append(f"x{err[0]:.2f} to x{err[1]:.2f} with {label} ({within} {lo_bound:g}..{hi_bound:g})")
    if not parts:
        return f"  prediction error: no vector of 2^{BOUND_FROM.bit_length() - 1} doubles or more was measured"
    return f"  prediction error from 2^{BOUND_FROM.bit_length() - 1} doubles: " + "; ".join(parts)


class MultiBSPBenchmark(Benchmark[MultiBSPOptions, MultiBSPRecord]):
    """the node's MultiBSP tree with g and L per level, validated by an inner product (MBSPDiscover)

    The tree comes from hwloc; h-communications on pinned threads give g and
    L of every component; an inner product over the whole tree checks the
    prediction (docs/multibsp.md)."""

    name = "multibsp"
    scope = "node"
    options_type = MultiBSPOptions
    record_type = MultiBSPRecord

    def resolve(self, options: MultiBSPOptions, topology: Topology, job: Job) -> MultiBSPOptions:
        with _validate.c_rules({}):          # the h-communication kernel's own rules, named as the options
            _core.hcomm_check(options.hmax, options.iterations, blocks=options.blocks, warmup=options.warmup)
        _validate.positive_int("reps", options.reps)
        check_buffer(options.hmax, topology)
        steps = (options.hmax + 1) * (options.blocks * options.iterations + options.warmup)
        if steps > MAX_SUPERSTEPS:
            raise OptionError("iterations", f"must keep the supersteps of a component ((HMAX + 1) x {options.blocks} "
                                            f"blocks x iterations) within {MAX_SUPERSTEPS:.0e}, about half an hour "
                                            f"at 1 us each; --mbsp-hmax {options.hmax} with {options.iterations} "
                                            f"gives {steps:.2e}")
        vector = 8 << options.max_exponent
        if vector > safe_memory_limit():
            raise OptionError("max_exponent", f"must keep the inner product's vector (8 x 2^E bytes) within the "
                                              f"{format_size(safe_memory_limit())} that may be used now, "
                                              f"got 2^{options.max_exponent} doubles")
        return options

    def estimate(self, options: MultiBSPOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.multibsp_seconds(options, topology)

    def run(self, ctx: Context[MultiBSPOptions]) -> MultiBSPRecord:
        o: MultiBSPOptions = ctx.options
        try:
            levels = tree(ctx.topology)
        except ValueError as e:
            raise Skipped(str(e)) from None
        ticks_per_s = ctx.timer.ticks_per_second
        gl_levels, raw_levels, gl, rates = [], [], {}, []
        for lv in levels:
            comps, raw = [], []
            for c in lv.components:
                data = measure_component(c, o.hmax, o.iterations, o.blocks, o.warmup)
                fits = fits_side_by_side(np.arange(o.hmax + 1), data["flops"], c.p)
                gl[c.pus] = (fits.all.g, fits.all.L)
                rate = data["rate_flops_per_tick"] * ticks_per_s
                rates.extend(rate.tolist())
                comps.append(GLComponent(pus=list(c.pus), p=c.p, m=c.m, memories=[list(x) for x in c.memories],
                                         fits=fits, rate=rate.tolist(), flops=data["flops"].tolist()))
                raw.append(HcommSamples(pus=list(c.pus), ticks_per_superstep=data["ticks_per_superstep"],
                                        rate_flops_per_tick=data["rate_flops_per_tick"]))
            g, L = [x.fits.all.g for x in comps], [x.fits.all.L for x in comps]
            gl_levels.append(GLLevel(level=lv.index, p=plain_value(lv.p), m=plain_value(lv.m),
                                     homogeneous=lv.homogeneous,
                                     g=float(np.mean(g)), L=float(np.mean(L)), g_spread=_spread(g),
                                     L_spread=_spread(L), components=comps))
            raw_levels.append(raw)
            ctx.progress(f"multibsp: level {lv.index} ({len(lv.components)} component(s), p={lv.p}) measured")

        root = levels[-1].components[0]
        r = float(np.median(rates))
        r_leaf = leaf_kernel_rate(root.child_pus[0]) * ticks_per_s
        validation, raw_ip = [], []
        for exponent in range(8, o.max_exponent + 1):
            n = 1 << exponent
            m = measure_inner_product(root, n, o.reps)
            predicted = predict_inner_product(root, m["slices"], gl, r)
            predicted_leaf = predict_inner_product(root, m["slices"], gl, r, r_leaf)
            inside = float(np.median(m["inside_ticks"])) / ticks_per_s
            total = float(np.median(m["total_ticks"])) / ticks_per_s
            validation.append(InnerProductPoint(n=n, predicted_s=predicted, predicted_kernel_rate_s=predicted_leaf,
                                                measured_s=inside, measured_with_startup_s=total,
                                                measured_over_predicted=inside / predicted,
                                                measured_over_predicted_kernel_rate=inside / predicted_leaf))
            raw_ip.append({"n": n, "inside_ticks": m["inside_ticks"], "total_ticks": m["total_ticks"]})
        ctx.progress("multibsp: inner product validated")

        warnings = [f"level {lv.level}: g differs by {100 * lv.g_spread:.0f}% between components"
                    for lv in gl_levels if lv.g_spread is not None and lv.g_spread > G_SPREAD_WARNING]
        return MultiBSPRecord(
            name=self.name,
            parameters=MultiBSPParameters(hmax=o.hmax, iterations=o.iterations, blocks=o.blocks, warmup=o.warmup,
                                          reps=o.reps, sizes=[v.n for v in validation], pattern=PATTERN),
            raw=MultiBSPRaw(levels=raw_levels, inner_product=raw_ip),
            derived=MultiBSPDerived(tree=[lv.to_record() for lv in levels], notation=describe(levels),
                                    levels=gl_levels, rate=r, inner_product_kernel_rate=r_leaf,
                                    inner_product=validation),
            units=UNITS, warnings=warnings)

    def summary(self, record: MultiBSPRecord) -> list:
        d = record.derived
        tuples = []
        for lv in d.levels:
            p = lv.p if isinstance(lv.p, int) else "/".join(str(x) for x in sorted(set(lv.p)))
            m = lv.m if isinstance(lv.m, int) else max(lv.m)
            tuples.append(f"<p={p}, m={format_size(m)}, g={lv.g:.1f}, L={lv.L:.0f}>")
        lines = [f"MultiBSP tree of {record.node or '?'} (g in flops per word, L in flops, r = "
                 f"{d.rate / 1e9:.2f} Gflop/s per core)", "  [" + ", ".join(tuples) + "]"]
        for lv in d.levels:
            for c in lv.components:
                a, b = c.fits.all, c.fits.h_ge_p
                bsp = (f"g={b.g:.1f} L={b.L:.0f} (rms {b.rms_residual:.0f})" if b else "g=0.0 L=0 (rms 0)")
                lines.append(f"  level {lv.level} PUs {groups_text([c.pus])}: all h g={a.g:.1f} L={a.L:.0f} "
                             f"(rms {a.rms_residual:.0f}); h>=p {bsp}")
        if d.inner_product:
            lines.append(f"  inner product (measured / predicted with r = DAXPY, and with the loop's own rate "
                         f"{d.inner_product_kernel_rate / 1e9:.2f} Gflop/s):")
            for v in d.inner_product:
                lines.append(f"    2^{v.n.bit_length() - 1:<3} measured {v.measured_s * 1e6:9.1f} us  "
                             f"x{v.measured_over_predicted:.2f}  x{v.measured_over_predicted_kernel_rate:.2f}"
                             f"  (with thread start-up {v.measured_with_startup_s * 1e6:.0f} us)")
            lines.append(_error_line(d.inner_product))
        return lines

    def plot(self, record: MultiBSPRecord):
        return multibsp_figure(record)

    def meaning(self, record: MultiBSPRecord) -> list:
        return multibsp_meaning(record)

    def disagreements(self, record: MultiBSPRecord) -> list:
        return multibsp_disagreements(record)

    def headlines(self, record: MultiBSPRecord) -> list:
        return multibsp_headlines(record)

    def tidy(self, record: MultiBSPRecord) -> list:
        return multibsp_rows(record)


BENCHMARK: Benchmark = MultiBSPBenchmark()
