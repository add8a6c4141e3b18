/* barrier.h - time MPI_Barrier on any communicator (CoMet's barrier test).
 * MPI is initialised by the caller (mpi4py); this file never initialises it. */
#ifndef HPCB_BARRIER_H
#define HPCB_BARRIER_H

#include <mpi.h>
#include <stddef.h>

#include "../runtime/why.h"

struct hpcb_barrier_params {
    MPI_Comm comm;
    size_t warmup;        /* untimed barriers */
    size_t samples;       /* timed barriers, 1..HPCB_MAX_SAMPLES */
};

struct hpcb_barrier_out {
    double *ns;           /* samples: how long barrier i took on this rank */
};

int hpcb_barrier_check(const struct hpcb_barrier_params *p, struct hpcb_why *why);

int hpcb_barrier_run(const struct hpcb_barrier_params *p, struct hpcb_barrier_out *out);

#endif /* HPCB_BARRIER_H */
