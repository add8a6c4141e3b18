"""The record each micro-benchmark family writes (see hpcbench._record).

A record holds series: one test (at one synchronisation, one number of
processes) over its sizes. Each point of a series carries hpcbench's own
statistic beside OSU's and IMB's, computed from the same samples, so a user
compares like with like:

- `median`, `p10`, `p90`: hpcbench's, over the samples; a sample's value is
  the slowest taking part rank's (a collective ends when its last rank
  does), per operation (latency) or its bytes over that time (bandwidth);
- `osu`: OSU's figure: latency, the mean over the timed loop of each rank,
  averaged over the ranks (osu_latency: the initiator's loop, halved for a
  round trip; one-sided: the origin's loop); bandwidth, the bytes of the
  whole loop over its time;
- `t_min`, `t_max`, `t_avg`: IMB's, the minimum, maximum and mean over the
  ranks of each rank's mean time per operation (latency tests);
- `rank_mean`: the median over samples of the mean over the ranks, the
  per-iteration view of OSU's average (collectives);
- nbc only: `t_pure`, `t_cpu`, `overlap_percent` as IMB-NBC defines them
  (the point's `median`/`osu` are then t_ovrl, the overlapped time).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._record import Count, Mapping, One, Record, optional, require

#: raw samples (ns): nested lists of numbers
Samples = Any


@dataclass(kw_only=True)
class MicroParameters(Mapping):
    """How a family ran: the ranks, which tests at which sizes, how many
    samples (fixed or from a time budget), the window and pairs, the
    one-sided synchronisations, the numbers of processes the collectives
    also ran at, and what each statistic is, in words."""
    family: str
    ranks: One
    nodes: One
    suite: str                      #: "default" (the short subset) or "all"
    tests: list[str]
    sizes: list[One]
    iterations: One | None = optional()     #: fixed samples per size; None: from budget_s
    warmup: Count | None = optional()
    budget_s: float
    window: One
    pairs: One
    syncs: list[str]
    procs: list[One]
    buffers: str
    statistics: dict[str, str]


@dataclass(kw_only=True)
class MicroPoint(Mapping):
    """One size of one series (seconds per operation for latency tests,
    bytes per second for bandwidth tests)."""
    size: One                        #: bytes per message (per rank and peer for the block collectives)
    samples: One                     #: timed samples
    inner: One                       #: operations per sample
    warmup: Count
    median: float
    p10: float
    p90: float
    osu: float
    rse: float | None = optional()
    t_min: float | None = optional()
    t_max: float | None = optional()
    t_avg: float | None = optional()
    rank_mean: float | None = optional()
    message_rate: float | None = optional()     #: mbw_mr: messages per second, all pairs (OSU's statistic)
    t_pure: float | None = optional()           #: nbc: IMB-NBC's t_pure (s)
    t_cpu: float | None = optional()            #: nbc: IMB-NBC's t_CPU (s)
    overlap_percent: float | None = optional()  #: nbc: IMB-NBC's overlap (%)


@dataclass(kw_only=True)
class MicroSeries(Mapping):
    """One test over its sizes: at `procs` processes, with `sync` (one-sided)
    and `pairs` (multi-pair tests)."""
    test: str
    kind: str                        #: "latency" or "bandwidth"
    unit: str                        #: "s" or "bytes/s"
    procs: One
    sync: str | None = optional()
    pairs: One | None = optional()
    window: One | None = optional()
    definition: str
    points: list[MicroPoint]

    def _validate(self, path: str) -> None:
        require(self.kind in ("latency", "bandwidth"), f"{path}.kind",
                f"must be latency or bandwidth, got {self.kind!r}")

    @property
    def label(self) -> str:
        """'allreduce', 'put_latency (lock)', 'mbw_mr (2 pairs)'."""
        extra = self.sync or (f"{self.pairs} pairs" if self.pairs and self.pairs > 1 else "")
        return f"{self.test} ({extra})" if extra else self.test


@dataclass(kw_only=True)
class MicroRawSeries(Mapping):
    """One series as measured: per size, every sample of every taking part
    rank (ns per operation, rows are ranks); for nbc also the pure
    communication's samples (t_pure), the computation's alone (t_CPU) and
    the computation's part of each overlapped sample."""
    test: str
    procs: One
    sync: str | None = optional()
    sizes: list[One]
    ranks: list[Count]
    samples: Samples
    pure_samples: Samples | None = optional()
    cpu_samples: Samples | None = optional()
    overlap_cpu_samples: Samples | None = optional()

    def _validate(self, path: str) -> None:
        require(len(self.samples) == len(self.sizes), f"{path}.samples", "must have one entry per size")


@dataclass(kw_only=True)
class MicroRaw(Mapping):
    series: list[MicroRawSeries]


@dataclass(kw_only=True)
class MicroDerived(Mapping):
    """Every series against size at all the ranks, then (collectives, nbc)
    the same tests at fewer processes."""
    series: list[MicroSeries]
    scaling: list[MicroSeries]


@dataclass(kw_only=True)
class MicroRecord(Record):
    parameters: MicroParameters | None = optional()
    raw: MicroRaw | None = optional()
    derived: MicroDerived | None = optional()
