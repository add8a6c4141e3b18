/* overlap.h - CoMet's overlap of communication with computation, and the
 * DAXPY rate of one core (r_inf and n_1/2 come from the Python side).
 *
 * The overlap kernel runs on a pair of ranks (others pass MPI_PROC_NULL and
 * only join the starting barrier). Each iteration is one of:
 *   HPCB_OVERLAP_BLOCKING:    exchange (Irecv, Send, Wait), then DAXPY
 *   HPCB_OVERLAP_NONBLOCKING: Irecv, Isend, DAXPY, Waitall
 *   HPCB_OVERLAP_COMM_ONLY:   the exchange alone
 *   HPCB_OVERLAP_COMPUTE_ONLY: the DAXPY alone
 * so that one sweep gives the time saved and the overlap percentage. */
#ifndef HPCB_OVERLAP_H
#define HPCB_OVERLAP_H

#include <mpi.h>
#include <stddef.h>

enum hpcb_overlap_mode {
    HPCB_OVERLAP_BLOCKING = 0,
    HPCB_OVERLAP_NONBLOCKING = 1,
    HPCB_OVERLAP_COMM_ONLY = 2,
    HPCB_OVERLAP_COMPUTE_ONLY = 3
};

/* y += a * x over n doubles, `warmup` untimed then `iterations` timed, on
 * the calling thread; checks y afterwards. */
int hpcb_daxpy_times(size_t n, size_t warmup, size_t iterations, double *ticks);

int hpcb_overlap(MPI_Comm comm, int partner, size_t bytes, size_t n, int mode, size_t warmup,
                 size_t iterations, double *ticks);

#endif /* HPCB_OVERLAP_H */
