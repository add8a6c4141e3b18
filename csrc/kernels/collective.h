/* collective.h - CoMet's broadcast and global sum on any communicator.
 *
 * Every rank calls the kernel. Each iteration starts with an untimed
 * MPI_Barrier, so that every rank enters the collective together and one
 * iteration's tail does not overlap the next (the results say so); each rank
 * then times its own part of the collective. The caller combines ranks (the
 * maximum per iteration is the collective's time). */
#ifndef HPCB_COLLECTIVE_H
#define HPCB_COLLECTIVE_H

#include <mpi.h>
#include <stddef.h>

/* MPI_Bcast of `bytes` from `root`; every non-root checks the root's bytes. */
int hpcb_bcast(MPI_Comm comm, int root, size_t bytes, size_t warmup, size_t iterations, double *ticks);

/* MPI_Allreduce(MPI_SUM) of `count` doubles; every rank checks the exact sum. */
int hpcb_allreduce_sum(MPI_Comm comm, size_t count, size_t warmup, size_t iterations, double *ticks);

#endif /* HPCB_COLLECTIVE_H */
