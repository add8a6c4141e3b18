/* overlap.c - DAXPY and the overlap kernel; see overlap.h. */
#include "overlap.h"

#include <stdlib.h>

#include "../hpcb.h"
#include "../timer.h"
#include "msgbuf.h"

#define TAG_OVERLAP 4201
/* a = 0.5 and x[i] in 0..4: after k updates y[i] = 0.5 * k * x[i], exact. */
#define DAXPY_A 0.5

struct daxpy_vectors {
    double *block;           /* x and y, in one cache-line-aligned block */
    double *x;
    double *y;
    size_t n;
    size_t updates;
};

static int daxpy_alloc(struct daxpy_vectors *v, size_t n)
{
    v->n = n;
    v->updates = 0;
    /* y starts a line past the end of x: the rate must not depend on where
     * malloc put two vectors (misalignment and 4 KiB aliasing cost ~2x). */
    if (posix_memalign((void **)&v->block, 64, (2 * n + 8 + 1) * sizeof(double)) != 0)
        return HPCB_ENOMEM;
    v->x = v->block;
    v->y = v->block + n + 8;
    for (size_t i = 0; i < n; i++) {
        v->x[i] = (double)(i % 5);
        v->y[i] = 0.0;
    }
    return HPCB_OK;
}

static void daxpy(struct daxpy_vectors *v)
{
    double *restrict y = v->y;
    const double *restrict x = v->x;
    for (size_t i = 0; i < v->n; i++)
        y[i] += DAXPY_A * x[i];
    v->updates++;
    HPCB_COMPILER_BARRIER();
}

static int daxpy_check_free(struct daxpy_vectors *v)
{
    int rc = HPCB_OK;
    for (size_t i = 0; i < v->n; i++)
        if (v->y[i] != DAXPY_A * (double)v->updates * v->x[i]) {
            rc = HPCB_ECHECK;
            break;
        }
    free(v->block);
    return rc;
}

int hpcb_daxpy_times(size_t n, size_t warmup, size_t iterations, double *ticks)
{
    if (ticks == NULL || iterations == 0 || n > ((size_t)1 << 32))
        return HPCB_EINVAL;
    struct daxpy_vectors v;
    int rc = daxpy_alloc(&v, n);
    if (rc != HPCB_OK)
        return rc;
    for (size_t i = 0; i < warmup; i++)
        daxpy(&v);
    for (size_t i = 0; i < iterations; i++) {
        uint64_t t0 = hpcb_ticks();
        daxpy(&v);
        ticks[i] = (double)(hpcb_ticks() - t0);
    }
    return daxpy_check_free(&v);
}

static int overlap_once(MPI_Comm comm, int partner, unsigned char *sbuf, unsigned char *rbuf, int count,
                        int mode, struct daxpy_vectors *v)
{
    MPI_Request req[2];
    switch (mode) {
    case HPCB_OVERLAP_COMPUTE_ONLY:
        daxpy(v);
        return HPCB_OK;
    case HPCB_OVERLAP_NONBLOCKING:
        if (MPI_Irecv(rbuf, count, MPI_BYTE, partner, TAG_OVERLAP, comm, &req[0]) != MPI_SUCCESS ||
            MPI_Isend(sbuf, count, MPI_BYTE, partner, TAG_OVERLAP, comm, &req[1]) != MPI_SUCCESS)
            return HPCB_EMPI;
        daxpy(v);
        return MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS ? HPCB_OK : HPCB_EMPI;
    default: /* blocking and comm-only: the exchange first */
        if (MPI_Irecv(rbuf, count, MPI_BYTE, partner, TAG_OVERLAP, comm, &req[0]) != MPI_SUCCESS ||
            MPI_Send(sbuf, count, MPI_BYTE, partner, TAG_OVERLAP, comm) != MPI_SUCCESS ||
            MPI_Wait(&req[0], MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return HPCB_EMPI;
        if (mode == HPCB_OVERLAP_BLOCKING)
            daxpy(v);
        return HPCB_OK;
    }
}

int hpcb_overlap(MPI_Comm comm, int partner, size_t bytes, size_t n, int mode, size_t warmup,
                 size_t iterations, double *ticks)
{
    int rank, size;
    if (comm == MPI_COMM_NULL || ticks == NULL || iterations == 0 || bytes > (size_t)INT32_MAX ||
        n > ((size_t)1 << 32) || mode < HPCB_OVERLAP_BLOCKING || mode > HPCB_OVERLAP_COMPUTE_ONLY)
        return HPCB_EINVAL;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return HPCB_EMPI;
    if (partner != MPI_PROC_NULL && (partner < 0 || partner >= size || partner == rank))
        return HPCB_EINVAL;
    if (MPI_Barrier(comm) != MPI_SUCCESS)
        return HPCB_EMPI;
    if (partner == MPI_PROC_NULL)
        return HPCB_OK;

    unsigned char *sbuf = malloc(bytes ? bytes : 1), *rbuf = malloc(bytes ? bytes : 1);
    struct daxpy_vectors v;
    int rc = (sbuf == NULL || rbuf == NULL) ? HPCB_ENOMEM : daxpy_alloc(&v, n);
    if (rc != HPCB_OK) {
        free(sbuf);
        free(rbuf);
        return rc;
    }
    hpcb_pattern_fill(sbuf, bytes, (unsigned)rank);
    hpcb_pattern_fill(rbuf, bytes, (unsigned)rank);
    int count = (int)bytes;
    for (size_t i = 0; rc == HPCB_OK && i < warmup + iterations; i++) {
        uint64_t t0 = hpcb_ticks();
        rc = overlap_once(comm, partner, sbuf, rbuf, count, mode, &v);
        uint64_t t1 = hpcb_ticks();
        if (i >= warmup)
            ticks[i - warmup] = (double)(t1 - t0);
    }
    int daxpy_rc = daxpy_check_free(&v);
    if (rc == HPCB_OK)
        rc = daxpy_rc;
    if (rc == HPCB_OK && mode != HPCB_OVERLAP_COMPUTE_ONLY && bytes > 0 &&
        !hpcb_pattern_check(rbuf, bytes, (unsigned)partner))
        rc = HPCB_ECHECK;
    free(sbuf);
    free(rbuf);
    return rc;
}
