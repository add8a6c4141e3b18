/* shift.c - see shift.h. */
#include "shift.h"

#include "../runtime/hpcb.h"
#include "../runtime/timer.h"
#include "comm.h"
#include "msgbuf.h"

#define TAG_SHIFT 4401

int hpcb_shift_check(const struct hpcb_shift_params *p, struct hpcb_why *why)
{
    int rank, size, rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if ((rc = hpcb_comm_check_bytes("bytes", p->bytes, why)) != HPCB_OK ||
        (rc = hpcb_comm_check_iterations("iterations", p->iterations, why)) != HPCB_OK ||
        (rc = hpcb_comm_shape(p->comm, &rank, &size, why)) != HPCB_OK || p->dest < 0)
        return rc;
    if ((rc = hpcb_comm_check_rank("dest", p->dest, size, -1, " or negative to sit out", why)) != HPCB_OK)
        return rc;
    return hpcb_comm_check_rank("source", p->source, size, -1, " (when dest is not negative)", why);
}

int hpcb_shift_run(const struct hpcb_shift_params *p, struct hpcb_shift_out *out)
{
    int rc = hpcb_contract_start(hpcb_shift_check(p, NULL), out != NULL && out->ticks != NULL);
    if (rc != HPCB_OK)
        return rc;
    int active = p->dest >= 0;
    struct hpcb_msgbufs b = {0};
    if (active)
        rc = hpcb_msgbufs_alloc(&b, p->comm, p->bytes, p->source);
    int count = (int)p->bytes;
    /* Every rank runs every barrier, even after a local failure, so that
     * nobody waits forever; the failure is reported at the end. */
    for (size_t i = 0; i < p->warmup + p->iterations; i++) {
        if (MPI_Barrier(p->comm) != MPI_SUCCESS) {
            rc = HPCB_EMPI;
            break;
        }
        if (!active || rc != HPCB_OK)
            continue;
        MPI_Request req[2];
        uint64_t t0 = hpcb_ticks();
        if (MPI_Irecv(b.recv, count, MPI_BYTE, p->source, TAG_SHIFT, p->comm, &req[0]) != MPI_SUCCESS ||
            MPI_Isend(b.send, count, MPI_BYTE, p->dest, TAG_SHIFT, p->comm, &req[1]) != MPI_SUCCESS ||
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            rc = HPCB_EMPI;
        uint64_t t1 = hpcb_ticks();
        if (i >= p->warmup)
            out->ticks[i - p->warmup] = (double)(t1 - t0);
    }
    if (rc == HPCB_OK && active)
        rc = hpcb_msgbufs_verify(&b, (unsigned)p->source);
    hpcb_msgbufs_free(&b);
    return rc;
}
