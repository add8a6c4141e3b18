"""The first two steps of the cache analysis (_analysis.estimate_levels):
its settings and inputs checked, and the rises of the curve found (pure
functions of sizes and cycles; no hardware, no MPI)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .. import _validate
from .._errors import InputError, OptionError
from ._probabilistic import DEFAULT_WAYS, POLICIES, FloatArray
from ._rises import DEFAULT_MIN_RISE, DEFAULT_STEP_THRESHOLD, Rise, find_rises, monotone_fit

PLACEMENTS = ("contiguous", "random", "unknown")


@dataclass(frozen=True)
class AnalysisSettings:
    """How estimate_levels reads a sweep; every field is also a keyword of
    estimate_levels. Checked when made: a bad value raises OptionError
    naming the field."""

    page_size: int = 4096                 #: bytes of the base page the page-set model assumes
    #: "contiguous" (every level by its edge), "random" or "unknown" (levels after the first by the page-set model)
    placement: str = "unknown"
    step_threshold: float = DEFAULT_STEP_THRESHOLD   #: a base step rising by more than this share is rising
    min_rise: float = DEFAULT_MIN_RISE    #: a rise climbs by at least this factor
    model: str = "lines"                  #: the page-set miss-rate model (_probabilistic.MODELS)
    selection: str = "simplest"           #: how a page-set fit picks its size (_probabilistic.SELECTIONS)
    policies: tuple[str, ...] = POLICIES  #: replacement policies the page-set model may assume
    #: associativities the page-set model may assume (None: 1 to 64); hwloc's, from the cache benchmark
    ways: tuple[int, ...] | None = None
    line: int = 64                        #: bytes per cache line, for the geometry between capacity bounds
    expected: int | None = None           #: cache levels hwloc reports: fewer rises try the widest as two levels

    def __post_init__(self) -> None:
        _validate.positive_int("page_size", self.page_size)
        if self.placement not in PLACEMENTS:
            raise OptionError("placement", f"must be one of {', '.join(PLACEMENTS)}, got {self.placement!r}")
        if not self.step_threshold > 0:
            raise OptionError("step_threshold", f"must be positive, got {self.step_threshold}")
        if not self.min_rise > 1:
            raise OptionError("min_rise", f"must be above 1, got {self.min_rise}")
        _validate.positive_int("line", self.line)
        if self.expected is not None:
            _validate.positive_int("expected", self.expected)
        if any(int(k) < 1 for k in self.ways or ()):
            raise OptionError("ways", f"must be positive associativities, got {self.fit_ways}")

    @property
    def geometry(self) -> tuple[int, ...]:
        """hwloc's associativities as given (empty: none known): the cache
        geometry a size between capacity bounds is chosen from."""
        return tuple(int(k) for k in self.ways) if self.ways else ()

    @property
    def fit_ways(self) -> tuple[int, ...]:
        """The associativities the page-set fits try, increasing."""
        return tuple(sorted({int(k) for k in self.ways})) if self.ways else DEFAULT_WAYS


@dataclass(frozen=True)
class Curve:
    """A sweep checked for the analysis, with what every step reads of it."""

    sizes: FloatArray             #: bytes, strictly increasing
    cycles: FloatArray            #: ticks per access
    base: npt.NDArray[np.bool_]   #: True for the base grid's sizes (not added by refinement)
    best: FloatArray | None       #: the lowest sample of any pass per size (ticks; NaN where none), if known
    fit: FloatArray               #: monotone fit of the cycles
    edge_fit: FloatArray          #: monotone fit an edge is read off: of the envelope `best` where known
    rises: list[Rise]             #: the rises, found on the base grid (indexes into base_sizes)

    @property
    def base_sizes(self) -> FloatArray:
        """The base grid's sizes (bytes)."""
        return self.sizes[self.base]

    def plateau(self, i: int) -> tuple[int, int]:
        """(first, last) base size of the plateau before rise i (after rise i-1)."""
        base_sizes = self.base_sizes
        first = base_sizes[self.rises[i - 1].end] if i > 0 else base_sizes[0]
        return int(first), int(base_sizes[self.rises[i].start])

    def next_plateau(self, i: int) -> tuple[int, int] | None:
        """(first, last) of the plateau after rise i: the next level's, or
        memory's; None when the curve still rises at the largest size."""
        base_sizes = self.base_sizes
        if i + 1 < len(self.rises):
            return self.plateau(i + 1)
        if self.rises[i].end >= base_sizes.size - 1:
            return None
        return int(base_sizes[self.rises[i].end]), int(base_sizes[-1])


def checked_curve(sizes: npt.ArrayLike, cycles: npt.ArrayLike, refined: npt.ArrayLike | None,
                  best: npt.ArrayLike | None, settings: AnalysisSettings) -> Curve:
    """The inputs of estimate_levels checked (one clear error naming the
    argument), and the rises of their base grid found. The rises are found
    on the base sizes, whose steps the thresholds assume; an edge is read
    off the envelope where there is one (estimate_levels says why)."""
    s = _validate.sweep_array("sizes", sizes)
    c = _validate.sweep_array("cycles", cycles)
    if s.shape != c.shape:
        raise InputError(f"sizes and cycles must have the same length, got {s.size} and {c.size}")
    if s.size < 3:
        raise InputError(f"a sweep needs at least 3 sizes, got {s.size}")
    if np.any(np.diff(s) <= 0):
        raise OptionError("sizes", "must be strictly increasing")
    base = np.ones(s.size, dtype=bool) if refined is None else ~np.asarray(refined, dtype=bool)
    if base.shape != s.shape or base.sum() < 3:
        raise OptionError("refined", "must be a boolean mask like sizes, leaving at least 3 base sizes")
    envelope = None if best is None else np.asarray(best, dtype=float)
    if envelope is not None and envelope.shape != s.shape:
        raise OptionError("best", f"must have one value per size, got {envelope.size} for {s.size} sizes")
    fit = monotone_fit(c)
    edge_fit = fit if envelope is None else monotone_fit(np.where(np.isfinite(envelope), envelope, c))
    rises = find_rises(c[base], settings.step_threshold, settings.min_rise, sizes=s[base])
    return Curve(sizes=s, cycles=c, base=base, best=envelope, fit=fit, edge_fit=edge_fit, rises=rises)
