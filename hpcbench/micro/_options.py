"""The options the four micro-benchmark families share (p2p, collectives,
nbc, rma): one dataclass, so one group of flags, every default once."""
from __future__ import annotations

import argparse
from dataclasses import dataclass

from .._protocol import option
from .._validate import Range
from ._sizes import parse_sizes
from ._tests import DEFAULT_TESTS, SYNCS, family_tests

#: What `--comm-suite` accepts. auto: every test of a family named on the
#: command line, the default subset in a run that names no benchmark.
SUITES = ("auto", "default", "all")
#: Sizes of every test unless --comm-sizes says otherwise: OSU's range.
ALL_SIZES = "1:4MiB"
#: Sizes of the default suite's subset: the four sizes acceptance tests quote.
DEFAULT_SIZES = "8,4KiB,64KiB,4MiB"
#: Time per test and size (seconds) for the samples, warm-up included.
DEFAULT_BUDGET_S = 0.01
#: OSU's window for the bandwidth tests.
DEFAULT_WINDOW = 64
MAX_ITERATIONS = 1_000_000


def sizes_arg(text: str) -> tuple:
    """'1:4MiB', '8,64,1KiB' -> the sizes (hpcbench.micro._sizes)."""
    try:
        return parse_sizes(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _tests_arg(family: str):
    known = family_tests(family)

    def parse(text: str) -> tuple:
        names = [p.strip() for p in text.split(",")]
        for name in names:
            if name not in known:
                raise argparse.ArgumentTypeError(f"{name!r} is no {family} test; choose from {', '.join(known)}")
        return tuple(t for t in known if t in names)
    parse.__name__ = f"{family}_tests"
    return parse


def syncs_arg(text: str) -> tuple:
    names = [p.strip() for p in text.split(",")]
    for name in names:
        if name not in SYNCS:
            raise argparse.ArgumentTypeError(f"{name!r} is no one-sided synchronisation; choose from "
                                             f"{', '.join(SYNCS)}")
    return tuple(s for s in SYNCS if s in names)


def procs_arg(text: str) -> tuple:
    parts = [p.strip() for p in text.split(",")]
    if not all(p.isascii() and p.isdigit() for p in parts) or any(int(p) < 2 for p in parts):
        raise argparse.ArgumentTypeError(f"numbers of processes are whole numbers of at least 2 separated by "
                                         f"commas, got {text!r}")
    return tuple(sorted({int(p) for p in parts}))


def _tests_help(family: str) -> str:
    return (f"the {family} tests to run, comma-separated, from: {', '.join(family_tests(family))}")


def _tests_default(family: str) -> str:
    return f"all with --comm-suite all or when named, else {','.join(DEFAULT_TESTS[family])}"


@dataclass(frozen=True)
class MicroOptions:
    suite: str = option("auto", "--comm-suite", "which tests the OSU/IMB families run: all, every test of every "
                        "family (a run without benchmark names then runs all four families); default, the short "
                        "subset of the default suite; auto, all for a family named on the command line, the subset "
                        "otherwise", choices=SUITES)
    sizes: tuple | None = option(None, "--comm-sizes", "message sizes of the OSU/IMB families: sizes and ranges "
                                 "separated by commas; FIRST:LAST is powers of two from FIRST up to LAST (1:4MiB, "
                                 "8,64,1KiB)", metavar="LIST", type=sizes_arg,
                                 default_text=f"{ALL_SIZES} with every test, {DEFAULT_SIZES} in the default subset")
    iterations: int | None = option(None, "--comm-iterations", "timed operations per test and size, fixed (OSU's "
                                    "-i); a p2p or rma test groups them into samples of about 20 us each",
                                    metavar="N", type=int, range=Range(1, MAX_ITERATIONS),
                                    default_text="as many as --comm-budget allows, at least 5 samples")
    warmup: int | None = option(None, "--comm-warmup", "untimed operations before the timed ones (OSU's -x), "
                                "rounded up to whole samples", metavar="N", type=int, range=Range(0, MAX_ITERATIONS),
                                default_text="a tenth of the timed samples, at least 1")
    budget_s: float = option(DEFAULT_BUDGET_S, "--comm-budget", "time per test and size in seconds, when "
                             "--comm-iterations is not given", metavar="S", type=float,
                             range=Range(0, 60, lo_open=True, unit="s"))
    window: int = option(DEFAULT_WINDOW, "--p2p-window", "messages in flight per window of the bandwidth tests "
                         "(bw, bibw, mbw_mr, put_bw, get_bw), OSU's window size", metavar="W", type=int,
                         range=Range(1, 1 << 16))
    pairs: int | None = option(None, "--p2p-pairs", "pairs of ranks of the multi-pair tests (mbw_mr, multi_lat): "
                               "rank i talks to rank i + pairs", metavar="K", type=int, range=Range(1, 1 << 20),
                               default_text="half the ranks")
    p2p_tests: tuple | None = option(None, "--p2p-tests", _tests_help("p2p"), metavar="T,T,...",
                                     type=_tests_arg("p2p"), default_text=_tests_default("p2p"))
    coll_tests: tuple | None = option(None, "--coll-tests", _tests_help("collectives"), metavar="T,T,...",
                                      type=_tests_arg("collectives"), default_text=_tests_default("collectives"))
    nbc_tests: tuple | None = option(None, "--nbc-tests", _tests_help("nbc"), metavar="T,T,...",
                                     type=_tests_arg("nbc"), default_text=_tests_default("nbc"))
    rma_tests: tuple | None = option(None, "--rma-tests", _tests_help("rma"), metavar="T,T,...",
                                     type=_tests_arg("rma"), default_text=_tests_default("rma"))
    syncs: tuple = option(SYNCS, "--rma-sync", "one-sided synchronisations, comma-separated: fence "
                          "(MPI_Win_fence on both ranks), lock (MPI_Win_lock/unlock by the origin)",
                          metavar="S,S", type=syncs_arg, default_text="fence,lock")
    procs: tuple | None = option(None, "--coll-procs", "numbers of processes the collectives and nbc also run at "
                                 "(the first N ranks), at 8 B and 64 KiB", metavar="N,N,...", type=procs_arg,
                                 default_text="powers of two from 2 below the ranks, with every test of 4 ranks "
                                              "or more; none otherwise")


def tests_field(family: str) -> str:
    """The options field that lists a family's tests."""
    return {"p2p": "p2p_tests", "collectives": "coll_tests", "nbc": "nbc_tests", "rma": "rma_tests"}[family]

