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
which adds a step to the constant, not a growth: read as a power law, a
step makes a linear kernel look cubic. So the model may take one step s >= 0
from one measured dimension on (at least two dimensions either side), kept
only where it explains what the power law alone cannot (F-test against the
model without it, p < 0.001: strict, because the step's place is chosen
among several).

The interval of p is where the residual stays within the F-test bound of
the best (95 %, one parameter of interest, m - 3 degrees of freedom for m
dimensions, one fewer with a step). The verdict compares it with the
thesis' exponent and the other one (1 vs 2): "agrees" when only the thesis'
lies inside, "undecided" when both do (the constant hides the growth over
the dimensions measured), "differs" when the thesis' lies outside.
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
#: A step is kept where the F-test against no step gives p below this.
STEP_SIGNIFICANCE = 1e-3


@dataclass
class Growth:
    """t(n) = t0 + step [n >= step_at] + coefficient * n^exponent fitted to
    one kernel, the exponent's interval, and the verdict against the
    thesis' exponent."""

    expected: int                   #: the thesis' exponent
    exponent: float | None          #: best fit (None with fewer than 3 dimensions)
    low: float | None               #: the interval of exponents the data allow (None with too few dimensions)
    high: float | None
    t0: float | None                #: seconds
    coefficient: float | None       #: seconds per n^exponent
    verdict: str                    #: agrees, differs, undecided, or too few dimensions
    step_at: int | None = None      #: the first dimension after a protocol step (None: no step)
    step: float | None = None       #: seconds the step adds

    def predict(self, n: npt.ArrayLike) -> np.ndarray:
        """Seconds the fit gives at dimensions n."""
        if self.exponent is None or self.t0 is None or self.coefficient is None:
            return np.full(np.shape(n), np.nan)
        x = np.asarray(n, dtype=float)
        jump = (self.step or 0.0) * (x >= self.step_at) if self.step_at is not None else 0.0
        return self.t0 + jump + self.coefficient * x ** self.exponent


def _profile(x: np.ndarray, t: np.ndarray, step: np.ndarray | None) -> tuple:
    """Per exponent of EXPONENTS: the relative residual sum of squares and
    the non-negative coefficients (t0, [step,] c) of the model (x scaled to
    at most 1, so that the columns are all of order 1)."""
    rss, coefs = [], []
    ones = np.ones_like(x)
    for p in EXPONENTS:
        columns = [ones, x ** p] if step is None else [ones, step, x ** p]
        coef, norm = nnls(np.column_stack(columns) / t[:, None], np.ones_like(t))
        rss.append(norm ** 2)
        coefs.append(coef)
    return np.array(rss), coefs


def fit_growth(dims: npt.ArrayLike, times: npt.ArrayLike, expected: int) -> Growth:
    """The growth of `times` (seconds, e.g. medians) over `dims` (matrix
    dimensions), against the thesis' exponent `expected` (1 or 2)."""
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
    step_at = None
    if m >= 6:                        # room for a step with two dimensions either side and a test
        best_rss = rss.min()
        for k in range(2, m - 1):
            if n[k] == n[k - 1]:
                continue
            r, c = _profile(x, t, (n >= n[k]).astype(float))
            f = (best_rss - r.min()) / (r.min() / (m - 4)) if r.min() > 0 else np.inf
            if f_distribution.sf(f, 1, m - 4) < STEP_SIGNIFICANCE and r.min() < rss.min():
                rss, coefs, step_at = r, c, int(n[k])
    best = int(np.argmin(rss))
    coef = coefs[best]
    p = float(EXPONENTS[best])
    growth = Growth(expected, p, None, None, float(coef[0]), float(coef[-1] / scale ** p), "undecided")
    if step_at is not None:
        growth.step_at, growth.step = step_at, float(coef[1])
    dof = m - 3 - (step_at is not None)
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
