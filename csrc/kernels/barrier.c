/* barrier.c - see barrier.h. */
#include "barrier.h"

#include "../hpcb.h"
#include "../timer.h"

int hpcb_barrier_times(MPI_Comm comm, size_t warmup, double *ns, size_t nsamples)
{
    if (comm == MPI_COMM_NULL || ns == NULL || nsamples == 0)
        return HPCB_EINVAL;
    for (size_t i = 0; i < warmup; i++)
        if (MPI_Barrier(comm) != MPI_SUCCESS)
            return HPCB_EMPI;
    for (size_t i = 0; i < nsamples; i++) {
        uint64_t t0 = hpcb_now_ns();
        if (MPI_Barrier(comm) != MPI_SUCCESS)
            return HPCB_EMPI;
        ns[i] = (double)(hpcb_now_ns() - t0);
    }
    return HPCB_OK;
}
