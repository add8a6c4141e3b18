"""How a kernel's time grows with the matrix dimension: pure functions of
(dimensions, times), no MPI.

CoMet (section 5.2) found update_guard and the row and column broadcasts
linear in the dimension n (they move one row or column of blocks' edges),
shift and transpose quadratic (they move whole local matrices). Measured
times also carry a constant (latency, the barrier's tail), so the model
fitted is t(n) = t0 + c n^p with t0, c >= 0, in relative terms (weights 1/t:
a 10 % miss counts alike at 64 and at 4096). p is scanned on a grid; for
each p, (t0, c) is a non-negative least-squares solution. The interval of p
is where the residual stays within the F-test bound of the best (95 %, one
parameter of interest, m - 3 degrees of freedom for m dimensions). The
verdict compares it with the thesis' exponent and the other one (1 vs 2):
"agrees" when only the thesis' lies inside, "undecided" when both do (the
constant hides the growth over the dimensions measured), "differs" when the
thesis' lies outside.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import nnls
from scipy.stats import f as f_distribution

#: The thesis' growth of each kernel's time with the dimension (exponent of n).
THESIS_EXPONENT = {"update_guard": 1, "shift_north": 2, "shift_east": 2, "transpose": 2, "row_broadcast": 1,
                   "col_broadcast": 1}
#: Exponents scanned (step 0.01).
EXPONENTS = np.round(np.arange(0.0, 3.0 + 1e-9, 0.01), 2)
CONFIDENCE = 0.95


@dataclass
class Growth:
    """t(n) = t0 + coefficient * n^exponent fitted to one kernel, the
    exponent's interval, and the verdict against the thesis' exponent."""

    expected: int                   #: the thesis' exponent
    exponent: float | None          #: best fit (None with fewer than 3 dimensions)
    low: float | None               #: the interval of exponents the data allow (None with fewer than 4)
    high: float | None
    t0: float | None                #: seconds
    coefficient: float | None       #: seconds per n^exponent
    verdict: str                    #: agrees, differs, undecided, or too few dimensions

    def predict(self, n: npt.ArrayLike) -> np.ndarray:
        """Seconds the fit gives at dimensions n."""
        if self.exponent is None or self.t0 is None or self.coefficient is None:
            return np.full(np.shape(n), np.nan)
        return self.t0 + self.coefficient * np.asarray(n, dtype=float) ** self.exponent


def _residual(p: float, x: np.ndarray, t: np.ndarray) -> tuple:
    """(relative residual sum of squares, t0, c) of the best non-negative
    t0 + c x^p (x scaled to at most 1, so that both columns are of order 1)."""
    design = np.column_stack([np.ones_like(x), x ** p]) / t[:, None]
    coef, norm = nnls(design, np.ones_like(t))
    return norm ** 2, coef[0], coef[1]


def fit_growth(dims: npt.ArrayLike, times: npt.ArrayLike, expected: int) -> Growth:
    """The growth of `times` (seconds, e.g. medians) over `dims` (matrix
    dimensions), against the thesis' exponent `expected` (1 or 2)."""
    n = np.asarray(dims, dtype=float)
    t = np.asarray(times, dtype=float)
    keep = np.isfinite(t) & (t > 0) & np.isfinite(n) & (n > 0)
    n, t = n[keep], t[keep]
    if np.unique(n).size < 3:
        return Growth(expected, None, None, None, None, None, "too few dimensions")
    scale = n.max()
    x = n / scale
    fits = [_residual(p, x, t) for p in EXPONENTS]
    rss = np.array([f[0] for f in fits])
    best = int(np.argmin(rss))
    p, (_, t0, c) = float(EXPONENTS[best]), fits[best]
    growth = Growth(expected, p, None, None, float(t0), float(c / scale ** p), "undecided")
    dof = n.size - 3
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
