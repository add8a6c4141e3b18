"""What each test's figure is, in one sentence: the record keeps it beside
the numbers (MicroSeries.definition), `show` prints it above the table."""
from __future__ import annotations

from ._tests import Test

#: Words that apply to every collective (blocking and non-blocking).
_PER_CALL = ("each sample is one call after an untimed barrier (OSU's loop); hpcbench's figure is the slowest "
             "rank's time per call, OSU's and IMB's the mean over each rank's loop")


def definition(test: Test, window: int, pairs: int, sync: str | None) -> str:
    """The sentence for `test` as it ran (its window, pairs, sync)."""
    name = test.name
    if name == "latency":
        return ("OSU ping-pong: one-way time (half a round trip), each side answers from its own unchanged send "
                "buffer; comm's echo is CoMet's, which sends back what it received, so every round trip moves "
                "freshly written data")
    if name == "multi_lat":
        return f"{pairs} pair(s) ping-pong at once (rank i with rank i + {pairs}), one-way time, OSU's multi_lat"
    if name == "bw":
        return f"streaming: a window of {window} non-blocking sends, then a 4-byte acknowledgement (osu_bw)"
    if name == "bibw":
        return f"both directions at once, a window of {window} messages each way (osu_bibw)"
    if name == "mbw_mr":
        return (f"{pairs} pair(s) streaming at once, windows of {window} messages; bandwidth and message rate "
                "summed over the pairs (osu_mbw_mr)")
    if test.family == "collectives":
        return f"MPI_{name.capitalize()}: {_PER_CALL}"
    if test.family == "nbc":
        return (f"IMB-NBC: t_ovrl = {test.nonblocking} + computation as long as t_pure + MPI_Wait; t_pure = the "
                f"call and its wait alone; t_CPU = the computation alone; overlap = 100 (t_pure + t_CPU - t_ovrl)"
                f" / min(t_pure, t_CPU), clipped to 0..100; {_PER_CALL}")
    return _rma_definition(test, window, sync)


def _rma_definition(test: Test, window: int, sync: str | None) -> str:
    call = {"put": "MPI_Put", "get": "MPI_Get", "acc": "MPI_Accumulate (MPI_SUM of floats)"}[test.name.split("_")[0]]
    closing = ("MPI_Win_fence on both ranks" if sync == "fence"
               else "MPI_Win_lock (shared) and MPI_Win_unlock by the origin")
    if test.kind == "bandwidth":
        return f"{window} x {call} from rank 0 to rank 1's window, then one {closing} (OSU's {test.name})"
    return f"one {call} from rank 0 to rank 1's window and its {closing}, time per operation (OSU's {test.name})"
