/* micro_rma.c - the one-sided tests of micro.h, OSU's patterns: put, get
 * and accumulate latency, put and get bandwidth, closed by a fence of the
 * whole window or by the origin's lock and unlock of the target.
 *
 * Rank 0 is the origin, rank 1 the target. The window is created over the
 * whole communicator with MPI_Win_allocate (every rank must join its
 * collective calls; ranks beyond 1 expose 0 bytes): allocate, not
 * MPI_Win_create on our own buffer, because only memory the MPI library
 * allocates itself can be shared memory it accesses directly (Open MPI's
 * osc/sm within a node), and that is OSU's default too.
 *
 * Displacements: every put writes the target's displacement 0 from the
 * same origin buffer, as OSU does (the bytes are identical, so the
 * concurrent puts of a window agree). Every get reads displacement 0 into
 * its own slice of a window * bytes origin buffer: MPI forbids two gets of
 * one epoch writing the same origin bytes. */
#include <stdlib.h>
#include <string.h>

#include "../runtime/timer.h"
#include "micro.h"
#include "msgbuf.h"

#define ORIGIN 0
#define TARGET 1
#define ACC_VALUES 7   /* the origin adds (element % 7) + 1 */

struct rma_run {
    MPI_Win win;
    unsigned char *window_base;   /* this rank's part of the window (the target's: the payload) */
    struct hpcb_region local;     /* the origin's buffer */
    int count;                    /* bytes per put/get; floats per accumulate */
    int window;                   /* operations per synchronisation */
    size_t local_bytes;
};

static int is_get(int test)
{
    return test == HPCB_MICRO_GET_LATENCY || test == HPCB_MICRO_GET_BW;
}

/* One operation of each test, one synchronisation of each kind. */
static inline int put_ops(const struct rma_run *r)
{
    for (int w = 0; w < r->window; w++)
        if (MPI_Put(r->local.data, r->count, MPI_BYTE, TARGET, 0, r->count, MPI_BYTE, r->win) != MPI_SUCCESS)
            return HPCB_EMPI;
    return HPCB_OK;
}

static inline int get_ops(const struct rma_run *r)
{
    unsigned char *slice = r->local.data;
    for (int w = 0; w < r->window; w++, slice += r->count)
        if (MPI_Get(slice, r->count, MPI_BYTE, TARGET, 0, r->count, MPI_BYTE, r->win) != MPI_SUCCESS)
            return HPCB_EMPI;
    return HPCB_OK;
}

static inline int acc_ops(const struct rma_run *r)
{
    return MPI_Accumulate(r->local.data, r->count, MPI_FLOAT, TARGET, 0, r->count, MPI_FLOAT, MPI_SUM, r->win) ==
                   MPI_SUCCESS
               ? HPCB_OK
               : HPCB_EMPI;
}

static inline int no_ops(const struct rma_run *r)
{
    (void)r;
    return HPCB_OK;
}

static inline int lock_target(const struct rma_run *r)
{
    return MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, r->win) == MPI_SUCCESS ? HPCB_OK : HPCB_EMPI;
}

static inline int unlock_target(const struct rma_run *r)
{
    return MPI_Win_unlock(TARGET, r->win) == MPI_SUCCESS ? HPCB_OK : HPCB_EMPI;
}

static inline int fence(const struct rma_run *r)
{
    return MPI_Win_fence(0, r->win) == MPI_SUCCESS ? HPCB_OK : HPCB_EMPI;
}

static inline int nothing(const struct rma_run *r)
{
    (void)r;
    return HPCB_OK;
}

/* One sample loop per operation and synchronisation: the untimed barrier
 * where hpcb_micro_sample_barrier says, then `inner` times open,
 * operations, close between the timer reads.
 * `record` 0: the rank runs the loop (a fence rank) but leaves its ticks. */
#define RMA_SAMPLE_LOOP(name, open, ops, close)                                                             \
    static int name(const struct hpcb_micro_params *p, struct hpcb_micro_out *out, const struct rma_run *r, \
                    int record)                                                                             \
    {                                                                                                       \
        size_t samples = p->warmup + p->iterations;                                                         \
        for (size_t i = 0; i < samples; i++) {                                                              \
            if (hpcb_micro_sample_barrier(i, p->warmup) && MPI_Barrier(p->comm) != MPI_SUCCESS)            \
                return HPCB_EMPI;                                                                           \
            int rc = HPCB_OK;                                                                               \
            uint64_t t0 = hpcb_ticks();                                                                     \
            for (size_t k = 0; rc == HPCB_OK && k < p->inner; k++)                                          \
                if ((rc = open(r)) == HPCB_OK && (rc = ops(r)) == HPCB_OK)                                  \
                    rc = close(r);                                                                          \
            uint64_t t1 = hpcb_ticks();                                                                     \
            if (rc != HPCB_OK)                                                                              \
                return rc;                                                                                  \
            if (record && i >= p->warmup)                                                                   \
                out->ticks[i - p->warmup] = (double)(t1 - t0);                                              \
        }                                                                                                   \
        return HPCB_OK;                                                                                     \
    }

RMA_SAMPLE_LOOP(samples_put_lock, lock_target, put_ops, unlock_target)
RMA_SAMPLE_LOOP(samples_get_lock, lock_target, get_ops, unlock_target)
RMA_SAMPLE_LOOP(samples_acc_lock, lock_target, acc_ops, unlock_target)
RMA_SAMPLE_LOOP(samples_put_fence, nothing, put_ops, fence)
RMA_SAMPLE_LOOP(samples_get_fence, nothing, get_ops, fence)
RMA_SAMPLE_LOOP(samples_acc_fence, nothing, acc_ops, fence)
RMA_SAMPLE_LOOP(samples_fence_only, nothing, no_ops, fence)
RMA_SAMPLE_LOOP(samples_barrier_only, nothing, no_ops, nothing)

/* The origin's loop for the test and synchronisation. */
static int origin_samples(const struct hpcb_micro_params *p, struct hpcb_micro_out *out, const struct rma_run *r)
{
    int lock = p->sync == HPCB_SYNC_LOCK;
    if (is_get(p->test))
        return lock ? samples_get_lock(p, out, r, 1) : samples_get_fence(p, out, r, 1);
    if (p->test == HPCB_MICRO_ACC_LATENCY)
        return lock ? samples_acc_lock(p, out, r, 1) : samples_acc_fence(p, out, r, 1);
    return lock ? samples_put_lock(p, out, r, 1) : samples_put_fence(p, out, r, 1);
}

/* The whole loop on this rank: the origin operates; with fences every rank
 * fences (the target records its fences' time, the others do not); with
 * locks the other ranks only join the barriers. */
static int run_samples(const struct hpcb_micro_params *p, struct hpcb_micro_out *out, const struct rma_run *r,
                       int rank)
{
    int fenced = p->sync == HPCB_SYNC_FENCE;
    if (fenced && MPI_Win_fence(MPI_MODE_NOPRECEDE, r->win) != MPI_SUCCESS)
        return HPCB_EMPI;
    int rc;
    if (rank == ORIGIN)
        rc = origin_samples(p, out, r);
    else if (fenced)
        rc = samples_fence_only(p, out, r, rank == TARGET);
    else
        rc = samples_barrier_only(p, out, r, 0);
    if (fenced && rc == HPCB_OK && MPI_Win_fence(MPI_MODE_NOSUCCEED, r->win) != MPI_SUCCESS)
        rc = HPCB_EMPI;
    return rc;
}

/* The float each accumulate adds to element i, and what element i holds
 * after `operations` of them, computed in float the same way the target
 * sums (the sum is exact while it stays below 2^24; beyond, rounding is
 * the same on both sides, and once an addition stops changing the sum it
 * never changes it again, so the loop ends early). */
static float acc_value(size_t i)
{
    return (float)(i % ACC_VALUES + 1);
}

static float acc_expected(float value, size_t operations)
{
    volatile float sum = 0.0f;   /* volatile: each step rounded to float, as the target's */
    for (size_t n = 0; n < operations; n++) {
        float next = sum + value;
        if (next == sum)
            break;
        sum = next;
    }
    return sum;
}

/* The payload's initial contents: the target's window and the origin's
 * buffer (put: the origin's pattern; get: the complement of the target's;
 * accumulate: zeros at the target, the values at the origin). The target
 * writes its window inside a lock of itself, so the writes are visible to
 * RMA whatever the memory model. */
static int fill_payload(const struct hpcb_micro_params *p, struct rma_run *r, int rank)
{
    unsigned char *local = r->local.data;
    if (rank == ORIGIN) {
        if (p->test == HPCB_MICRO_ACC_LATENCY)
            for (size_t i = 0; i < (size_t)r->count; i++)
                ((float *)local)[i] = acc_value(i);
        else if (is_get(p->test))
            for (int w = 0; w < r->window; w++)
                hpcb_pattern_fill_complement(local + (size_t)w * p->bytes, p->bytes, TARGET);
        else
            hpcb_pattern_fill(local, r->local_bytes, ORIGIN);
        return HPCB_OK;
    }
    if (rank != TARGET)
        return HPCB_OK;
    if (MPI_Win_lock(MPI_LOCK_EXCLUSIVE, TARGET, 0, r->win) != MPI_SUCCESS)
        return HPCB_EMPI;
    if (p->test == HPCB_MICRO_ACC_LATENCY)
        memset(r->window_base, 0, p->bytes);   /* all-zero bytes are 0.0f */
    else if (is_get(p->test))
        hpcb_pattern_fill(r->window_base, p->bytes, TARGET);
    else
        hpcb_pattern_fill_complement(r->window_base, p->bytes, ORIGIN);
    return MPI_Win_unlock(TARGET, r->win) == MPI_SUCCESS ? HPCB_OK : HPCB_EMPI;
}

static int payload_ok(const struct hpcb_micro_params *p, const struct rma_run *r, int rank)
{
    if (p->test == HPCB_MICRO_ACC_LATENCY) {
        size_t operations = (p->warmup + p->iterations) * p->inner;
        float expected[ACC_VALUES];
        for (size_t v = 0; v < ACC_VALUES; v++)
            expected[v] = acc_expected(acc_value(v), operations);
        const float *sums = (const float *)(const void *)r->window_base;
        for (size_t i = 0; i < (size_t)r->count; i++)
            if (sums[i] != expected[i % ACC_VALUES])
                return 0;
        return 1;
    }
    if (rank == ORIGIN) {   /* get: every slice holds the target's pattern */
        const unsigned char *local = r->local.data;
        for (int w = 0; w < r->window; w++)
            if (!hpcb_pattern_check(local + (size_t)w * p->bytes, p->bytes, TARGET))
                return 0;
        return 1;
    }
    return hpcb_pattern_check(r->window_base, p->bytes, ORIGIN);
}

/* The window over the whole comm (the target's part holds the payload),
 * errors returned, and the origin's buffer. */
static int rma_setup(const struct hpcb_micro_params *p, struct rma_run *r, int rank)
{
    MPI_Aint exposed = rank == TARGET ? (MPI_Aint)p->bytes : 0;
    r->win = MPI_WIN_NULL;
    if (MPI_Win_allocate(exposed, 1, MPI_INFO_NULL, p->comm, &r->window_base, &r->win) != MPI_SUCCESS) {
        r->win = MPI_WIN_NULL;
        return HPCB_EMPI;
    }
    if (MPI_Win_set_errhandler(r->win, MPI_ERRORS_RETURN) != MPI_SUCCESS)
        return HPCB_EMPI;
    if (rank != ORIGIN)
        return HPCB_OK;
    r->local_bytes = p->bytes * (is_get(p->test) ? p->window : 1);
    return hpcb_msgbuf_alloc(&r->local, r->local_bytes);
}

/* After the loop: every operation has completed at the target (the last
 * fence or unlock); the barrier orders the check after them, and the
 * checking rank reads under a lock of its own window part (the target) so
 * that it sees them whatever the memory model. */
static int verify_payload(const struct hpcb_micro_params *p, const struct rma_run *r, int rank)
{
    if (MPI_Barrier(p->comm) != MPI_SUCCESS)
        return HPCB_EMPI;
    if (rank == ORIGIN && is_get(p->test))
        return payload_ok(p, r, rank) ? HPCB_OK : HPCB_ECHECK;
    if (rank != TARGET || is_get(p->test))
        return HPCB_OK;
    if (MPI_Win_lock(MPI_LOCK_EXCLUSIVE, TARGET, 0, r->win) != MPI_SUCCESS)
        return HPCB_EMPI;
    int ok = payload_ok(p, r, rank);
    if (MPI_Win_unlock(TARGET, r->win) != MPI_SUCCESS)
        return HPCB_EMPI;
    return ok ? HPCB_OK : HPCB_ECHECK;
}

int hpcb_micro_rma(const struct hpcb_micro_params *p, struct hpcb_micro_out *out, int rank, int size)
{
    (void)size;   /* the check made sure ranks 0 and 1 exist */
    struct rma_run r = {.count = (int)p->bytes, .window = (int)p->window};
    if (p->test == HPCB_MICRO_ACC_LATENCY)
        r.count = (int)(p->bytes / sizeof(float));
    int rc = rma_setup(p, &r, rank);
    if (rc == HPCB_OK)
        rc = fill_payload(p, &r, rank);
    /* The target's initial payload is in place before any origin operation. */
    rc = hpcb_micro_agree(p->comm, rc);
    if (rc == HPCB_OK)
        rc = run_samples(p, out, &r, rank);
    if (rc == HPCB_OK)
        rc = verify_payload(p, &r, rank);
    if (r.win != MPI_WIN_NULL && MPI_Win_free(&r.win) != MPI_SUCCESS && rc == HPCB_OK)
        rc = HPCB_EMPI;
    hpcb_region_free(&r.local);
    return rc;
}

int hpcb_micro_rma_available(MPI_Comm comm, int *available)
{
    MPI_Errhandler previous;
    int local = 0;
    if (MPI_Comm_get_errhandler(comm, &previous) == MPI_SUCCESS) {
        /* A library without one-sided support refuses the window: returned, not fatal. */
        if (MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) == MPI_SUCCESS) {
            void *base = NULL;
            MPI_Win win = MPI_WIN_NULL;
            local = MPI_Win_allocate(8, 1, MPI_INFO_NULL, comm, &base, &win) == MPI_SUCCESS;
            if (local && MPI_Win_free(&win) != MPI_SUCCESS)
                local = 0;
            if (MPI_Comm_set_errhandler(comm, previous) != MPI_SUCCESS)
                local = 0;
        }
        MPI_Errhandler_free(&previous);
    }
    *available = 0;
    if (MPI_Allreduce(&local, available, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return HPCB_EMPI;
    return HPCB_OK;
}
