/* collective.c - broadcast and global sum; see collective.h. */
#include "collective.h"

#include <stdlib.h>

#include "../hpcb.h"
#include "../timer.h"
#include "msgbuf.h"

static int comm_shape(MPI_Comm comm, int *rank, int *size)
{
    if (comm == MPI_COMM_NULL)
        return HPCB_EINVAL;
    if (MPI_Comm_rank(comm, rank) != MPI_SUCCESS || MPI_Comm_size(comm, size) != MPI_SUCCESS)
        return HPCB_EMPI;
    return HPCB_OK;
}

int hpcb_bcast(MPI_Comm comm, int root, size_t bytes, size_t warmup, size_t iterations, double *ticks)
{
    int rank, size;
    int rc = comm_shape(comm, &rank, &size);
    if (rc != HPCB_OK)
        return rc;
    if (ticks == NULL || iterations == 0 || root < 0 || root >= size || bytes > (size_t)INT32_MAX)
        return HPCB_EINVAL;
    unsigned char *buf = malloc(bytes ? bytes : 1);
    if (buf == NULL)
        return HPCB_ENOMEM;
    /* Non-roots start with a different pattern: only a real broadcast fixes it. */
    hpcb_pattern_fill(buf, bytes, rank == root ? (unsigned)root : (unsigned)root + 1u);
    int count = (int)bytes;
    for (size_t i = 0; rc == HPCB_OK && i < warmup + iterations; i++) {
        if (MPI_Barrier(comm) != MPI_SUCCESS) {
            rc = HPCB_EMPI;
            break;
        }
        uint64_t t0 = hpcb_ticks();
        if (MPI_Bcast(buf, count, MPI_BYTE, root, comm) != MPI_SUCCESS)
            rc = HPCB_EMPI;
        uint64_t t1 = hpcb_ticks();
        if (i >= warmup)
            ticks[i - warmup] = (double)(t1 - t0);
    }
    if (rc == HPCB_OK && !hpcb_pattern_check(buf, bytes, (unsigned)root))
        rc = HPCB_ECHECK;
    free(buf);
    return rc;
}

/* Small integers times small integers: every partial sum is exact in double. */
static double contribution(int rank, size_t i)
{
    return (double)(rank + 1) * (double)(i % 7 + 1);
}

int hpcb_allreduce_sum(MPI_Comm comm, size_t count, size_t warmup, size_t iterations, double *ticks)
{
    int rank, size;
    int rc = comm_shape(comm, &rank, &size);
    if (rc != HPCB_OK)
        return rc;
    if (ticks == NULL || iterations == 0 || count > (size_t)INT32_MAX)
        return HPCB_EINVAL;
    double *in = malloc((count ? count : 1) * sizeof *in);
    double *out = malloc((count ? count : 1) * sizeof *out);
    if (in == NULL || out == NULL) {
        free(in);
        free(out);
        return HPCB_ENOMEM;
    }
    for (size_t i = 0; i < count; i++) {
        in[i] = contribution(rank, i);
        out[i] = -1.0;
    }
    int n = (int)count;
    for (size_t i = 0; rc == HPCB_OK && i < warmup + iterations; i++) {
        if (MPI_Barrier(comm) != MPI_SUCCESS) {
            rc = HPCB_EMPI;
            break;
        }
        uint64_t t0 = hpcb_ticks();
        if (MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS)
            rc = HPCB_EMPI;
        uint64_t t1 = hpcb_ticks();
        if (i >= warmup)
            ticks[i - warmup] = (double)(t1 - t0);
    }
    /* sum over ranks of (r + 1) * k = k * P (P + 1) / 2, exactly. */
    double ranks_sum = (double)size * (double)(size + 1) / 2.0;
    for (size_t i = 0; rc == HPCB_OK && i < count; i++)
        if (out[i] != ranks_sum * (double)(i % 7 + 1))
            rc = HPCB_ECHECK;
    free(in);
    free(out);
    return rc;
}
