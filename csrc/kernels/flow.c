/* flow.c - see flow.h. */
#include "flow.h"

#include "../runtime/hpcb.h"
#include "../runtime/timer.h"
#include "comm.h"
#include "msgbuf.h"

#define TAG_FLOW 4402

int hpcb_flow_check(const struct hpcb_flow_params *p, struct hpcb_why *why)
{
    int rank, size, rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if ((rc = hpcb_comm_check_bytes("bytes", p->bytes, why)) != HPCB_OK ||
        (rc = hpcb_comm_check_iterations("iterations", p->iterations, why)) != HPCB_OK ||
        (rc = hpcb_comm_shape(p->comm, &rank, &size, why)) != HPCB_OK)
        return rc;
    if (p->dest >= 0 && (rc = hpcb_comm_check_rank("dest", p->dest, size, rank, " or negative to send nothing",
                                                   why)) != HPCB_OK)
        return rc;
    if (p->source >= 0)
        return hpcb_comm_check_rank("source", p->source, size, rank, " or negative to receive nothing", why);
    return HPCB_OK;
}

/* One iteration's Irecv and Isend, waited for one at a time so that each
 * completion gets its own time; ticks[0] send, ticks[1] receive. */
static int flow_once(const struct hpcb_flow_params *p, const struct hpcb_msgbufs *b, uint64_t ticks[2])
{
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};   /* 0 send, 1 receive */
    int count = (int)p->bytes;
    uint64_t t0 = hpcb_ticks();
    if (p->source >= 0 && MPI_Irecv(b->recv, count, MPI_BYTE, p->source, TAG_FLOW, p->comm, &req[1]) != MPI_SUCCESS)
        return HPCB_EMPI;
    if (p->dest >= 0 && MPI_Isend(b->send, count, MPI_BYTE, p->dest, TAG_FLOW, p->comm, &req[0]) != MPI_SUCCESS) {
        if (req[1] != MPI_REQUEST_NULL && MPI_Cancel(&req[1]) == MPI_SUCCESS)
            MPI_Wait(&req[1], MPI_STATUS_IGNORE);
        return HPCB_EMPI;
    }
    int pending = (p->dest >= 0) + (p->source >= 0);
    while (pending-- > 0) {
        int which;
        if (MPI_Waitany(2, req, &which, MPI_STATUS_IGNORE) != MPI_SUCCESS || which == MPI_UNDEFINED)
            return HPCB_EMPI;
        ticks[which] = hpcb_ticks() - t0;
    }
    return HPCB_OK;
}

int hpcb_flow_run(const struct hpcb_flow_params *p, struct hpcb_flow_out *out)
{
    int rc = hpcb_contract_start(hpcb_flow_check(p, NULL), out != NULL && out->ticks != NULL);
    if (rc != HPCB_OK)
        return rc;
    int active = p->dest >= 0 || p->source >= 0;
    struct hpcb_msgbufs b = {0};
    if (active)
        rc = hpcb_msgbufs_alloc(&b, p->comm, p->bytes, p->source);
    /* Every rank runs every barrier, even after a local failure, so that
     * nobody waits forever; the failure is reported at the end. */
    for (size_t i = 0; i < p->warmup + p->iterations; i++) {
        if (MPI_Barrier(p->comm) != MPI_SUCCESS) {
            rc = HPCB_EMPI;
            break;
        }
        if (!active || rc != HPCB_OK)
            continue;
        uint64_t ticks[2] = {0, 0};
        rc = flow_once(p, &b, ticks);
        if (rc == HPCB_OK && i >= p->warmup) {
            size_t k = i - p->warmup;
            if (p->dest >= 0)
                out->ticks[k] = (double)ticks[0];
            if (p->source >= 0)
                out->ticks[p->iterations + k] = (double)ticks[1];
        }
    }
    if (rc == HPCB_OK && p->source >= 0)
        rc = hpcb_msgbufs_verify(&b, (unsigned)p->source);
    hpcb_msgbufs_free(&b);
    return rc;
}
