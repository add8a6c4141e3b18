/* micro.h - the OSU and IMB micro-benchmark patterns: point-to-point
 * (latency, windowed and bidirectional bandwidth, multi-pair bandwidth and
 * message rate, multi-pair latency), every MPI collective, blocking or
 * non-blocking (IMB-NBC's pure and overlapped times), and one-sided put,
 * get and accumulate with fence or lock synchronisation.
 *
 * One params struct for all of them, one entry point (hpcb_micro_run), so
 * the Python side sweeps every test the same way. Each family's loops live
 * in their own file: micro_p2p.c, micro_coll.c, micro_rma.c; micro.c holds
 * the check and the dispatch.
 *
 * Every rank of the communicator calls the kernel. Timing: the kernel runs
 * `warmup` untimed samples, then `iterations` timed samples; a sample is
 * `inner` operations (an operation: one round trip of the latency tests, one
 * window and its acknowledgement of the bandwidth tests, one collective, one
 * RMA operation and its synchronisation), and ticks[i] is the time of sample
 * i on this rank (hpcb_ticks). A rank that takes no part in a test (a rank
 * beyond the pairs, a rank other than origin and target of one-sided tests)
 * only joins the barriers and leaves its ticks untouched (NaN in Python).
 *
 * Buffers: page-aligned, transparent huge pages from HPCB_MSGBUF_HUGE bytes
 * on (msgbuf.h), allocated and first touched before the timed loop by the
 * rank that uses them. Every payload carries a pattern and is verified
 * after the timed loop (HPCB_ECHECK if wrong, the samples then mean
 * nothing). The latency tests answer from an unchanged send buffer, as OSU
 * and IMB do (CoMet's echo, in p2p.h, sends back what it received). */
#ifndef HPCB_MICRO_H
#define HPCB_MICRO_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "../runtime/hpcb.h"
#include "../runtime/why.h"

/* The tests (Python: MICRO_LATENCY, ...). Sizes are bytes per message; for
 * the collectives as OSU counts them: bcast, reduce, allreduce, the whole
 * vector; reduce_scatter, the whole vector (each rank gets bytes/size of
 * it, rounded down to whole elements); allgather(v), alltoall(v), gather(v),
 * scatter(v), each rank's block per peer. Reductions (reduce, allreduce,
 * reduce_scatter and accumulate) sum MPI_FLOAT elements of small integers,
 * exact in float: bytes must be a multiple of 4. */
#define HPCB_MICRO_TESTS(X)                                                                    \
    X(MICRO_LATENCY) X(MICRO_BW) X(MICRO_BIBW) X(MICRO_MBW_MR) X(MICRO_MULTI_LAT)              \
    X(MICRO_BARRIER) X(MICRO_BCAST) X(MICRO_ALLREDUCE) X(MICRO_REDUCE) X(MICRO_ALLGATHER)       \
    X(MICRO_ALLGATHERV) X(MICRO_ALLTOALL) X(MICRO_ALLTOALLV) X(MICRO_GATHER) X(MICRO_GATHERV)   \
    X(MICRO_SCATTER) X(MICRO_SCATTERV) X(MICRO_REDUCE_SCATTER)                                  \
    X(MICRO_PUT_LATENCY) X(MICRO_GET_LATENCY) X(MICRO_ACC_LATENCY) X(MICRO_PUT_BW) X(MICRO_GET_BW)
enum hpcb_micro_test { HPCB_MICRO_TESTS(HPCB_ENUMERATOR) HPCB_MICRO_TEST_COUNT };

/* The first collective and the first one-sided test: the families are
 * contiguous ranges of the list. */
#define HPCB_MICRO_FIRST_COLLECTIVE HPCB_MICRO_BARRIER
#define HPCB_MICRO_FIRST_RMA HPCB_MICRO_PUT_LATENCY

/* How a collective runs (Python: MODE_BLOCKING, ...). BLOCKING: the MPI
 * call. PURE: the non-blocking call (MPI_Ibcast, ...) and MPI_Wait at once:
 * IMB-NBC's t_pure. OVERLAP: the non-blocking call, then compute_ticks of
 * computation that makes no MPI call, then MPI_Wait: IMB-NBC's t_ovrl;
 * cpu_ticks[i] receives the computation's own time in sample i. CPU: the
 * computation alone, no communication: IMB-NBC's t_CPU. Point-to-point and
 * one-sided tests take BLOCKING only. */
#define HPCB_MICRO_MODES(X) X(MODE_BLOCKING) X(MODE_PURE) X(MODE_OVERLAP) X(MODE_CPU)
enum hpcb_micro_mode { HPCB_MICRO_MODES(HPCB_ENUMERATOR) HPCB_MICRO_MODE_COUNT };

/* One-sided synchronisation (Python: SYNC_FENCE, SYNC_LOCK). FENCE: every
 * operation (or window of operations) is closed by MPI_Win_fence on both
 * ranks. LOCK: the origin opens MPI_Win_lock(MPI_LOCK_SHARED) on the
 * target, issues the operation(s) and MPI_Win_unlock, as OSU's lock mode. */
#define HPCB_MICRO_SYNCS(X) X(SYNC_FENCE) X(SYNC_LOCK)
enum hpcb_micro_sync { HPCB_MICRO_SYNCS(HPCB_ENUMERATOR) HPCB_MICRO_SYNC_COUNT };

/* The largest window and the largest compute time a caller may ask for. */
#define HPCB_MICRO_MAX_WINDOW ((size_t)1 << 16)
#define HPCB_MICRO_MAX_INNER ((size_t)1000000)
#define HPCB_MICRO_MAX_COMPUTE ((uint64_t)1 << 40)

struct hpcb_micro_params {
    MPI_Comm comm;
    int test;             /* enum hpcb_micro_test */
    int mode;             /* enum hpcb_micro_mode (collectives only; else BLOCKING) */
    int sync;             /* enum hpcb_micro_sync (one-sided only; else ignored) */
    int pairs;            /* MBW_MR and MULTI_LAT: ranks 0..pairs-1 talk to pairs..2*pairs-1,
                           * 1 <= pairs <= size/2; the other tests: 1 (ranks 0 and 1) */
    size_t bytes;         /* message size, 0..INT32_MAX (see the list above) */
    size_t window;        /* BW, BIBW, MBW_MR, PUT_BW, GET_BW: messages in flight per
                           * operation, 1..HPCB_MICRO_MAX_WINDOW; the others: 1 */
    size_t warmup;        /* untimed samples */
    size_t iterations;    /* timed samples, 1..HPCB_MAX_SAMPLES */
    size_t inner;         /* operations per sample, 1..HPCB_MICRO_MAX_INNER */
    uint64_t compute_ticks;  /* MODE_OVERLAP and MODE_CPU: ticks of computation per
                              * operation, 0..HPCB_MICRO_MAX_COMPUTE */
};

struct hpcb_micro_out {
    double *ticks;        /* iterations: this rank's time of each sample */
    double *cpu_ticks;    /* iterations: MODE_OVERLAP's computation per sample; may be
                           * NULL in the other modes */
};

/* The rules about the test, mode, sync, sizes and counts (no communicator
 * needed): for callers that validate options first. */
int hpcb_micro_check_sizes(const struct hpcb_micro_params *p, struct hpcb_why *why);
/* Those, then the communicator: at least 2 ranks, 2*pairs ranks. */
int hpcb_micro_check(const struct hpcb_micro_params *p, struct hpcb_why *why);

/* Runs the test (the check first), verifies the payloads. HPCB_EMPI if an
 * MPI call fails (one-sided: also where the MPI library cannot create a
 * window), HPCB_ECHECK if a payload is wrong. */
int hpcb_micro_run(const struct hpcb_micro_params *p, struct hpcb_micro_out *out);

/* 1 if this MPI library creates a window on `comm` (collective: every rank
 * calls it), 0 if it refuses; errors are returned to the caller, not
 * fatal. For refusing one-sided tests up front, in one line. */
int hpcb_micro_rma_available(MPI_Comm comm, int *available);

/* The families' runners (micro_p2p.c, micro_coll.c, micro_rma.c), called by
 * hpcb_micro_run after the check with this rank and the size. */
int hpcb_micro_p2p(const struct hpcb_micro_params *p, struct hpcb_micro_out *out, int rank, int size);
int hpcb_micro_collective(const struct hpcb_micro_params *p, struct hpcb_micro_out *out, int rank, int size);
int hpcb_micro_rma(const struct hpcb_micro_params *p, struct hpcb_micro_out *out, int rank, int size);

/* Whether sample i of a point-to-point or one-sided loop starts with a
 * barrier of the whole comm: the first warm-up sample and the first timed
 * one do, the others follow on without, as OSU's loops pass one barrier
 * and then time operation after operation. A barrier before every sample
 * made the operation after it the slow one: get_latency with fence read
 * 1.02 to 1.03x a plain C loop at 4 KiB. The pattern's own messages (the
 * ping-pong, the acknowledgement, the fence) keep the ranks in step.
 * Collectives keep a barrier before every call, as OSU's do. */
static inline int hpcb_micro_sample_barrier(size_t i, size_t warmup)
{
    return i == 0 || i == warmup;
}

/* Whether every rank of comm set up its side (buffers, requests, window):
 * local_rc, or the worst status of any rank, so that a rank whose
 * allocation failed does not leave the others waiting in the timed loop.
 * Collective over comm. */
int hpcb_micro_agree(MPI_Comm comm, int local_rc);

/* The computation of MODE_OVERLAP and MODE_CPU: `ticks` of arithmetic on
 * registers, no memory traffic, no MPI call (micro_coll.c). */
void hpcb_micro_compute(uint64_t ticks);

#endif /* HPCB_MICRO_H */
