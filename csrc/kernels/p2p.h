/* p2p.h - point-to-point kernels on any communicator: CoMet's echo
 * (ping-pong) and pairwise exchange.
 *
 * Every rank of the communicator calls the kernel. A rank with partner
 * MPI_PROC_NULL takes no part (it only joins the starting barrier), so one
 * call can time one pair while the others idle, or many disjoint pairs at
 * once (Servet's layer scalability). */
#ifndef HPCB_P2P_H
#define HPCB_P2P_H

#include <mpi.h>
#include <stddef.h>

struct hpcb_p2p_params {
    int partner;          /* rank in comm, or MPI_PROC_NULL to sit out */
    int initiator;        /* echo: 1 on the rank that sends first */
    size_t bytes;         /* message size, may be 0 */
    size_t warmup;        /* untimed iterations after the starting barrier */
    size_t iterations;    /* timed samples; ticks[i] for each */
    size_t inner;         /* iterations per timed sample (>= 1): for short
                           * messages one timer read pair per iteration
                           * would be a visible share of the time */
};

/* Echo: the initiator sends, the partner receives and sends the same bytes
 * back. ticks[i] is the time of sample i (`inner` round trips) on the
 * initiator, and of the matching receive-and-send cycles on the partner. The initiator checks that
 * what came back is what it sent. */
int hpcb_echo(MPI_Comm comm, const struct hpcb_p2p_params *p, double *ticks);

/* Pairwise exchange: both ranks send to each other at once (receive posted
 * first, so no buffering is assumed) and wait for both. ticks[i] is the
 * time of sample i (`inner` exchanges) on this rank. Each checks the partner's bytes. */
int hpcb_exchange(MPI_Comm comm, const struct hpcb_p2p_params *p, double *ticks);

#endif /* HPCB_P2P_H */
