/* shift.c - see shift.h. */
#include "shift.h"

#include <stdlib.h>

#include "../hpcb.h"
#include "../timer.h"
#include "msgbuf.h"

#define TAG_SHIFT 4401

int hpcb_shift(MPI_Comm comm, int dest, int source, size_t bytes, size_t warmup, size_t iterations,
               double *ticks)
{
    int rank, size;
    if (comm == MPI_COMM_NULL || ticks == NULL || iterations == 0 || bytes > (size_t)INT32_MAX)
        return HPCB_EINVAL;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return HPCB_EMPI;
    int active = dest >= 0;
    if (active && (dest >= size || source < 0 || source >= size))
        return HPCB_EINVAL;

    unsigned char *sbuf = NULL, *rbuf = NULL;
    int rc = HPCB_OK;
    if (active) {
        sbuf = malloc(bytes ? bytes : 1);
        rbuf = malloc(bytes ? bytes : 1);
        if (sbuf == NULL || rbuf == NULL)
            rc = HPCB_ENOMEM;
        else {
            hpcb_pattern_fill(sbuf, bytes, (unsigned)rank);
            hpcb_pattern_fill(rbuf, bytes, (unsigned)rank + 1u);
        }
    }
    int count = (int)bytes;
    /* Every rank runs every barrier, even after a local failure, so that
     * nobody waits forever; the failure is reported at the end. */
    for (size_t i = 0; i < warmup + iterations; i++) {
        if (MPI_Barrier(comm) != MPI_SUCCESS) {
            rc = HPCB_EMPI;
            break;
        }
        if (!active || rc != HPCB_OK)
            continue;
        MPI_Request req[2];
        uint64_t t0 = hpcb_ticks();
        if (MPI_Irecv(rbuf, count, MPI_BYTE, source, TAG_SHIFT, comm, &req[0]) != MPI_SUCCESS ||
            MPI_Isend(sbuf, count, MPI_BYTE, dest, TAG_SHIFT, comm, &req[1]) != MPI_SUCCESS ||
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            rc = HPCB_EMPI;
        uint64_t t1 = hpcb_ticks();
        if (i >= warmup)
            ticks[i - warmup] = (double)(t1 - t0);
    }
    if (rc == HPCB_OK && active && bytes > 0 && !hpcb_pattern_check(rbuf, bytes, (unsigned)source))
        rc = HPCB_ECHECK;
    free(sbuf);
    free(rbuf);
    return rc;
}
