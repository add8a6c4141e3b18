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

#include "../runtime/why.h"

struct hpcb_collective_params {
    MPI_Comm comm;
    int root;             /* broadcast: the rank that sends (a rank of comm) */
    size_t bytes;         /* broadcast: message size, 0..INT32_MAX */
    size_t count;         /* global sum: doubles summed, at most INT32_MAX bytes of them */
    size_t warmup;        /* untimed iterations */
    size_t iterations;    /* timed iterations, 1..HPCB_MAX_SAMPLES */
};

struct hpcb_collective_out {
    double *ticks;        /* iterations: this rank's time of each collective */
};

int hpcb_collective_check(const struct hpcb_collective_params *p, struct hpcb_why *why);

/* MPI_Bcast of `bytes` from `root`; every non-root checks the root's bytes. */
int hpcb_collective_bcast(const struct hpcb_collective_params *p, struct hpcb_collective_out *out);

/* MPI_Allreduce(MPI_SUM) of `count` doubles; every rank checks the exact sum. */
int hpcb_collective_allreduce(const struct hpcb_collective_params *p, struct hpcb_collective_out *out);

#endif /* HPCB_COLLECTIVE_H */
