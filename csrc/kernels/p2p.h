/* p2p.h - point-to-point kernels on any communicator: CoMet's echo
 * (ping-pong) and pairwise exchange.
 *
 * Every rank of the communicator calls the kernel. A rank with a negative
 * partner takes no part (it only joins the starting barrier), so one call
 * can time one pair while the others idle, or many disjoint pairs at once
 * (Servet's layer scalability). */
#ifndef HPCB_P2P_H
#define HPCB_P2P_H

#include <mpi.h>
#include <stddef.h>

#include "../runtime/why.h"

struct hpcb_p2p_params {
    MPI_Comm comm;
    int partner;          /* a rank of comm other than this one, or negative
                           * (e.g. MPI_PROC_NULL) to sit out */
    int initiator;        /* echo: 1 on the rank that sends first */
    size_t bytes;         /* message size, 0..INT32_MAX */
    size_t warmup;        /* untimed iterations after the starting barrier */
    size_t iterations;    /* timed samples, 1..HPCB_MAX_SAMPLES */
    size_t inner;         /* iterations per timed sample, 1..1000000: for short
                           * messages one timer read pair per iteration
                           * would be a visible share of the time */
};

struct hpcb_p2p_out {
    double *ticks;        /* iterations samples; untouched on a rank that sits out */
};

/* The rules about sizes and counts (no communicator needed). */
int hpcb_p2p_check_sizes(const struct hpcb_p2p_params *p, struct hpcb_why *why);
/* Those, then the communicator and the partner. */
int hpcb_p2p_check(const struct hpcb_p2p_params *p, struct hpcb_why *why);

/* Echo: the initiator sends, the partner receives and sends the same bytes
 * back. ticks[i] is the time of sample i (`inner` round trips) on the
 * initiator, and of the matching receive-and-send cycles on the partner.
 * The initiator checks that what came back is what it sent. */
int hpcb_p2p_echo(const struct hpcb_p2p_params *p, struct hpcb_p2p_out *out);

/* Pairwise exchange: both ranks send to each other at once (receive posted
 * first, so no buffering is assumed) and wait for both. ticks[i] is the
 * time of sample i (`inner` exchanges) on this rank. Each checks the
 * partner's bytes. */
int hpcb_p2p_exchange(const struct hpcb_p2p_params *p, struct hpcb_p2p_out *out);

#endif /* HPCB_P2P_H */
