"""The `shared-caches` benchmark of the suite: which cores share each cache.

Needs the cache levels and the single-core curve: taken from the `cache`
benchmark of the same run when it ran on this node, measured here otherwise
(with the run's cache options).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import _estimate, _validate
from .._format import format_size, groups_text
from .._protocol import Benchmark, Context, Job
from .._tidy import Row
from ..topology import Topology, plan_pairs
from ..topology._pairs import require_two_pus
from ._compare import judge
from ._levels import sweep_levels
from ._measure import measure
from ._options import CacheOptions, SharedOptions
from ._plot import shared_figure
from ._records import CacheRecord, CorunSamples, SharedCachesRecord, SharedDerived, SharedParameters, SharedRaw
from ._report import shared_disagreements, shared_headlines, shared_meaning
from ._shared import analyze_shared_caches, choose_corun_size, co_run_ratio
from ._shared_measure import CoRunSettings, measure_co_runs
from ._tidy import shared_rows

if TYPE_CHECKING:          # for the annotations only: the CLI's start-up imports none of them
    from matplotlib.figure import Figure

    from .._headline import Headline

UNITS = {"cache_size": "bytes", "corun_size": "bytes per core", "alone": "TSC ticks per access",
         "together": "TSC ticks per access", "ratio": "co-run time / alone time"}


@dataclass
class LevelBasis:
    """What the co-runs need from a single-core sweep."""
    levels: list[tuple[int, int, int | None]]  #: (level, size in bytes, onset in bytes or None)
    sizes: np.ndarray       #: bytes
    cycles: np.ndarray      #: ticks per access
    stride: int
    order: str
    pages: str
    window: int
    source: str


def basis_from_record(record: CacheRecord) -> LevelBasis:
    """The levels of a cache record that are caches hwloc knows (or all, for
    a machine without hwloc caches), at their measured sizes: an effective
    capacity is what a co-run can use now. Steps hwloc has no cache for (a
    TLB's reach) are left out."""
    p = record.parameters
    kept = [lv for lv in record.derived.levels if lv.status != "flagged" or lv.hwloc_size is not None]
    return LevelBasis([(lv.level, lv.size, lv.onset) for lv in kept],
                      np.asarray(record.raw.sizes, dtype=float),
                      np.asarray(record.derived.cycles_per_access, dtype=float),
                      p.stride, p.order, p.pages, p.window, "cache benchmark of this run")


def basis_from_sweep(topology: Topology, pu: int, progress: Callable[[str], None],
                     cache_options: CacheOptions) -> LevelBasis:
    """The cache sweep (with the run's cache options, on `pu` where they
    name none), when this run has none."""
    progress("shared-caches: no cache results in this run, measuring cache levels first")
    sweep = (measure(cache_options, topology=topology, progress=progress) if cache_options.pu is not None
             else measure(cache_options, topology=topology, progress=progress, pu=pu))
    hw = topology.data_caches_of(sweep.parameters["pu"])
    levels = sweep_levels(sweep, hw)
    verdicts, _ = judge([lv.size for lv in levels], hw)
    kept = [(v.number, lv.size, lv.onset) for lv, v in zip(levels, verdicts)
            if v.status != "flagged" or v.hwloc_size is not None]
    p = sweep.parameters
    return LevelBasis(kept, sweep.sizes.astype(float), sweep.cycles,
                      p["stride"], p["order"], p["pages"], p["window"], "cache sweep run by shared-caches")


class SharedCachesBenchmark(Benchmark[SharedOptions, SharedCachesRecord]):
    """which cores share each cache level, by co-runs (Servet III-B)

    Each tested pair of cores traverses two arrays at once, sized to fit one
    level; a shared cache shows as the pair running slower than its cores
    alone (docs/node.md)."""

    name = "shared-caches"
    scope = "node"
    group = "shared-caches benchmark (pairs of cores)"
    options_type = SharedOptions
    record_type = SharedCachesRecord
    uses = ("cache",)       # the cache sweep, when this run has no cache record

    def resolve(self, options: SharedOptions, topology: Topology, job: Job) -> SharedOptions:
        _validate.positive_int("samples", options.samples)
        if options.cores is not None or len(topology.pu_indexes) >= 2:   # else: skipped when it runs
            plan_pairs(topology, options.cores, options.pairs, options.sample, options.seed)
        return options

    def estimate(self, options: SharedOptions, topology: Topology, job: Job = Job()) -> float:
        return _estimate.shared_seconds(options, topology)

    def run(self, ctx: Context[SharedOptions]) -> SharedCachesRecord:
        o: SharedOptions = ctx.options
        require_two_pus(ctx.topology, o.cores)
        plan = plan_pairs(ctx.topology, o.cores, o.pairs, o.sample, o.seed)
        cache = ctx.earlier.get("cache")
        basis = basis_from_record(cache) if cache else basis_from_sweep(
            ctx.topology, plan.pus[0], ctx.progress, ctx.run_options.get("cache", CacheOptions()))
        if not basis.levels:
            raise ValueError("the cache benchmark found no cache level to test")

        levels, raw, warnings = [], [], []
        for i, (number, cache_size, onset) in enumerate(basis.levels):
            size, expected = choose_corun_size(cache_size, onset, basis.stride, basis.sizes, basis.cycles)
            label = f"shared-caches L{number} ({len(plan.tested)} pairs, {format_size(size)} each): "
            settings = CoRunSettings(stride=basis.stride, order=basis.order, window=basis.window, pages=basis.pages,
                                     samples=o.samples, rounds=o.rounds, seed=o.seed + 1000 * i)
            data = measure_co_runs(plan, size, settings, progress=ctx.progress, label=label)
            ratios = {p: co_run_ratio(data["alone"][k], data["together"][k]) for k, p in enumerate(data["pairs"])}
            result = analyze_shared_caches(number, cache_size, size, ratios, plan, ctx.topology,
                                           threshold=o.threshold, expected_ratio=expected)
            levels.append(result)
            raw.append(CorunSamples(level=number, pairs=[list(p) for p in data["pairs"]], alone=data["alone"],
                                    together=data["together"]))
            if not result.decidable:
                warnings.append(f"L{number}: one core with twice the co-run array is only x{expected:.2f} slower, "
                                "too little to tell a shared cache from noise; no verdict")
            warnings.extend(result.disagreements)

        return SharedCachesRecord(
            name=self.name,
            parameters=SharedParameters(pair_mode=o.pairs, pus=plan.pus, sample=o.sample, rounds=o.rounds,
                                        samples=o.samples, threshold_requested=o.threshold, seed=o.seed,
                                        stride=basis.stride, order=basis.order, pages=basis.pages,
                                        window=basis.window, levels_from=basis.source),
            raw=SharedRaw(levels=raw, single_core_sizes=basis.sizes.tolist(),
                          single_core_cycles=basis.cycles.tolist()),
            derived=SharedDerived(plan=plan.to_record(), levels=levels),
            units=UNITS, warnings=warnings)

    def summary(self, record: SharedCachesRecord) -> list[str]:
        p, d = record.parameters, record.derived
        lines = [f"shared caches on {record.node or '?'} ({p.pair_mode} pairs: {len(d.plan.tested)} of "
                 f"{d.plan.all_pairs} tested; levels from {p.levels_from})",
                 f"  {'level':<6}{'co-run':>11}{'threshold':>11}  {'sharing groups (measured)':<28}hwloc"]
        for lv in d.levels:
            measured = groups_text(lv.groups) if lv.decidable else "undecidable"
            flag = "" if not lv.decidable or lv.groups == lv.hwloc_groups else "  DISAGREES"
            lines.append(f"  L{lv.level:<5}{format_size(lv.corun_size):>11}{lv.threshold:>11.2f}  "
                         f"{measured:<28}{groups_text(lv.hwloc_groups)}{flag}")
            ratios = ", ".join(f"{r.pair[0]}-{r.pair[1]}: {r.ratio:.2f}" for r in lv.ratios[:6])
            more = len(lv.ratios) - 6
            lines.append(f"        ratios {ratios}{f' (+{more} more)' if more > 0 else ''}")
        return lines

    def plot(self, record: SharedCachesRecord) -> Figure:
        return shared_figure(record)

    def meaning(self, record: SharedCachesRecord) -> list[str]:
        return shared_meaning(record)

    def disagreements(self, record: SharedCachesRecord) -> list[str]:
        return shared_disagreements(record)

    def headlines(self, record: SharedCachesRecord) -> list[Headline]:
        return shared_headlines(record)

    def tidy(self, record: SharedCachesRecord) -> list[Row]:
        return shared_rows(record)


SHARED_BENCHMARK: Benchmark[SharedOptions, SharedCachesRecord] = SharedCachesBenchmark()
