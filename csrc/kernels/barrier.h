/* barrier.h - time MPI_Barrier on any communicator (CoMet's barrier test).
 * MPI is initialised by the caller (mpi4py); this file never initialises it. */
#ifndef HPCB_BARRIER_H
#define HPCB_BARRIER_H

#include <mpi.h>
#include <stddef.h>

/* After `warmup` untimed barriers, ns[i] receives how long barrier i took on
 * the calling rank. */
int hpcb_barrier_times(MPI_Comm comm, size_t warmup, double *ns, size_t nsamples);

#endif /* HPCB_BARRIER_H */
