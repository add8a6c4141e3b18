"""How a kernel's time grows with the matrix dimension: pure functions of
(dimensions, times), no MPI.

CoMet (section 5.2) found update_guard and the row and column broadcasts
linear in the dimension n (they move one row or column of blocks' edges),
shift and transpose quadratic (they move whole local matrices). Measured
times also carry a constant (latency, the barrier's tail), so the model
fitted is t(n) = t0 + c n^p with t0, c >= 0, in relative terms (weights 1/t:
a 10 % miss counts alike at 64 and at 4096). p is scanned on a grid; for
each p, (t0, c) is a non-negative least-squares solution.

A message-passing library changes protocol at some message size (Open MPI's
shared memory goes from eager copies to single-copy rendezvous at 4 KiB),
which changes both the constant and the cost per element, as the regions of
the comm models do: read as one power law, such a switch makes a linear
kernel look quadratic or cubic. So the model may split the dimensions in two
regimes at one measured dimension (at least three dimensions in each), each
with its own t0 and c and the same p, kept only where it explains what one
regime cannot (F-test, p < 0.001: strict, because the split's place is
chosen among several).

The interval of p is where the residual stays within the F-test bound of
the best (95 %, one parameter of interest, m - 3 degrees of freedom for m
dimensions, two fewer with two regimes). The verdict compares it with the
thesis' exponent and the other one (1 vs 2): "agrees" when only the thesis'
lies inside, "undecided" when both do (the constant hides the growth over
the dimensions measured), "differs" when the thesis' lies outside.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: The thesis' growth of each kernel's time with the dimension (exponent of n).
THESIS_EXPONENT = {"update_guard": 1, "shift_north": 2, "shift_east": 2, "transpose": 2, "row_broadcast": 1,
                   "col_broadcast": 1}
#: Exponents scanned (step 0.01).
EXPONENTS = np.round(np.arange(0.0, 3.0 + 1e-9, 0.01), 2)
CONFIDENCE = 0.95
#: Two regimes are kept where the F-test against one gives p below this.
SPLIT_SIGNIFICANCE = 1e-3
#: Dimensions each regime needs at least.
REGIME_POINTS = 3


@dataclass
class Growth:
    """t(n) = t0 + coefficient * n^exponent fitted to one kernel (from
    dimension regime_at on, where the times change regime, t0_after and
    coefficient_after instead), the exponent's interval, and the verdict
    against the thesis' exponent."""

    expected: int                   #: the thesis' exponent
    exponent: float | None          #: best fit (None with fewer than 3 dimensions)
    low: float | None               #: the interval of exponents the data allow (None with too few dimensions)
    high: float | None
    t0: float | None                #: seconds
    coefficient: float | None       #: seconds per n^exponent
    verdict: str                    #: agrees, differs, undecided, or too few dimensions
    regime_at: int | None = None    #: the first dimension of a second regime (None: one regime)
    t0_after: float | None = None   #: seconds, from regime_at on
    coefficient_after: float | None = None

    def predict(self, n: npt.ArrayLike) -> np.ndarray:
        """Seconds the fit gives at dimensions n."""
        x = np.asarray(n, dtype=float)
        if self.exponent is None or self.t0 is None or self.coefficient is None:
            return np.full(x.shape, np.nan)
        t = self.t0 + self.coefficient * x ** self.exponent
        if self.regime_at is not None and self.t0_after is not None and self.coefficient_after is not None:
            t = np.where(x >= self.regime_at, self.t0_after + self.coefficient_after * x ** self.exponent, t)
        return t


def _profile(x: np.ndarray, t: np.ndarray, after: np.ndarray | None) -> tuple:
    """Per exponent of EXPONENTS: the relative residual sum of squares and
    the non-negative coefficients (t0, c[, t0_after, c_after]) of the model
    (x scaled to at most 1, so that the columns are all of order 1; `after`
    marks the second regime's dimensions)."""
    from scipy.optimize import nnls  # here, not at import: SciPy's optimize and stats cost every command 1.2 s
    rss, coefs = [], []
    ones = np.ones_like(x)
    for p in EXPONENTS:
        xp = x ** p
        columns = [ones, xp] if after is None else [ones * (1 - after), xp * (1 - after), ones * after, xp * after]
        coef, norm = nnls(np.column_stack(columns) / t[:, None], np.ones_like(t))
        rss.append(norm ** 2)
        coefs.append(coef)
    return np.array(rss), coefs


def fit_growth(dims: npt.ArrayLike, times: npt.ArrayLike, expected: int) -> Growth:
    """The growth of `times` (seconds, e.g. medians) over `dims` (matrix
    dimensions), against the thesis' exponent `expected` (1 or 2)."""
    from scipy.stats import f as f_distribution  # see _profile
    n = np.asarray(dims, dtype=float)
    t = np.asarray(times, dtype=float)
    keep = np.isfinite(t) & (t > 0) & np.isfinite(n) & (n > 0)
    order = np.argsort(n[keep])
    n, t = n[keep][order], t[keep][order]
    m = n.size
    if np.unique(n).size < 3:
        return Growth(expected, None, None, None, None, None, "too few dimensions")
    scale = n.max()
    x = n / scale
    rss, coefs = _profile(x, t, None)
    regime_at = None
    one_regime = rss.min()
    for k in range(REGIME_POINTS, m - REGIME_POINTS + 1):
        if m - 5 < 1 or n[k] == n[k - 1]:
            continue
        r, c = _profile(x, t, (n >= n[k]).astype(float))
        f = ((one_regime - r.min()) / 2) / (r.min() / (m - 5)) if r.min() > 0 else np.inf
        if f_distribution.sf(f, 2, m - 5) < SPLIT_SIGNIFICANCE and r.min() < rss.min():
            rss, coefs, regime_at = r, c, int(n[k])
    best = int(np.argmin(rss))
    coef = coefs[best]
    p = float(EXPONENTS[best])
    growth = Growth(expected, p, None, None, float(coef[0]), float(coef[1] / scale ** p), "undecided")
    if regime_at is not None:
        growth.regime_at, growth.t0_after, growth.coefficient_after = regime_at, float(coef[2]), \
            float(coef[3] / scale ** p)
    dof = m - 3 - 2 * (regime_at is not None)
    if dof < 1:
        growth.verdict = "too few dimensions"
        return growth
    bound = rss[best] * (1 + f_distribution.ppf(CONFIDENCE, 1, dof) / dof)
    inside = EXPONENTS[rss <= bound + 1e-15 * max(rss[best], 1e-300)]
    growth.low, growth.high = float(inside.min()), float(inside.max())

    def allowed(k):
        return growth.low <= k <= growth.high
    other = 2 if expected == 1 else 1
    growth.verdict = ("differs" if not allowed(expected) else "undecided" if allowed(other) else "agrees")
    return growth
