/* barrier.c - see barrier.h. */
#include "barrier.h"

#include "../runtime/hpcb.h"
#include "../runtime/timer.h"
#include "comm.h"

int hpcb_barrier_check(const struct hpcb_barrier_params *p, struct hpcb_why *why)
{
    int rank, size;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    int rc = hpcb_comm_check_iterations("samples", p->samples, why);
    return rc != HPCB_OK ? rc : hpcb_comm_shape(p->comm, &rank, &size, why);
}

int hpcb_barrier_run(const struct hpcb_barrier_params *p, struct hpcb_barrier_out *out)
{
    int rc = hpcb_contract_start(hpcb_barrier_check(p, NULL), out != NULL && out->ns != NULL);
    if (rc != HPCB_OK)
        return rc;
    for (size_t i = 0; i < p->warmup; i++)
        if (MPI_Barrier(p->comm) != MPI_SUCCESS)
            return HPCB_EMPI;
    for (size_t i = 0; i < p->samples; i++) {
        uint64_t t0 = hpcb_now_ns();
        if (MPI_Barrier(p->comm) != MPI_SUCCESS)
            return HPCB_EMPI;
        out->ns[i] = (double)(hpcb_now_ns() - t0);
    }
    return HPCB_OK;
}
