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
#include <stdint.h>

#include "../runtime/hpcb.h"
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
    /* overhead only (the other kernels leave these 0): */
    int side;             /* enum hpcb_overhead_side */
    uint64_t delay_ticks; /* receive side: ticks the receiver waits before its
                           * timed receive, so the message is there already;
                           * 0..HPCB_OVERHEAD_MAX_DELAY */
};

/* What the overhead kernel times (Python: OVERHEAD_SEND, OVERHEAD_RECV, OVERHEAD_GAP). */
#define HPCB_OVERHEAD_SIDES(X) X(OVERHEAD_SEND) X(OVERHEAD_RECV) X(OVERHEAD_GAP)
enum hpcb_overhead_side { HPCB_OVERHEAD_SIDES(HPCB_ENUMERATOR) HPCB_OVERHEAD_SIDE_COUNT };
#define HPCB_OVERHEAD_MAX_DELAY ((uint64_t)1 << 40)   /* minutes of ticks: a bound, not a target */

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

/* Overhead (LogP's o_s and o_r): the time the CPU of one side spends in a
 * blocking call for one message, apart from the time the message spends on
 * the wire. `initiator` marks the timed rank. Send side: the timed rank
 * waits for a 0-byte "go" from its partner (so the partner's receive is
 * posted and the previous message has left the pipe), then times its
 * MPI_Send. Receive side: the partner sends, the timed rank waits
 * delay_ticks (long enough for the message to arrive, chosen by the caller
 * from the echo time) and times its MPI_Recv, then returns a 0-byte ack.
 * Where the transport copies or pushes the data with the CPU (shared
 * memory, PIO) the overheads hold the transfer; where a NIC or the kernel
 * moves it after MPI_Send returns (TCP's eager sends), they do not, and
 * the wire time overlaps computation. ticks[i] is sample i on the timed
 * rank and 0 on its partner; the receiver checks the bytes. Rendezvous
 * sizes block for the partner by design: that blocking is overhead.
 * Gap (LogP's g): the timed rank sends `inner` messages back to back with
 * blocking MPI_Send, as a pipeline streams its faces, and waits for a 0-byte
 * ack of the last; its partner receives them and acks. ticks[i] is that
 * window's time; the caller takes two windows' difference over their
 * difference in messages, which cancels the ack and the start. Where the
 * echo leaves the link idle between messages (and a shaper lends it
 * credit, or a switch has a buffer), a stream does not: the gap is the
 * time a message holds its link in a pipeline. */
int hpcb_p2p_overhead(const struct hpcb_p2p_params *p, struct hpcb_p2p_out *out);

#endif /* HPCB_P2P_H */
