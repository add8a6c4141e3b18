"""The `multibsp` benchmark of the suite: the tree, g and L of every
component of every level, and the inner-product validation."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _core, _estimate, _validate
from .._errors import OptionError, Skipped
from .._format import format_size, groups_text
from .._memory import safe_memory_limit
from .._protocol import Benchmark, Context, Job
from ..topology import Topology
from ._hmax import HMAX_CEILING
from ._levels import MemoryLevel, level_of_slice, memory_levels
from ._measure import (
    leaf_kernel_rate,
    measure_component,
    measure_empty_run,
    measure_inner_product,
    measure_leaf_rates,
    root_pus,
)
from ._model import (
    BOUND_FROM,
    PREDICTION_BOUND,
    fits_side_by_side,
    predict_inner_product,
    prediction_error,
    rate_by_level,
)
from ._options import MultiBSPOptions
from ._plot import multibsp_figure
from ._records import (
    GLComponent,
    GLLevel,
    HcommSamples,
    InnerProductPoint,
    LeafRateRecord,
    MultiBSPDerived,
    MultiBSPParameters,
    MultiBSPRaw,
    MultiBSPRecord,
)
from ._report import multibsp_disagreements, multibsp_failed_fits, multibsp_headlines, multibsp_meaning
from ._tidy import multibsp_rows
from ._tree import Component, Level, describe, plain_value, tree

UNITS = {"m": "bytes", "g": "flops per word (flops at r: peak_rate; rate in files without it)",
         "L": "flops (at r: peak_rate; rate in files without it)", "rate": "flops/s (DAXPY)",
         "peak_rate": "flop/s (peak of one core, widest FMA, double precision: MultiBSP's r)",
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
    series = [("r = DAXPY", [v.measured_over_predicted for v in points]),
              ("the loop's own rate", [v.measured_over_predicted_kernel_rate for v in points])]
    if all(v.measured_over_predicted_level_rate is not None for v in points):
        series.append(("r per memory level", [v.measured_over_predicted_level_rate for v in points]))
    for label, ratios in series:
        err = prediction_error(n, ratios)
        if err:
            within = "within" if lo_bound <= err[0] and err[1] <= hi_bound else "OUTSIDE"
            parts.append(f"x{err[0]:.2f} to x{err[1]:.2f} with {label} ({within} {lo_bound:g}..{hi_bound:g})")
    if not parts:
        return f"  prediction error: no vector of 2^{BOUND_FROM.bit_length() - 1} doubles or more was measured"
    return f"  prediction error from 2^{BOUND_FROM.bit_length() - 1} doubles: " + "; ".join(parts)


def _measure_gl(c: Component, o: MultiBSPOptions, ticks_per_s: float,
                r: float) -> tuple[GLComponent, HcommSamples]:
    """g and L of one component in flops at r (flop/s), its sweep up to the
    HMAX given for every level, or else up to the one chosen for it from a
    pilot sweep."""
    data = measure_component(c, o.hmax, o.iterations, o.blocks, o.warmup, flops_per_tick=r / ticks_per_s)
    hmax = data["hmax"]
    fits = fits_side_by_side(np.arange(hmax + 1), data["flops"], c.p)
    rate = data["rate_flops_per_tick"] * ticks_per_s
    comp = GLComponent(pus=list(c.pus), p=c.p, m=c.m, memories=[list(x) for x in c.memories], fits=fits,
                       rate=rate.tolist(), flops=data["flops"].tolist(), hmax=hmax)
    samples = HcommSamples(pus=list(c.pus), ticks_per_superstep=data["ticks_per_superstep"],
                           rate_flops_per_tick=data["rate_flops_per_tick"])
    return comp, samples


def _gl_level(lv: Level, comps: list[GLComponent]) -> GLLevel:
    """A level's g and L: the mean over its components, and their spread;
    its HMAX, one value or one per component where they differ."""
    g, L = [x.fits.all.g for x in comps], [x.fits.all.L for x in comps]
    hmax = [x.hmax for x in comps if x.hmax is not None]
    return GLLevel(level=lv.index, p=plain_value(lv.p), m=plain_value(lv.m), homogeneous=lv.homogeneous,
                   g=float(np.mean(g)), L=float(np.mean(L)), g_spread=_spread(g), L_spread=_spread(L),
                   components=comps, hmax=(hmax[0] if len(set(hmax)) == 1 else hmax) if hmax else None)


@dataclass
class _LeafModel:
    """The rates and fixed costs the prediction takes (r per memory level
    measured with every leaf at once; start-up from an empty run)."""
    r: float                          #: flop/s, one core's peak FLOP/s (converts g and L)
    daxpy: float                      #: flop/s, DAXPY: the paper's r of the leaves
    r_loop: float                     #: flops/s, the loop alone on one core, vector in L2
    leaf_rates: list[LeafRateRecord]
    startup_s: float
    sync_s: float
    ticks_per_s: float


def _leaf_model(ctx: Context[MultiBSPOptions], root: Component, r: float, daxpy: float) -> _LeafModel:
    tps = ctx.timer.ticks_per_second
    pus = root_pus(root)
    levels = memory_levels(ctx.topology, pus)
    leaf_rates = [LeafRateRecord(level=x["level"].name, size=x["level"].size, sharing=x["level"].sharing,
                                 slice_doubles=x["slice_doubles"], pus=pus,
                                 rate=(x["rate_flops_per_tick"] * tps).tolist())
                  for x in measure_leaf_rates(levels, pus)]
    empty = measure_empty_run(root, max(ctx.options.reps, 11))
    return _LeafModel(r=r, daxpy=daxpy, r_loop=leaf_kernel_rate(root.child_pus[0]) * tps, leaf_rates=leaf_rates,
                      startup_s=empty["startup_ticks"] / tps, sync_s=empty["sync_ticks"] / tps, ticks_per_s=tps)


def _validate_point(root: Component, n: int, reps: int, gl: dict, model: _LeafModel) -> tuple:
    """One vector length: the inner product measured, predicted three ways
    (leaves at DAXPY's rate as the paper; the loop's single-core rate; r
    per memory level with the start-up; g and L always at r, the rate they
    are counted in), and taken apart (each leaf, the reduction)."""
    tps = model.ticks_per_s
    m = measure_inner_product(root, n, reps)
    predicted = predict_inner_product(root, m["slices"], gl, model.r, model.daxpy)
    predicted_loop = predict_inner_product(root, m["slices"], gl, model.r, model.r_loop)
    predicted_level = predict_inner_product(root, m["slices"], gl, model.r, rate_by_level(model.leaf_rates))
    inside = float(np.median(m["inside_ticks"])) / tps
    total = float(np.median(m["total_ticks"])) / tps
    levels = [MemoryLevel(x.level, x.size, x.sharing) for x in model.leaf_rates]
    point = InnerProductPoint(n=n, predicted_s=predicted, predicted_kernel_rate_s=predicted_loop,
                              measured_s=inside, measured_with_startup_s=total,
                              measured_over_predicted=inside / predicted,
                              measured_over_predicted_kernel_rate=inside / predicted_loop,
                              slice_level=level_of_slice(levels, 8.0 * max(m["slices"].values())).name,
                              predicted_level_rate_s=predicted_level,
                              measured_over_predicted_level_rate=inside / predicted_level,
                              predicted_with_startup_s=predicted_level + model.startup_s,
                              leaf_s=(np.median(m["leaf_ticks"], axis=0) / tps).tolist(),
                              reduce_s=float(np.median(m["reduce_ticks"])) / tps)
    raw = {"n": n, "inside_ticks": m["inside_ticks"], "total_ticks": m["total_ticks"],
           "leaf_ticks": m["leaf_ticks"], "reduce_ticks": m["reduce_ticks"]}
    return point, raw


def _inner_product_lines(d: MultiBSPDerived) -> list:
    """Per vector length: measured, and measured / predicted with each r."""
    level = d.leaf_rates is not None
    loop = f"the loop's own rate {d.inner_product_kernel_rate / 1e9:.2f} Gflop/s"
    lines = [f"  inner product (measured / predicted with r = DAXPY, with {loop} and with r per memory level):"
             if level else f"  inner product (measured / predicted with r = DAXPY, and with {loop}):"]
    for v in d.inner_product:
        by_level = (f"  x{v.measured_over_predicted_level_rate:.2f} ({v.slice_level})"
                    if v.measured_over_predicted_level_rate is not None else "")
        startup = (f", predicted {v.predicted_with_startup_s * 1e6:.0f} us"
                   if v.predicted_with_startup_s is not None else "")
        lines.append(f"    2^{v.n.bit_length() - 1:<3} measured {v.measured_s * 1e6:9.1f} us  "
                     f"x{v.measured_over_predicted:.2f}  x{v.measured_over_predicted_kernel_rate:.2f}{by_level}"
                     f"  (with thread start-up {v.measured_with_startup_s * 1e6:.0f} us{startup})")
    lines.append(_error_line(d.inner_product))
    return lines


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
        hmax = options.hmax or HMAX_CEILING      # per level: at most the ceiling
        with _validate.c_rules({}):          # the h-communication kernel's own rules, named as the options
            _core.hcomm_check(hmax, options.iterations, blocks=options.blocks, warmup=options.warmup)
        _validate.positive_int("reps", options.reps)
        check_buffer(hmax, topology)
        steps = (hmax + 1) * (options.blocks * options.iterations + options.warmup)
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
        # r: one core's peak FLOP/s (a short run of the peakflops kernel),
        # the rate g and L are counted in (docs/multibsp.md, "r").
        from ..flops._measure import peak_rate
        peak, peak_isa = peak_rate(levels[0].components[0].child_pus[0])
        gl_levels, raw_levels, gl, rates = [], [], {}, []
        for lv in levels:
            comps, raw = [], []
            for c in lv.components:
                comp, samples = _measure_gl(c, o, ctx.timer.ticks_per_second, peak)
                gl[c.pus] = (comp.fits.all.g, comp.fits.all.L)
                rates.extend(comp.rate)
                comps.append(comp)
                raw.append(samples)
            gl_levels.append(_gl_level(lv, comps))
            raw_levels.append(raw)
            ctx.progress(f"multibsp: level {lv.index} ({len(lv.components)} component(s), p={lv.p}) measured")
        root = levels[-1].components[0]
        model = _leaf_model(ctx, root, peak, float(np.median(rates)))
        validation, raw_ip = [], []
        for exponent in range(8, o.max_exponent + 1):
            point, raw_point = _validate_point(root, 1 << exponent, o.reps, gl, model)
            validation.append(point)
            raw_ip.append(raw_point)
        ctx.progress("multibsp: inner product validated")

        warnings = [f"level {lv.level}: g differs by {100 * lv.g_spread:.0f}% between components"
                    for lv in gl_levels if lv.g_spread is not None and lv.g_spread > G_SPREAD_WARNING]
        return MultiBSPRecord(
            name=self.name,
            parameters=MultiBSPParameters(hmax=o.hmax, iterations=o.iterations, blocks=o.blocks, warmup=o.warmup,
                                          reps=o.reps, sizes=[v.n for v in validation], pattern=PATTERN),
            raw=MultiBSPRaw(levels=raw_levels, inner_product=raw_ip),
            derived=MultiBSPDerived(tree=[lv.to_record() for lv in levels], notation=describe(levels),
                                    levels=gl_levels, rate=model.daxpy, inner_product_kernel_rate=model.r_loop,
                                    peak_rate=peak, peak_isa=peak_isa,
                                    inner_product=validation, leaf_rates=model.leaf_rates,
                                    startup_s=model.startup_s, sync_s=model.sync_s),
            units=UNITS, warnings=warnings)

    def summary(self, record: MultiBSPRecord) -> list:
        d = record.derived
        tuples = []
        for lv in d.levels:
            p = lv.p if isinstance(lv.p, int) else "/".join(str(x) for x in sorted(set(lv.p)))
            m = lv.m if isinstance(lv.m, int) else max(lv.m)
            tuples.append(f"<p={p}, m={format_size(m)}, g={lv.g:.1f}, L={lv.L:.0f}>")
        daxpy = (f"; DAXPY {d.rate / 1e9:.2f}" if d.peak_rate is not None
                 else ", DAXPY: this file has no peak FLOP/s")
        lines = [f"MultiBSP tree of {record.node or '?'} (g in flops per word, L in flops, r = "
                 f"{d.r / 1e9:.2f} Gflop/s per core{daxpy})", "  [" + ", ".join(tuples) + "]"]
        if d.peak_rate is not None:
            lines.insert(1, f"  r = {d.r_label} of one core; the prediction \"r = DAXPY\" computes the leaves "
                            "at DAXPY's rate, as the paper")
        for lv in d.levels:
            for c in lv.components:
                a, b = c.fits.all, c.fits.h_ge_p
                bsp = (f"g={b.g:.1f} L={b.L:.0f} (rms {b.rms_residual:.0f})" if b else "g=0.0 L=0 (rms 0)")
                hmax = f" (HMAX {c.hmax})" if c.hmax is not None else ""
                lines.append(f"  level {lv.level} PUs {groups_text([c.pus])}{hmax}: all h g={a.g:.1f} L={a.L:.0f} "
                             f"(rms {a.rms_residual:.0f}); h>=p {bsp}")
        if d.leaf_rates:
            rates = ", ".join(f"{x.level} {min(x.rate) / 1e9:.1f}" for x in d.leaf_rates)
            lines.append(f"  the inner product's loop, every thread at once (slowest thread, Gflop/s): {rates}")
        if d.startup_s is not None and d.sync_s is not None:
            lines.append(f"  an empty inner product: start-up and join {d.startup_s * 1e6:.0f} us, "
                         f"supersteps {d.sync_s * 1e6:.2f} us")
        if d.inner_product:
            lines.extend(_inner_product_lines(d))
        return lines

    def plot(self, record: MultiBSPRecord):
        return multibsp_figure(record)

    def meaning(self, record: MultiBSPRecord) -> list:
        return multibsp_meaning(record)

    def disagreements(self, record: MultiBSPRecord) -> list:
        return multibsp_disagreements(record)

    def failed_fits(self, record: MultiBSPRecord) -> list:
        return multibsp_failed_fits(record)

    def headlines(self, record: MultiBSPRecord) -> list:
        return multibsp_headlines(record)

    def tidy(self, record: MultiBSPRecord) -> list:
        return multibsp_rows(record)


BENCHMARK: Benchmark = MultiBSPBenchmark()
