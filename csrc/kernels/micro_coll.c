/* micro_coll.c - the collectives of micro.h (OSU 7's osu_<collective> and
 * osu_i<collective>, IMB-MPI1 and IMB-NBC), and the computation that
 * IMB-NBC overlaps with them.
 *
 * Every rank runs warmup + iterations samples: an untimed MPI_Barrier, then
 * `inner` operations between two timer reads. Root 0 for the rooted
 * collectives, MPI_FLOAT sums for the reductions, separate send and receive
 * buffers (MPI_IN_PLACE measured slower on this machine, issue 28), the v
 * variants with the plain variants' counts: all as OSU does. The timed
 * loop is expanded once per (collective, mode) by the macros below, so
 * nothing but the MPI calls (and in MODE_OVERLAP the computation and its
 * two timer reads) sits between the timer reads. After the loop every
 * rank checks what it received (msgbuf.h's patterns; exact float sums for
 * the reductions). */
#include "micro.h"

#include <stdlib.h>

#include "../runtime/timer.h"
#include "msgbuf.h"

/* What the timed loops pass to MPI. */
struct coll_args {
    void *send, *recv;
    int count;             /* bytes per block, or floats of a reduction's vector */
    const int *counts;     /* per rank: count (v variants) or each rank's floats (reduce_scatter) */
    const int *displs;     /* per rank: r * count bytes (v variants) */
    MPI_Comm comm;
};

/* One run of one collective in one mode. */
struct coll_run {
    struct coll_args a;
    size_t warmup, iterations, inner;
    uint64_t compute_ticks;
    double *ticks, *cpu_ticks;
};

#define MPI_TRY(call)                                                                                             \
    do {                                                                                                          \
        if ((call) != MPI_SUCCESS)                                                                                \
            return HPCB_EMPI;                                                                                     \
    } while (0)

/* The loop every mode shares: samples of an untimed barrier, then `inner`
 * times OP between two timer reads; OP may return HPCB_EMPI. The run's
 * fields are copied into locals first: a local whose address never
 * escapes stays in registers across the MPI calls, so the timed interval
 * holds no reloads through a pointer. EXTRA runs after each sample's
 * second timer read (MODE_OVERLAP records its computation there). */
#define COLL_SAMPLES(run, OP, EXTRA)                                                                              \
    const struct coll_args a = (run)->a;                                                                          \
    const size_t warmup = (run)->warmup, samples = (run)->warmup + (run)->iterations, inner = (run)->inner;     \
    const uint64_t compute_ticks = (run)->compute_ticks;                                                          \
    double *const ticks = (run)->ticks, *const cpu_ticks = (run)->cpu_ticks;                                     \
    (void)compute_ticks;                                                                                          \
    (void)cpu_ticks;                                                                                              \
    for (size_t i = 0; i < samples; i++) {                                                                        \
        uint64_t cpu = 0;                                                                                         \
        (void)cpu;                                                                                                \
        MPI_TRY(MPI_Barrier(a.comm));                                                                             \
        uint64_t t0 = hpcb_ticks();                                                                               \
        for (size_t k = 0; k < inner; k++) {                                                                      \
            OP;                                                                                                   \
        }                                                                                                         \
        uint64_t t1 = hpcb_ticks();                                                                               \
        if (i >= warmup) {                                                                                        \
            ticks[i - warmup] = (double)(t1 - t0);                                                                \
            EXTRA;                                                                                                \
        }                                                                                                         \
    }                                                                                                             \
    return HPCB_OK

/* One collective's three loops: BLOCKING is its blocking call, START its
 * non-blocking call on `req` (both in terms of `a`, the coll_args). */
#define COLL_LOOPS(name, BLOCKING, START)                                                                         \
    static int name##_blocking(const struct coll_run *run)                                                        \
    {                                                                                                             \
        COLL_SAMPLES(run, MPI_TRY(BLOCKING), (void)0);                                                            \
    }                                                                                                             \
    static int name##_pure(const struct coll_run *run)                                                            \
    {                                                                                                             \
        MPI_Request req;                                                                                          \
        COLL_SAMPLES(run, MPI_TRY(START); MPI_TRY(MPI_Wait(&req, MPI_STATUS_IGNORE)), (void)0);                   \
    }                                                                                                             \
    static int name##_overlap(const struct coll_run *run)                                                         \
    {                                                                                                             \
        MPI_Request req;                                                                                          \
        COLL_SAMPLES(run, MPI_TRY(START); uint64_t c0 = hpcb_ticks(); hpcb_micro_compute(compute_ticks);          \
                     cpu += hpcb_ticks() - c0; MPI_TRY(MPI_Wait(&req, MPI_STATUS_IGNORE)),                        \
                     cpu_ticks[i - warmup] = (double)cpu);                                                        \
    }

COLL_LOOPS(barrier, MPI_Barrier(a.comm), MPI_Ibarrier(a.comm, &req))
COLL_LOOPS(bcast, MPI_Bcast(a.recv, a.count, MPI_BYTE, 0, a.comm),
           MPI_Ibcast(a.recv, a.count, MPI_BYTE, 0, a.comm, &req))
COLL_LOOPS(allreduce, MPI_Allreduce(a.send, a.recv, a.count, MPI_FLOAT, MPI_SUM, a.comm),
           MPI_Iallreduce(a.send, a.recv, a.count, MPI_FLOAT, MPI_SUM, a.comm, &req))
COLL_LOOPS(reduce, MPI_Reduce(a.send, a.recv, a.count, MPI_FLOAT, MPI_SUM, 0, a.comm),
           MPI_Ireduce(a.send, a.recv, a.count, MPI_FLOAT, MPI_SUM, 0, a.comm, &req))
COLL_LOOPS(allgather, MPI_Allgather(a.send, a.count, MPI_BYTE, a.recv, a.count, MPI_BYTE, a.comm),
           MPI_Iallgather(a.send, a.count, MPI_BYTE, a.recv, a.count, MPI_BYTE, a.comm, &req))
COLL_LOOPS(allgatherv, MPI_Allgatherv(a.send, a.count, MPI_BYTE, a.recv, a.counts, a.displs, MPI_BYTE, a.comm),
           MPI_Iallgatherv(a.send, a.count, MPI_BYTE, a.recv, a.counts, a.displs, MPI_BYTE, a.comm, &req))
COLL_LOOPS(alltoall, MPI_Alltoall(a.send, a.count, MPI_BYTE, a.recv, a.count, MPI_BYTE, a.comm),
           MPI_Ialltoall(a.send, a.count, MPI_BYTE, a.recv, a.count, MPI_BYTE, a.comm, &req))
COLL_LOOPS(alltoallv,
           MPI_Alltoallv(a.send, a.counts, a.displs, MPI_BYTE, a.recv, a.counts, a.displs, MPI_BYTE, a.comm),
           MPI_Ialltoallv(a.send, a.counts, a.displs, MPI_BYTE, a.recv, a.counts, a.displs, MPI_BYTE, a.comm, &req))
COLL_LOOPS(gather, MPI_Gather(a.send, a.count, MPI_BYTE, a.recv, a.count, MPI_BYTE, 0, a.comm),
           MPI_Igather(a.send, a.count, MPI_BYTE, a.recv, a.count, MPI_BYTE, 0, a.comm, &req))
COLL_LOOPS(gatherv, MPI_Gatherv(a.send, a.count, MPI_BYTE, a.recv, a.counts, a.displs, MPI_BYTE, 0, a.comm),
           MPI_Igatherv(a.send, a.count, MPI_BYTE, a.recv, a.counts, a.displs, MPI_BYTE, 0, a.comm, &req))
COLL_LOOPS(scatter, MPI_Scatter(a.send, a.count, MPI_BYTE, a.recv, a.count, MPI_BYTE, 0, a.comm),
           MPI_Iscatter(a.send, a.count, MPI_BYTE, a.recv, a.count, MPI_BYTE, 0, a.comm, &req))
COLL_LOOPS(scatterv, MPI_Scatterv(a.send, a.counts, a.displs, MPI_BYTE, a.recv, a.count, MPI_BYTE, 0, a.comm),
           MPI_Iscatterv(a.send, a.counts, a.displs, MPI_BYTE, a.recv, a.count, MPI_BYTE, 0, a.comm, &req))
COLL_LOOPS(reduce_scatter, MPI_Reduce_scatter(a.send, a.recv, a.counts, MPI_FLOAT, MPI_SUM, a.comm),
           MPI_Ireduce_scatter(a.send, a.recv, a.counts, MPI_FLOAT, MPI_SUM, a.comm, &req))

/* MODE_CPU: the computation alone, no MPI call but the barrier (IMB-NBC's t_CPU). */
static int cpu_only(const struct coll_run *run)
{
    COLL_SAMPLES(run, hpcb_micro_compute(compute_ticks), (void)0);
}

struct coll_loops {
    int (*blocking)(const struct coll_run *);
    int (*pure)(const struct coll_run *);
    int (*overlap)(const struct coll_run *);
};

/* Each collective's loops, chosen once before the loop (run_mode). */
#define COLL_ENTRY(test, name)                                                                                    \
    [HPCB_##test - HPCB_MICRO_FIRST_COLLECTIVE] = {name##_blocking, name##_pure, name##_overlap}
static const struct coll_loops loops[HPCB_MICRO_FIRST_RMA - HPCB_MICRO_FIRST_COLLECTIVE] = {
    COLL_ENTRY(MICRO_BARRIER, barrier),       COLL_ENTRY(MICRO_BCAST, bcast),
    COLL_ENTRY(MICRO_ALLREDUCE, allreduce),   COLL_ENTRY(MICRO_REDUCE, reduce),
    COLL_ENTRY(MICRO_ALLGATHER, allgather),   COLL_ENTRY(MICRO_ALLGATHERV, allgatherv),
    COLL_ENTRY(MICRO_ALLTOALL, alltoall),     COLL_ENTRY(MICRO_ALLTOALLV, alltoallv),
    COLL_ENTRY(MICRO_GATHER, gather),         COLL_ENTRY(MICRO_GATHERV, gatherv),
    COLL_ENTRY(MICRO_SCATTER, scatter),       COLL_ENTRY(MICRO_SCATTERV, scatterv),
    COLL_ENTRY(MICRO_REDUCE_SCATTER, reduce_scatter),
};

/* ---- buffers, payloads and their verification ---- */

/* The block collectives' buffers: `blocks` blocks of `bytes`, block j
 * carrying the pattern of seed0 + step * j. */
struct coll_blocks {
    size_t blocks;
    unsigned seed0, step;
};

/* Everything a run allocates, freed by coll_free on every path. */
struct coll_buffers {
    struct hpcb_region send, recv;
    int *counts, *displs;
};

static int is_reduction(int test)
{
    return test == HPCB_MICRO_ALLREDUCE || test == HPCB_MICRO_REDUCE || test == HPCB_MICRO_REDUCE_SCATTER;
}

/* The block layout of a byte collective on this rank: what it sends and
 * what it must end up holding. Gather's non-roots receive nothing,
 * scatter's non-roots send nothing (zero blocks). Alltoall: block r of
 * s's send buffer goes to rank r, with seed s * size + r. */
static void block_layout(int test, int rank, int size, struct coll_blocks *send, struct coll_blocks *recv)
{
    unsigned r = (unsigned)rank, n = (unsigned)size;
    switch (test) {
    case HPCB_MICRO_ALLGATHER: case HPCB_MICRO_ALLGATHERV: case HPCB_MICRO_GATHER: case HPCB_MICRO_GATHERV:
        *send = (struct coll_blocks){1, r, 0};
        *recv = (struct coll_blocks){(test == HPCB_MICRO_ALLGATHER || test == HPCB_MICRO_ALLGATHERV || rank == 0)
                                         ? n : 0, 0, 1};
        break;
    case HPCB_MICRO_SCATTER: case HPCB_MICRO_SCATTERV:
        *send = (struct coll_blocks){rank == 0 ? n : 0, 0, 1};
        *recv = (struct coll_blocks){1, r, 0};
        break;
    case HPCB_MICRO_ALLTOALL: case HPCB_MICRO_ALLTOALLV:
        *send = (struct coll_blocks){n, r * n, 1};
        *recv = (struct coll_blocks){n, r, n};
        break;
    default:   /* the broadcast: one buffer of the root's pattern, the complement elsewhere */
        *send = (struct coll_blocks){rank == 0 ? 1 : 0, 0, 0};
        *recv = (struct coll_blocks){rank == 0 ? 0 : 1, 0, 0};
    }
}

static void fill_blocks(unsigned char *buf, size_t bytes, const struct coll_blocks *b, int complement)
{
    for (size_t j = 0; j < b->blocks; j++) {
        unsigned seed = b->seed0 + b->step * (unsigned)j;
        if (complement)
            hpcb_pattern_fill_complement(buf + j * bytes, bytes, seed);
        else
            hpcb_pattern_fill(buf + j * bytes, bytes, seed);
    }
}

static int check_blocks(const unsigned char *buf, size_t bytes, const struct coll_blocks *b)
{
    for (size_t j = 0; j < b->blocks; j++)
        if (!hpcb_pattern_check(buf + j * bytes, bytes, b->seed0 + b->step * (unsigned)j))
            return HPCB_ECHECK;
    return HPCB_OK;
}

/* Element i of rank's contribution to a sum: small integers, so the sum over
 * a few thousand ranks, (size (size + 1) / 2) * (i % 7 + 1), is exact. */
static float contribution(int rank, size_t i)
{
    return (float)(rank + 1) * (float)(i % 7 + 1);
}

/* The floats this rank receives of a reduction, and where they start in
 * the global vector: reduce_scatter's equal parts (the remainder of
 * count / size is not sent, as OSU), reduce's root only. */
static size_t reduced_part(int test, size_t count, int rank, int size, size_t *first)
{
    *first = 0;
    if (test == HPCB_MICRO_REDUCE_SCATTER) {
        *first = (size_t)rank * (count / (size_t)size);
        return count / (size_t)size;
    }
    return test == HPCB_MICRO_REDUCE && rank != 0 ? 0 : count;
}

static int check_sums(const float *got, size_t n, size_t first, int size)
{
    float ranks_sum = (float)size * (float)(size + 1) / 2.0f;
    for (size_t j = 0; j < n; j++)
        if (got[j] != ranks_sum * (float)((first + j) % 7 + 1))
            return HPCB_ECHECK;
    return HPCB_OK;
}

/* The reductions' buffers: the contributions, and a result that starts
 * negative (every expected sum is positive, so each element must change). */
static int reduction_setup(const struct hpcb_micro_params *p, int rank, int size, struct coll_buffers *bufs)
{
    size_t count = p->bytes / sizeof(float), first;
    size_t part = reduced_part(p->test, count, rank, size, &first);
    int rc = hpcb_msgbuf_alloc(&bufs->send, count * sizeof(float));
    if (rc == HPCB_OK)
        rc = hpcb_msgbuf_alloc(&bufs->recv, part * sizeof(float));
    if (rc != HPCB_OK)
        return rc;
    float *in = bufs->send.data, *res = bufs->recv.data;
    for (size_t i = 0; i < count; i++)
        in[i] = contribution(rank, i);
    for (size_t j = 0; j < part; j++)
        res[j] = -1.0f;
    return HPCB_OK;
}

static int block_setup(const struct hpcb_micro_params *p, int rank, int size, struct coll_buffers *bufs)
{
    struct coll_blocks send, recv;
    block_layout(p->test, rank, size, &send, &recv);
    if (p->test == HPCB_MICRO_BCAST) {   /* one buffer, sent from and received into */
        int rc = hpcb_msgbuf_alloc(&bufs->recv, p->bytes);
        if (rc == HPCB_OK)
            fill_blocks(bufs->recv.data, p->bytes, rank == 0 ? &send : &recv, rank != 0);
        return rc;
    }
    int rc = hpcb_msgbuf_alloc(&bufs->send, send.blocks * p->bytes);
    if (rc == HPCB_OK)
        rc = hpcb_msgbuf_alloc(&bufs->recv, recv.blocks * p->bytes);
    if (rc != HPCB_OK)
        return rc;
    fill_blocks(bufs->send.data, p->bytes, &send, 0);
    fill_blocks(bufs->recv.data, p->bytes, &recv, 1);
    return HPCB_OK;
}

/* The per-rank counts and displacements of the v variants and of
 * reduce_scatter (every rank the same count, as OSU). */
static int counts_setup(const struct hpcb_micro_params *p, int size, struct coll_buffers *bufs)
{
    bufs->counts = malloc((size_t)size * sizeof(int));
    bufs->displs = malloc((size_t)size * sizeof(int));
    if (bufs->counts == NULL || bufs->displs == NULL)
        return HPCB_ENOMEM;
    int count = p->test == HPCB_MICRO_REDUCE_SCATTER ? (int)(p->bytes / sizeof(float) / (size_t)size)
                                                      : (int)p->bytes;
    for (int r = 0; r < size; r++) {
        bufs->counts[r] = count;
        bufs->displs[r] = r * count;   /* at most INT32_MAX: micro.c checks bytes * size */
    }
    return HPCB_OK;
}

static void coll_free(struct coll_buffers *bufs)
{
    hpcb_region_free(&bufs->send);
    hpcb_region_free(&bufs->recv);
    free(bufs->counts);
    free(bufs->displs);
}

static int coll_setup(const struct hpcb_micro_params *p, int rank, int size, struct coll_buffers *bufs)
{
    int rc = counts_setup(p, size, bufs);
    if (rc != HPCB_OK || p->test == HPCB_MICRO_BARRIER)
        return rc;
    return is_reduction(p->test) ? reduction_setup(p, rank, size, bufs) : block_setup(p, rank, size, bufs);
}

static int coll_verify(const struct hpcb_micro_params *p, int rank, int size, const struct coll_buffers *bufs)
{
    if (p->test == HPCB_MICRO_BARRIER)
        return HPCB_OK;
    if (is_reduction(p->test)) {
        size_t first, n = reduced_part(p->test, p->bytes / sizeof(float), rank, size, &first);
        return check_sums(bufs->recv.data, n, first, size);
    }
    struct coll_blocks send, recv;
    block_layout(p->test, rank, size, &send, &recv);
    if (p->test == HPCB_MICRO_BCAST)
        recv.blocks = 1;   /* the root's own buffer holds the pattern too */
    return check_blocks(bufs->recv.data, p->bytes, &recv);
}

static int run_mode(const struct hpcb_micro_params *p, const struct coll_run *run)
{
    const struct coll_loops *l = &loops[p->test - HPCB_MICRO_FIRST_COLLECTIVE];
    if (l->blocking == NULL)   /* a collective added to micro.h without its loops here */
        return HPCB_EINVAL;
    switch (p->mode) {
    case HPCB_MODE_PURE:
        return l->pure(run);
    case HPCB_MODE_OVERLAP:
        return l->overlap(run);
    default:
        return l->blocking(run);
    }
}

int hpcb_micro_collective(const struct hpcb_micro_params *p, struct hpcb_micro_out *out, int rank, int size)
{
    struct coll_run run = {.a = {.comm = p->comm, .count = (int)p->bytes},
                           .warmup = p->warmup, .iterations = p->iterations, .inner = p->inner,
                           .compute_ticks = p->compute_ticks, .ticks = out->ticks, .cpu_ticks = out->cpu_ticks};
    if (p->mode == HPCB_MODE_CPU)   /* no communication, nothing to allocate or verify */
        return cpu_only(&run);
    struct coll_buffers bufs = {0};
    int rc = hpcb_micro_agree(p->comm, coll_setup(p, rank, size, &bufs));
    if (rc == HPCB_OK) {
        run.a.send = bufs.send.data;
        run.a.recv = bufs.recv.data;
        run.a.counts = bufs.counts;
        run.a.displs = bufs.displs;
        if (is_reduction(p->test))
            run.a.count = (int)(p->bytes / sizeof(float));
        rc = run_mode(p, &run);
    }
    if (rc == HPCB_OK)
        rc = coll_verify(p, rank, size, &bufs);
    coll_free(&bufs);
    return rc;
}

/* A dependent chain of multiply-adds on one register (x -> x a + b, which
 * stays near 1: no overflow, no subnormals), the timer read every 64 of
 * them (about 0.2 us here: IMB-NBC's computation lasts t_pure, which is
 * under a microsecond for small messages, so a coarser step would
 * overshoot it noticeably): the CPU computes without touching memory or calling MPI, as IMB-NBC's
 * computation does while a collective is in flight. The start comes from a
 * volatile (a constant start was folded away by gcc -O2: x = 1 is the
 * chain's fixed point) and the result goes to one, so the compiler can
 * neither precompute nor drop the chain; without -ffast-math it may not
 * reorder it either. */
static volatile double compute_start = 1.0, compute_sink;

void hpcb_micro_compute(uint64_t ticks)
{
    double x = compute_start;
    uint64_t start = hpcb_ticks();
    while (hpcb_ticks() - start < ticks)
        for (int k = 0; k < 64; k++)
            x = x * 0.9999999 + 1e-7;
    compute_sink = x;
}
