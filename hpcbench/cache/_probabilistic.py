"""Servet's probabilistic cache-size algorithm (Servet 2010, Fig. 3).

A physically indexed, K-way cache of CS bytes with pages of PS bytes has
CS / (K * PS) page sets: groups of sets that one page can map to. If the OS
places virtual pages on physical pages at random, the number X of the NP
traversed pages that land in one page set follows B(NP, K * PS / CS), and
P(X > K) is the expected miss rate. For every candidate (CS, K) the measured
miss rates are compared with that prediction; the size is the statistical
mode of CS among the five candidates with the smallest divergence.

Pure NumPy: no hardware, no MPI.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .._errors import InputError, OptionError

FloatArray = npt.NDArray[np.float64]

#: Associativities tried. Real caches use 1-24, 32 and a few larger values.
DEFAULT_WAYS = tuple(range(1, 25)) + (28, 32, 48, 64)

#: Candidate sizes per octave: 128 steps, so 1.25 MiB, 35.75 MiB, 9 MiB and
#: every other size with at most seven significant bits is a candidate.
STEPS_PER_OCTAVE = 128


@dataclass(frozen=True)
class ProbabilisticFit:
    """Outcome of the probabilistic algorithm on one range of sizes."""

    size: int                 #: estimated cache size, bytes
    ways: int                 #: associativity of the best candidate of that size
    divergence: float         #: sum |MR - P(X > K)| of that candidate
    best: tuple[tuple[int, int, float], ...]  #: the five best (size, ways, divergence), best first
    policy: str = "lru"       #: replacement policy of the best candidate of that size
    placement: str = "random"  #: page placement the fit assumed ("random" or "even")


def candidate_sizes(low: float, high: float, granule: int = 1024) -> np.ndarray:
    """Candidate cache sizes in [low, high] (bytes): 128 steps per octave.

    Within the octave [2**e, 2**(e+1)) the step is 2**e / 128, never below
    `granule` bytes.
    """
    if not (0 < low <= high):
        raise ValueError(f"candidate range must satisfy 0 < low <= high, got {low}..{high}")
    sizes: list[int] = []
    e = int(np.floor(np.log2(low)))
    while 2.0 ** e <= high:
        base = 2 ** e
        step = max(granule, base // STEPS_PER_OCTAVE)
        sizes.extend(range(base, 2 * base, step))
        e += 1
    arr = np.array(sorted(set(sizes)), dtype=np.int64)
    return arr[(arr >= low) & (arr <= high)]


def binomial_tail(n: npt.ArrayLike, p: npt.ArrayLike, k: npt.ArrayLike) -> np.ndarray:
    """P(X > k) for X ~ B(n, p), elementwise with broadcasting (SciPy's
    survival function, accurate for the large n and small p here). n is a
    count of pages: a fractional count (an array ending inside a page) means
    the pages it touches, rounded up."""
    from scipy.stats import binom  # here, not at import: scipy.stats costs every command 0.6 s to start
    n = np.ceil(np.asarray(n, dtype=float) - 1e-9)
    return np.asarray(binom.sf(np.asarray(k), np.maximum(n, 0), np.clip(np.asarray(p, dtype=float), 0.0, 1.0)),
                      dtype=float)


def miss_rates(cycles: np.ndarray) -> np.ndarray:
    """Miss rate per size from cycles per access (Fig. 3, first loop)."""
    c: FloatArray = np.asarray(cycles, dtype=float)
    hit_time = float(c.min())
    miss_overhead = float(c.max()) - hit_time
    if miss_overhead <= 0:
        return np.zeros_like(c)
    return (c - hit_time) / miss_overhead


#: Miss-rate models: "paper" is P(X > K), the probability that a page set
#: overflows, as printed in Fig. 3; "lines" is the expected fraction of lines
#: that sit in an overflowing set, which is the miss rate of a cyclic
#: traversal (every line of a page set with X pages lies in a set holding X
#: lines; a line is in such a set with probability proportional to X, so
#: X' = 1 + B(NP-1, p)) under the set's replacement policy (POLICIES).
MODELS = ("lines", "paper")
#: Replacement policies of the "lines" model: "lru" (a set holding x > K
#: lines misses on all of them every round: LRU, and tree pseudo-LRU, which
#: thrashes the same way on a cyclic traversal), "random" (a random victim:
#: some lines survive a round; see random_replacement_miss_rate).
POLICIES = ("lru", "random")
#: Random replacement: the miss rate of a set holding more than this many
#: times K lines is taken as 1 (it is above 0.98 there).
RANDOM_TAIL = 4


def random_replacement_miss_rate(lines: npt.ArrayLike, ways: npt.ArrayLike) -> np.ndarray:
    """Steady-state miss rate m of a K-way set with random replacement,
    traversed cyclically over x distinct lines (elementwise; 0 for x <= K).

    A line survives until its next use if none of the misses in between
    evicts it: each miss evicts it with probability 1/K, and about
    (x - 1/2) m misses fall in between, so 1 - m = (1 - 1/K)^((x - 1/2) m),
    a mean-field fixed point solved here by Newton's method from m = 1.
    Counting x - 1 misses (the other lines) underestimates m, because
    misses come in runs (an eviction makes the next miss likelier); x
    overestimates it; x - 1/2 matches an access-by-access simulation within
    0.01 for K = 8 and 16 and x from K + 1 to 3K (tests/test_cachesim.py)."""
    x = np.asarray(lines, dtype=float)
    k = np.asarray(ways, dtype=float)
    x, k = np.broadcast_arrays(x, k)
    c = -np.log1p(-1.0 / np.maximum(k, 1.0 + 1e-12)) * (x - 0.5)   # 1 - m = exp(-c m)
    m = np.ones_like(c)
    for _ in range(40):
        f = m - 1.0 + np.exp(-c * m)
        m = np.clip(m - f / (1.0 - c * np.exp(-c * m)), 0.0, 1.0)
    return np.where((x > k) & (k > 1), m, np.where(x > k, 1.0, 0.0))


def binomial_pmf_run(first: int, count: int, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """P(X = k) for X ~ B(n, p) and k = first, ..., first + count - 1: an
    array (n.size, count) for 1-D n and p. The first column from the
    log-gamma form, the others by the ratio P(k + 1) / P(k) = (n - k) p /
    ((k + 1)(1 - p)). SciPy's binom.pmf gives the same to 1e-10 but took 3
    of the 7 s a cache sweep's analysis took (hundreds of thousands of terms
    per page-set fit); the ratio costs a multiplication per term. A column
    below the smallest double stays 0 after it: such terms are far from
    the binomial's mass, and their neighbours within `count` negligible."""
    from scipy.special import gammaln, xlog1py, xlogy
    n, p = np.asarray(n, dtype=float), np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    k = float(first)
    log = gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(np.maximum(n - k, 0.0) + 1.0) + xlogy(k, p) + \
        xlog1py(np.maximum(n - k, 0.0), -p)
    out = np.empty((n.size, count))
    out[:, 0] = np.where(k <= n, np.exp(log), 0.0)
    certain = p >= 1.0
    odds = p / np.where(certain, 1.0, 1.0 - p)
    for j in range(1, count):
        kj = k + j - 1.0
        out[:, j] = out[:, j - 1] * np.maximum(n - kj, 0.0) / (kj + 1.0) * odds
    if certain.any():                 # B(n, 1) is n for sure
        out[certain] = (np.arange(count)[None, :] + k == n[certain, None]).astype(float)
    return out


def _random_policy_rate(pages: np.ndarray, p: np.ndarray, ways: np.ndarray) -> np.ndarray:
    """The "lines" model under random replacement: E[m(X', K)] with
    X' = 1 + B(NP-1, p), summed over X' in (K, RANDOM_TAIL * K] and the
    tail beyond taken as misses. Arguments broadcast together."""
    from scipy.stats import binom  # see binomial_tail
    n, pc, k = np.broadcast_arrays(np.ceil(np.maximum(pages - 1.0, 0.0) - 1e-9), np.clip(p, 0.0, 1.0), ways)
    n, pc, k = n.ravel(), pc.ravel(), k.ravel()
    out = np.empty(n.size)
    for ways_k in np.unique(k):        # one associativity at a time: x runs over (K, RANDOM_TAIL * K]
        sel = k == ways_k
        xs = np.arange(int(ways_k) + 1, RANDOM_TAIL * int(ways_k) + 1, dtype=float)
        m = random_replacement_miss_rate(xs, ways_k)
        nn, pp = n[sel], pc[sel]
        out[sel] = (binomial_pmf_run(int(ways_k), xs.size, nn, pp) * m).sum(axis=1) + \
            binom.sf(RANDOM_TAIL * ways_k - 1.0, nn, pp)
    return out.reshape(np.broadcast_shapes(pages.shape, p.shape, ways.shape))


#: Page placements the "lines" model can assume: "random" (pages in page sets
#: at random: the binomial) or "even" (evenly coloured pages: every page set
#: holds NP * p pages, as with huge pages or consecutive frames).
PLACEMENTS = ("random", "even")


def _even_rate(pages: np.ndarray, p: np.ndarray, ways: np.ndarray, policy: str) -> np.ndarray:
    """The "lines" model with evenly coloured pages: x = NP * p lines per
    set, that is floor(x) in some sets and floor(x) + 1 in the others, in
    the proportions that give the mean; each line misses at its set's rate
    (LRU: all of them once the set overflows)."""
    x = np.asarray(pages, dtype=float) * np.asarray(p, dtype=float)
    k = np.asarray(ways, dtype=float)
    x, k = np.broadcast_arrays(x, k)
    low = np.floor(x)
    high_share = x - low                          # share of sets holding low + 1 lines
    lines_high = np.where(x > 0, high_share * (low + 1) / np.maximum(x, 1e-300), 0.0)

    def rate(n: np.ndarray) -> np.ndarray:
        return (n > k).astype(float) if policy == "lru" else random_replacement_miss_rate(n, k)

    out: FloatArray = (1.0 - lines_high) * rate(low) + lines_high * rate(low + 1)
    return out


def predicted_miss_rate(pages: npt.ArrayLike, p: npt.ArrayLike, ways: npt.ArrayLike,
                        model: str = "lines", policy: str = "lru", placement: str = "random") -> np.ndarray:
    """Expected miss rate for NP = `pages` pages, page-set probability p."""
    if placement not in PLACEMENTS:
        raise ValueError(f"placement must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
    if placement == "even" and model == "lines":
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
        return _even_rate(np.asarray(pages, dtype=float), np.asarray(p, dtype=float), np.asarray(ways), policy)
    if model == "paper":
        return binomial_tail(pages, p, ways)
    if model != "lines":
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    if policy == "lru":
        return binomial_tail(np.maximum(np.asarray(pages, dtype=float) - 1.0, 0.0), p,
                             np.asarray(ways) - 1)
    if policy == "random":
        return _random_policy_rate(np.asarray(pages, dtype=float), np.asarray(p, dtype=float),
                                   np.asarray(ways))
    raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")


#: How the size is chosen from the divergences. "mode": the statistical mode
#: of CS over the five candidates with the lowest divergence (the paper).
#: "simplest": among the sizes whose best divergence is within `tolerance` of
#: the overall best, the one with the fewest significant bits. A sweep with
#: 1 MiB steps cannot tell 2.00 MiB from 2.03 MiB; the fine candidate grid
#: (needed for 1.25 MiB or 35.75 MiB caches) would otherwise report noise.
SELECTIONS = ("simplest", "mode")
#: How cycles become miss rates: "range" as printed in Fig. 3 (min and max of
#: the range), or "fit": hit time and miss overhead fitted per candidate.
NORMALISATIONS = ("fit", "range", "anchored")
DEFAULT_TOLERANCE = 0.25


@dataclass(frozen=True)
class SizeFitSettings:
    """How estimate_size fits one rise; every field is also a keyword of
    estimate_size."""

    page_size: int = 4096                  #: bytes of the base page the page-set model assumes
    ways: tuple[int, ...] = DEFAULT_WAYS   #: associativities tried
    #: cache sizes tried (bytes); None: candidate_sizes over the span of the sizes fitted
    candidates: npt.ArrayLike | None = None
    model: str = "lines"                   #: MODELS
    selection: str = "simplest"            #: SELECTIONS
    tolerance: float = DEFAULT_TOLERANCE   #: "simplest": divergence share within the best fit
    normalisation: str = "fit"             #: NORMALISATIONS
    #: replacement policies tried with the "lines" model (POLICIES): the best candidate over all of them wins
    policies: tuple[str, ...] = ("lru",)
    #: (hit, miss): the plateaus (cycles) before and after the rise, for normalisation "anchored"
    anchors: tuple[float, float] | None = None
    placement: str = "random"              #: page placement assumed (PLACEMENTS)

    def __post_init__(self) -> None:
        if self.page_size <= 0:
            raise OptionError("page_size", f"must be positive, got {self.page_size}")
        policies = self.fitted_policies()
        if not policies or any(pol not in POLICIES for pol in policies):
            raise OptionError("policies", f"must be a non-empty subset of {', '.join(POLICIES)}, got {policies!r}")
        if self.normalisation == "anchored" and (self.anchors is None or not self.anchors[1] > self.anchors[0]):
            raise InputError(f"anchored normalisation needs anchors (hit, miss) with miss > hit, got {self.anchors!r}")
        if self.selection not in SELECTIONS:
            raise OptionError("selection", f"must be one of {', '.join(SELECTIONS)}, got {self.selection!r}")

    def fitted_policies(self) -> tuple[str, ...]:
        """The policies the model tells apart: the paper's model has none (one "lru")."""
        return ("lru",) if self.model == "paper" else self.policies


def estimate_size(sizes: npt.ArrayLike, cycles: npt.ArrayLike, settings: SizeFitSettings | None = None,
                  **keywords: Any) -> ProbabilisticFit:
    """Estimate one physically indexed cache size from a range of the sweep.

    sizes: traversed array sizes (bytes) covering the rise of the curve, with
    some flat points on both sides; cycles: time per access at those sizes.
    settings (SizeFitSettings), each field of which may also be given as a
    keyword (page_size=, ways=, candidates=, model=, selection=, tolerance=,
    normalisation=, policies=, anchors=, placement=), overriding `settings`.
    With normalisation="anchored" the miss rate is measured between the
    anchors, not fitted per candidate, which is what tells the policies
    apart (random replacement reaches the next plateau far later than LRU);
    placement "even" suits a sweep whose placement is unknown, where the
    curve is to tell.
    """
    s = replace(settings or SizeFitSettings(), **keywords)
    sizes, cycles = _fit_range(sizes, cycles)
    candidates = np.asarray(candidate_sizes(sizes.min(), sizes.max()) if s.candidates is None else s.candidates,
                            dtype=float)
    ways_arr = np.asarray(s.ways, dtype=int)
    policies = s.fitted_policies()
    divergence, which = _divergence_table(sizes, cycles, candidates, ways_arr, s)
    best = _five_best(divergence, candidates, ways_arr)
    if s.selection == "mode":
        size = _mode_of_sizes(best)
    else:
        size = _simplest_size(candidates, divergence.min(axis=1), s.tolerance)
    row = int(np.flatnonzero(candidates == size)[0])
    ki = int(np.argmin(divergence[row]))
    return ProbabilisticFit(size=int(size), ways=int(ways_arr[ki]), divergence=float(divergence[row, ki]),
                            best=tuple(best), policy=policies[int(which[row, ki])], placement=s.placement)


def _fit_range(sizes: npt.ArrayLike, cycles: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The sizes (bytes) and cycles of one rise as float arrays, checked."""
    s, c = np.asarray(sizes, dtype=float), np.asarray(cycles, dtype=float)
    if s.ndim != 1 or s.shape != c.shape or s.size < 3:
        raise InputError("sizes and cycles must be 1-D arrays of the same length, at least 3")
    return s, c


def _divergence_table(sizes: FloatArray, cycles: FloatArray, candidates: FloatArray, ways: npt.NDArray[np.int_],
                      s: SizeFitSettings) -> tuple[FloatArray, npt.NDArray[np.intp]]:
    """(divergence, policy index), each of shape (candidate size, ways): the
    divergence of the better policy, inf where a page set would hold less
    than a page (K * PS > CS)."""
    pages = sizes / s.page_size
    # Shapes: (candidate size, ways, sweep size).
    cs = candidates[:, None, None]
    k = ways[None, :, None]
    p = k * s.page_size / cs
    per_policy = np.stack([_divergences(predicted_miss_rate(pages[None, None, :], p, k, s.model, pol, s.placement),
                                        cycles, s.normalisation, s.anchors) for pol in s.fitted_policies()])
    divergence = np.min(per_policy, axis=0)
    divergence = np.where(ways[None, :] * s.page_size <= candidates[:, None], divergence, np.inf)
    return divergence, np.argmin(per_policy, axis=0)


def _five_best(divergence: FloatArray, candidates: FloatArray,
               ways: npt.NDArray[np.int_]) -> list[tuple[int, int, float]]:
    """The five (size, ways, divergence) of lowest divergence, best first."""
    best = []
    for idx in np.argsort(divergence, axis=None, kind="stable")[:5]:
        ci, ki = np.unravel_index(idx, divergence.shape)
        best.append((int(candidates[ci]), int(ways[ki]), float(divergence[ci, ki])))
    return best


def _divergences(predicted: np.ndarray, cycles: np.ndarray, normalisation: str,
                 anchors: tuple[float, float] | None = None) -> np.ndarray:
    """How far each candidate's predicted miss rates (candidates, ways,
    sizes) lie from the measured cycles: (candidates, ways)."""
    if normalisation == "anchored":
        hit, miss = anchors                     # type: ignore[misc]
        mr = (cycles - hit) / (miss - hit)
        divergence = np.abs(mr[None, None, :] - predicted).sum(axis=2)
    elif normalisation == "range":
        # The paper: hit time = min C, miss overhead = max C - min C.
        mr = miss_rates(cycles)
        divergence = np.abs(mr[None, None, :] - predicted).sum(axis=2)
    elif normalisation == "fit":
        # Hit time a and miss overhead b fitted per candidate (least squares of
        # C = a + b * P), so plateau points that are not quite flat (a
        # neighbouring cache already missing) do not skew the miss rates.
        pm = predicted.mean(axis=2, keepdims=True)
        cm = cycles.mean()
        var = ((predicted - pm) ** 2).sum(axis=2, keepdims=True)
        cov = ((predicted - pm) * (cycles - cm)).sum(axis=2, keepdims=True)
        b = np.where(var > 0, cov / np.where(var > 0, var, 1.0), 0.0)
        a = cm - b * pm
        span = max(cycles.max() - cycles.min(), 1e-300)
        divergence = np.abs(cycles - a - b * predicted).sum(axis=2) / span
        divergence = np.where(b[..., 0] > 0, divergence, np.inf)
    else:
        raise ValueError(f"normalisation must be one of {', '.join(NORMALISATIONS)}, got {normalisation!r}")
    return divergence


def significant_bits(size: int) -> int:
    """Bits between the highest and lowest set bit: 2 MiB -> 1, 1.25 MiB -> 3."""
    size = int(size)
    while size and size % 2 == 0:
        size //= 2
    return size.bit_length()


def _simplest_size(candidates: FloatArray, divergence_per_size: FloatArray, tolerance: float) -> int:
    """The size with the fewest significant bits among those fitting within
    (1 + tolerance) of the best fit; ties go to the better fit."""
    best = float(np.min(divergence_per_size))
    limit = best * (1.0 + tolerance) + 1e-12
    admissible = np.flatnonzero(divergence_per_size <= limit)
    chosen = min(admissible, key=lambda i: (significant_bits(int(candidates[i])), divergence_per_size[i]))
    return int(candidates[chosen])


def _mode_of_sizes(best: list[tuple[int, int, float]]) -> int:
    """Most frequent size among the best candidates; ties go to the better fit."""
    counts: dict[int, tuple[int, int]] = {}
    for rank, (size, _, _) in enumerate(best):
        count, first = counts.get(size, (0, rank))
        counts[size] = (count + 1, first)
    return max(counts, key=lambda s: (counts[s][0], -counts[s][1]))
