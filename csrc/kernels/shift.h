/* shift.h - every rank sends to one rank and receives from another at the
 * same time: the communication pattern of Servet 3.0's distance and network
 * access benchmarks (rank p sends to (p + d) mod N).
 *
 * Every rank of the communicator calls the kernel; a rank with dest < 0 only
 * joins the barriers. Each iteration starts with an untimed MPI_Barrier so
 * that all messages are in flight together (the congestion is the point);
 * then Irecv from `source`, Isend to `dest`, Waitall. The receiver checks
 * the sender's pattern. */
#ifndef HPCB_SHIFT_H
#define HPCB_SHIFT_H

#include <mpi.h>
#include <stddef.h>

#include "../runtime/why.h"

struct hpcb_shift_params {
    MPI_Comm comm;
    int dest;             /* a rank of comm, or negative to sit out */
    int source;           /* a rank of comm (unless dest is negative) */
    size_t bytes;         /* message size, 0..INT32_MAX */
    size_t warmup;        /* untimed iterations */
    size_t iterations;    /* timed iterations, 1..HPCB_MAX_SAMPLES */
};

struct hpcb_shift_out {
    double *ticks;        /* iterations: time of iteration i on this rank; untouched if sitting out */
};

int hpcb_shift_check(const struct hpcb_shift_params *p, struct hpcb_why *why);

int hpcb_shift_run(const struct hpcb_shift_params *p, struct hpcb_shift_out *out);

#endif /* HPCB_SHIFT_H */
