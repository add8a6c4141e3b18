"""The statistics of a sweep's samples (pure NumPy/SciPy).

Interference from other work only ever adds time, so within a pass (one
placement) the fastest sample counts; across passes, whose placements
differ, the 20%-trimmed mean, which keeps the average the page-set model
predicts while a burst that hit one pass does not move it. Bandwidth: the
best sample of each pass, the median across passes.
"""
from __future__ import annotations

import numpy as np


def robust_mean(per_pass: np.ndarray, trim: float = 0.2) -> np.ndarray:
    """Mean over the last axis without the `trim` share at each end (SciPy's trimmed mean)."""
    from scipy.stats import trim_mean  # here, not at import: scipy.stats costs every command 0.6 s to start
    return np.asarray(trim_mean(per_pass, trim, axis=-1))


def per_size(samples: np.ndarray) -> np.ndarray:
    """(sizes, passes, samples) -> one value per size: the minimum of each
    pass, then the trimmed mean across the passes a size has (passes a size
    did not get, and samples a pass did not take, are NaN)."""
    out = np.empty(samples.shape[0])
    for i, row in enumerate(samples):
        finite = np.isfinite(row).any(axis=1)
        mins = np.min(np.where(np.isfinite(row), row, np.inf), axis=1)[finite]
        out[i] = robust_mean(mins[None, :])[0]
    return out


def bandwidth_per_size(samples: np.ndarray) -> np.ndarray:
    """(sizes, passes, samples) bytes/s -> per size: the best sample of
    each pass (interference only slows), the median across passes."""
    out: np.ndarray = np.nanmedian(np.nanmax(samples, axis=2), axis=1)
    return out
