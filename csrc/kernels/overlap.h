/* overlap.h - CoMet's overlap of communication with computation.
 *
 * The overlap kernel runs on a pair of ranks (others pass a negative partner
 * and only join the starting barrier). Each iteration is one of:
 *   HPCB_OVERLAP_BLOCKING:    exchange (Irecv, Send, Wait), then DAXPY
 *   HPCB_OVERLAP_NONBLOCKING: Irecv, Isend, DAXPY, Waitall
 *   HPCB_OVERLAP_COMM_ONLY:   the exchange alone
 *   HPCB_OVERLAP_COMPUTE_ONLY: the DAXPY alone
 * so that one sweep gives the time saved and the overlap percentage. The
 * DAXPY is kernels/daxpy.h's.
 *   HPCB_OVERLAP_INTERLEAVED: each iteration runs the four above, one each,
 *   starting with mode (iteration % 4) so no mode always follows the same
 *   one. The four are compared with each other: interleaved, they see the
 *   same machine (a neighbour's burst slows all four alike instead of one
 *   mode's whole run), and one call measures a cell of the overlap grid. */
#ifndef HPCB_OVERLAP_H
#define HPCB_OVERLAP_H

#include <mpi.h>
#include <stddef.h>

#include "../runtime/hpcb.h"
#include "../runtime/why.h"

/* The modes above, valued 0 to 3 in this order. */
#define HPCB_OVERLAP_MODES(X) \
    X(OVERLAP_BLOCKING) X(OVERLAP_NONBLOCKING) X(OVERLAP_COMM_ONLY) X(OVERLAP_COMPUTE_ONLY) X(OVERLAP_INTERLEAVED)
enum hpcb_overlap_mode { HPCB_OVERLAP_MODES(HPCB_ENUMERATOR) HPCB_OVERLAP_MODE_COUNT };
/* The timed modes: every mode before INTERLEAVED. */
#define HPCB_OVERLAP_TIMED_MODES ((size_t)HPCB_OVERLAP_INTERLEAVED)

struct hpcb_overlap_params {
    MPI_Comm comm;
    int partner;          /* a rank of comm other than this one, or negative to sit out */
    size_t bytes;         /* message size, 0..INT32_MAX */
    size_t n;             /* DAXPY vector length (the daxpy family's rule) */
    int mode;             /* enum hpcb_overlap_mode */
    size_t warmup;        /* untimed iterations */
    size_t iterations;    /* timed iterations, 1..HPCB_MAX_SAMPLES */
};

struct hpcb_overlap_out {
    double *ticks;        /* iterations, or for INTERLEAVED HPCB_OVERLAP_TIMED_MODES x iterations (mode-major:
                             ticks[mode * iterations + i]); untouched on a rank that sits out */
};

/* How many samples `out->ticks` holds for these params. */
static inline size_t hpcb_overlap_samples(const struct hpcb_overlap_params *p)
{
    return p->mode == HPCB_OVERLAP_INTERLEAVED ? HPCB_OVERLAP_TIMED_MODES * p->iterations : p->iterations;
}

int hpcb_overlap_check(const struct hpcb_overlap_params *p, struct hpcb_why *why);

/* Checks the DAXPY result and (except compute-only) the partner's bytes. */
int hpcb_overlap_run(const struct hpcb_overlap_params *p, struct hpcb_overlap_out *out);

#endif /* HPCB_OVERLAP_H */
