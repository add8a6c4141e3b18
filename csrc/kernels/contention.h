/* contention.h - CoMet's echo with contention (Fig. 3.6-3.7).
 *
 * Four ranks take part: an echo pair, timed as in hpcb_echo, and a load pair
 * whose sender streams messages of load_bytes to its receiver for as long as
 * the echo runs. When the echo initiator has finished, it tells the load
 * sender to stop (TAG_STOP); the sender then sends an empty end message, so
 * the receiver leaves its loop. Every other rank only joins the starting
 * barrier. */
#ifndef HPCB_CONTENTION_H
#define HPCB_CONTENTION_H

#include <mpi.h>
#include <stddef.h>

enum hpcb_contention_role {
    HPCB_ROLE_IDLE = 0,
    HPCB_ROLE_ECHO_INITIATOR = 1,
    HPCB_ROLE_ECHO_RESPONDER = 2,
    HPCB_ROLE_LOAD_SENDER = 3,
    HPCB_ROLE_LOAD_RECEIVER = 4
};

struct hpcb_contention_params {
    int role;
    int partner;          /* echo partner, or the other end of the load pair */
    int load_sender;      /* the echo initiator stops this rank at the end */
    size_t bytes;         /* echo message size */
    size_t load_bytes;    /* load message size */
    size_t warmup;
    size_t iterations;
};

/* ticks[i]: echo round trips (echo ranks). *load_messages: messages the load
 * pair moved (load ranks), so the caller can report the load's bandwidth. */
int hpcb_echo_contention(MPI_Comm comm, const struct hpcb_contention_params *p, double *ticks,
                         size_t *load_messages, double *load_ticks);

#endif /* HPCB_CONTENTION_H */
