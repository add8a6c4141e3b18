"""Results of a kernel swept over message sizes: raw samples per size and
the statistics reported from them."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._records import SweepSamples, SweepSummary

#: The largest message of the default grid (bytes).
DEFAULT_MAX_SIZE = 4 << 20
#: The largest message any comm sweep takes (bytes).
MAX_MESSAGE = 1 << 30
#: Seconds a kernel may spend on one message size by default. On a quiet
#: machine every size reaches its precision (1 %) in its first batch, well
#: within it; the cap bounds a run where other processes make that
#: impossible (0.2 s let a 2-rank `run comm` take 20 to 30 s on this busy
#: 2-core host, 0.05 s 7 to 13 s).
CAP_S = 0.05
#: The iterations the cap allows run in this many batches (the network
#: benchmarks use 4): a quiet size is precise after its first batch, and a
#: batch slowed by other processes overshoots the cap by a sixteenth.
BATCHES = 16


def message_sizes(max_bytes: int = DEFAULT_MAX_SIZE) -> np.ndarray:
    """0, then powers of two from 1 byte to max_bytes (the default grid)."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer)) or max_bytes < 1:
        raise ValueError(f"the largest message must be a positive number of bytes, got {max_bytes!r}")
    sizes = [0]
    s = 1
    while s <= max_bytes:
        sizes.append(s)
        s *= 2
    return np.array(sizes, dtype=np.int64)


def check_sizes(sizes, name: str = "message sizes", limit: int = 1 << 30) -> np.ndarray:
    """Non-negative whole byte counts up to `limit`, at least one, no duplicates."""
    try:
        arr = np.asarray(sizes)
    except Exception:
        raise ValueError(f"{name} must be a sequence of byte counts") from None
    if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must be a non-empty sequence of whole byte counts, got {sizes!r}")
    if np.any(arr < 0) or np.any(arr > limit):
        raise ValueError(f"{name} must be between 0 and {limit} bytes, got {arr.min()}..{arr.max()}")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name} must not repeat a size")
    return np.sort(arr.astype(np.int64))


@dataclass
class SizeSweep:
    """One kernel over several message sizes. Times in seconds."""
    kernel: str
    sizes: np.ndarray                 #: bytes
    samples: list                     #: per size, the samples that judge it (see `statistic`)
    statistic: str                    #: what a sample is, e.g. "one-way time (round trip / 2) on rank 0"
    per_rank: list = field(default_factory=list)   #: collectives: per size, array (ranks, iterations)
    warmup: list = field(default_factory=list)
    rse: list = field(default_factory=list)        #: relative standard error reached per size
    inner: list = field(default_factory=list)      #: iterations per sample, per size (1 if empty)

    def percentile(self, q) -> np.ndarray:
        return np.array([np.percentile(s, q) for s in self.samples])

    @property
    def median(self) -> np.ndarray:
        return self.percentile(50)

    @property
    def minimum(self) -> np.ndarray:
        return np.array([np.min(s) for s in self.samples])

    @property
    def bandwidth(self) -> np.ndarray:
        """bytes per second from the median time (0 for empty messages)."""
        return np.where(self.sizes > 0, self.sizes / self.median, 0.0)

    def rank_averages(self) -> np.ndarray:
        """OSU-style: each rank's mean time, then the mean over ranks (per size)."""
        if not self.per_rank:
            return np.array([np.mean(s) for s in self.samples])
        return np.array([np.nanmean(np.nanmean(r, axis=1)) for r in self.per_rank])

    def merged(self, other: SizeSweep) -> SizeSweep:
        """This sweep with another's sizes added (refinement), sorted by size."""
        sizes = np.concatenate([self.sizes, other.sizes])
        order = np.argsort(sizes, kind="stable")
        def pick(a, b):
            return [(a + b)[i] for i in order] if (a or b) else []
        return SizeSweep(self.kernel, sizes[order], pick(self.samples, other.samples), self.statistic,
                         pick(self.per_rank, other.per_rank), pick(self.warmup, other.warmup),
                         pick(self.rse, other.rse), pick(self.inner, other.inner))

    def summary(self) -> SweepSummary:
        """Median, minimum, percentiles and bandwidth per size (seconds, bytes/s)."""
        return SweepSummary(sizes=self.sizes.tolist(), median=self.median.tolist(), minimum=self.minimum.tolist(),
                            p10=self.percentile(10).tolist(), p90=self.percentile(90).tolist(),
                            p99=self.percentile(99).tolist(), bandwidth=self.bandwidth.tolist(),
                            rank_average=self.rank_averages().tolist() if self.per_rank else None)

    def to_samples(self) -> SweepSamples:
        """The raw samples for the results file: ns, rounded to 0.1 ns (below the
        timer's resolution, so nothing measured is lost, and the file stays small)."""
        return SweepSamples(sizes=self.sizes.tolist(), statistic=self.statistic, samples=ns_samples(self.samples),
                            warmup=list(self.warmup), rse=list(self.rse), inner=list(self.inner),
                            per_rank=ns_samples(self.per_rank) if self.per_rank else None)


def ns_samples(samples) -> list:
    """Seconds -> ns rounded to 0.1 ns, per size."""
    return [np.round(np.asarray(s, dtype=float) * 1e9, 1) for s in samples]
