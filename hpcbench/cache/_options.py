"""The options of the cache and shared-caches benchmarks: every default, once.

measure() and the co-run functions take their keyword defaults from here,
and the CLI's flags (with their help) are made from these fields."""
from __future__ import annotations

from dataclasses import dataclass

from .._argtypes import pu_list_arg, size_arg
from .._protocol import option
from .._validate import Range
from ..topology._pairs import DEFAULT_SAMPLE, MAX_SAMPLE

ORDER_CHOICES = ("auto", "sequential", "random", "windowed")
PAGE_CHOICES = ("normal", "huge", "system")
GRID_CHOICES = ("fine", "servet")
ISA_CHOICES = ("auto", "scalar", "sse2", "avx2", "avx512")
PAIR_CHOICES = ("auto", "all")
#: Slots shuffled together by the "windowed" order: 32 pages of 4 KiB, within
#: the reach of any first-level data TLB.
DEFAULT_WINDOW = 128 << 10


@dataclass(frozen=True)
class CacheOptions:
    min_size: int = option(1024, "--cache-min", "smallest array", metavar="SIZE", type=size_arg, size=True)
    max_size: int | None = option(None, "--cache-max", "largest array", metavar="SIZE", type=size_arg,
                                  default_text="about twice the largest cache hwloc reports")
    stride: int | None = option(None, "--cache-stride", "distance between the slots a chase visits", metavar="SIZE",
                                type=size_arg, size=True, default_text="the line size hwloc reports (64 B if none)")
    order: str = option("auto", "--cache-order", "visiting order: auto is random where huge pages back the "
                        "buffer outside a virtual machine, random within 128 KiB windows otherwise",
                        choices=ORDER_CHOICES)
    pages: str = option("huge", "--cache-pages", "page kind of the buffer: huge asks for 2 MiB pages (granted or "
                        "not, the record says)", choices=PAGE_CHOICES)
    grid: str = option("fine", "--cache-grid", "base sizes: fine is 4 per octave, servet the paper's (doubling "
                       "to 2 MiB, then 1 MiB steps)", choices=GRID_CHOICES)
    bandwidth: bool = option(True, "--cache-bandwidth", "also measure the read bandwidth of every size")
    isa: str = option("auto", "--cache-isa", "loads of the bandwidth kernel: auto is the widest this CPU has",
                      choices=ISA_CHOICES)
    passes: int = option(5, "--cache-passes", "sweeps over all sizes, each a few seconds", metavar="N", type=int,
                         range=Range(1, 100))
    samples: int = option(3, "--cache-samples", "timings per size per pass", metavar="N", type=int,
                          range=Range(1, 100))
    pu: int | None = option(None, "--cache-pu", "PU OS index to bind to", metavar="PU", type=int,
                            default_text="the first PU this process may use")
    refine: bool = option(True, "--cache-refine", "add sizes inside detected rises")
    extend: bool = option(True, "--cache-extend", "while the curve still rises at the largest size, sweep on "
                          "octave by octave (up to 4 times the largest cache hwloc reports, within the memory "
                          "available)")
    min_accesses: int = 1 << 16     #: loads per timed sample, at least
    warmup: int = 1                 #: untimed traversals before the first sample (after the verifying one)
    seed: int = 12345
    window: int = DEFAULT_WINDOW    #: bytes shuffled together by the windowed order
    long_slots: int = 1 << 17       #: sizes of this many slots or more: timed once a pass, warmed by the verifying walk


@dataclass(frozen=True)
class SharedOptions:
    pairs: str = option("auto", "--shared-pairs", "auto: one pair per hwloc relation plus a random sample; "
                        "all: every pair", choices=PAIR_CHOICES, aliases=("--pairs",))
    cores: list[int] | None = option(None, "--shared-cores", "PUs to test, e.g. 0-3,8", metavar="LIST",
                                     type=pu_list_arg, aliases=("--cores",),
                                     default_text="every PU this process may use")
    sample: int = option(DEFAULT_SAMPLE, "--shared-sample", "extra random pairs in auto mode", metavar="N", type=int,
                         aliases=("--pair-sample",), range=Range(0, MAX_SAMPLE))
    threshold: float | None = option(None, "--shared-threshold", "co-run ratio above which two cores share a "
                                     "cache", metavar="X", type=float, aliases=("--share-threshold",),
                                     range=Range(1, 100, lo_open=True),
                                     default_text="2, or less where the single-core curve shows a shared cache "
                                                  "cannot double the time; see docs/node.md")
    rounds: int = option(3, "--shared-rounds", "times every pair is measured, in a new order each time",
                         metavar="N", type=int, aliases=("--rounds",), range=Range(1, 100))
    samples: int = 3                #: timings per run of a pair
    seed: int = 1
