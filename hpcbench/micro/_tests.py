"""The catalogue of micro-benchmark tests: each test's family, its C
constant, what its figure is (a latency, in seconds per operation, or a
bandwidth, in bytes per second), and the OSU or IMB program it matches.

One table, read by the options (which names a family accepts), the
measurement (which C test and mode to call), `show` and the report (the
words), so a test's facts are written once."""
from __future__ import annotations

from dataclasses import dataclass

#: The four families, one benchmark each, in running order.
FAMILIES = ("p2p", "collectives", "nbc", "rma")


@dataclass(frozen=True)
class Test:
    """One test of a family."""

    name: str          #: the word on the command line and in the record ("latency", "allreduce", ...)
    family: str        #: one of FAMILIES
    constant: str      #: hpcbench._core's test constant ("MICRO_LATENCY")
    kind: str          #: "latency" (seconds per operation) or "bandwidth" (bytes per second)
    peer: str          #: the OSU / IMB program of the same pattern
    reduction: bool = False    #: sums floats: sizes are whole floats (multiples of 4 bytes)
    windowed: bool = False     #: an operation is a window of messages (--p2p-window)
    multi_pair: bool = False   #: runs over --p2p-pairs pairs
    nonblocking: str = ""      #: nbc: the MPI call (MPI_Iallreduce, ...)


def _p2p() -> list[Test]:
    return [
        Test("latency", "p2p", "MICRO_LATENCY", "latency", "osu_latency, IMB-MPI1 PingPong"),
        Test("bw", "p2p", "MICRO_BW", "bandwidth", "osu_bw", windowed=True),
        Test("bibw", "p2p", "MICRO_BIBW", "bandwidth", "osu_bibw", windowed=True),
        Test("mbw_mr", "p2p", "MICRO_MBW_MR", "bandwidth", "osu_mbw_mr", windowed=True, multi_pair=True),
        Test("multi_lat", "p2p", "MICRO_MULTI_LAT", "latency", "osu_multi_lat", multi_pair=True),
    ]


#: Collectives in OSU's order; the ones that sum floats.
_COLLECTIVES = ("barrier", "bcast", "allreduce", "reduce", "allgather", "allgatherv", "alltoall", "alltoallv",
                "gather", "gatherv", "scatter", "scatterv", "reduce_scatter")
_REDUCTIONS = {"allreduce", "reduce", "reduce_scatter"}


def _mpi_name(op: str, nonblocking: bool) -> str:
    name = op[0].upper() + op[1:]
    return f"MPI_I{op}" if nonblocking else f"MPI_{name}"


def _collectives() -> list[Test]:
    return [Test(op, "collectives", f"MICRO_{op.upper()}", "latency", f"osu_{op}, IMB-MPI1 {op.capitalize()}",
                 reduction=op in _REDUCTIONS) for op in _COLLECTIVES]


def _nbc() -> list[Test]:
    return [Test(f"i{op}", "nbc", f"MICRO_{op.upper()}", "latency", f"osu_i{op}, IMB-NBC I{op}",
                 reduction=op in _REDUCTIONS, nonblocking=_mpi_name(op, True)) for op in _COLLECTIVES]


def _rma() -> list[Test]:
    return [
        Test("put_latency", "rma", "MICRO_PUT_LATENCY", "latency", "osu_put_latency, IMB-RMA"),
        Test("get_latency", "rma", "MICRO_GET_LATENCY", "latency", "osu_get_latency, IMB-RMA"),
        Test("acc_latency", "rma", "MICRO_ACC_LATENCY", "latency", "osu_acc_latency, IMB-RMA", reduction=True),
        Test("put_bw", "rma", "MICRO_PUT_BW", "bandwidth", "osu_put_bw", windowed=True),
        Test("get_bw", "rma", "MICRO_GET_BW", "bandwidth", "osu_get_bw", windowed=True),
    ]


#: Every test, by name (names are unique across families).
TESTS: dict[str, Test] = {t.name: t for t in _p2p() + _collectives() + _nbc() + _rma()}

#: What each family runs in the default suite (a run without benchmark
#: names): the figures an acceptance test quotes first, at DEFAULT_SIZES.
DEFAULT_TESTS = {"p2p": ("latency", "bw"), "collectives": ("allreduce", "bcast", "alltoall"),
                 "nbc": ("iallreduce",), "rma": ("put_latency", "get_latency")}


def family_tests(family: str) -> tuple[str, ...]:
    """Every test of a family, in the order it runs."""
    return tuple(name for name, t in TESTS.items() if t.family == family)


#: The one-sided synchronisations (C: SYNC_FENCE, SYNC_LOCK).
SYNCS = ("fence", "lock")
